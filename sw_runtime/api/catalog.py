"""What a client can list before it starts: the check vocabulary and the fault profiles."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..engine import faults
from ..verify import vocabulary
from .common import API, endpoint, json_response


def routes(engine, settings) -> list:
    checks_body = vocabulary.listing()
    faults_body = {"fault_profiles": faults.listing()}

    @endpoint
    async def list_checks(request: Request):
        return json_response(checks_body)

    @endpoint
    async def list_fault_profiles(request: Request):
        return json_response(faults_body)

    return [
        Route(f"{API}/checks", list_checks, methods=["GET"]),
        Route(f"{API}/fault-profiles", list_fault_profiles, methods=["GET"]),
    ]
