"""What a client can list before it starts: the check vocabulary (and a check's sentence) and the fault profiles."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .. import schemas
from ..engine import faults
from ..verify import custom, vocabulary
from ..worlds import get_world
from .common import API, endpoint, json_response, read_body


def routes(engine, settings) -> list:
    checks_body = vocabulary.listing()
    faults_body = {"fault_profiles": faults.listing()}

    @endpoint
    async def list_checks(request: Request):
        return json_response(checks_body)

    @endpoint
    async def render_checks(request: Request):
        req = schemas.decode(schemas.RenderChecks, await read_body(request, settings.max_body))
        world = get_world(req.environment) if req.environment is not None else None
        return json_response({"environment": req.environment, "lines": custom.render(req.checks, world)})

    @endpoint
    async def list_fault_profiles(request: Request):
        return json_response(faults_body)

    return [
        Route(f"{API}/checks", list_checks, methods=["GET"]),
        Route(f"{API}/checks/render", render_checks, methods=["POST"]),
        Route(f"{API}/fault-profiles", list_fault_profiles, methods=["GET"]),
    ]
