"""What a client can list before it starts: the check vocabulary (and checks' sentences) and the fault profiles."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .common import API, endpoint, json_response, read_body


def routes(service) -> list:
    @endpoint
    async def list_checks(request: Request):
        return json_response(service.checks())

    @endpoint
    async def render_checks(request: Request):
        return json_response(service.render_checks(await read_body(request, service.max_body)))

    @endpoint
    async def bind_checks(request: Request):
        return json_response(service.bind_checks(await read_body(request, service.max_body)))

    @endpoint
    async def list_fault_profiles(request: Request):
        return json_response(service.fault_profiles())

    return [
        Route(f"{API}/checks", list_checks, methods=["GET"]),
        Route(f"{API}/checks/render", render_checks, methods=["POST"]),
        Route(f"{API}/checks/bind", bind_checks, methods=["POST"]),
        Route(f"{API}/fault-profiles", list_fault_profiles, methods=["GET"]),
    ]
