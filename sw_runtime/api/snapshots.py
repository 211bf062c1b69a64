"""Snapshots: take one of an episode, read it, delete it.

``POST /episodes/{id}/snapshots`` (201), ``GET /snapshots/{id}``,
``DELETE /snapshots/{id}``. An episode starts from one with ``snapshot_id``
at create (``engine/snapshots.py``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .common import API, endpoint, json_response, read_body, reply_response


def routes(service) -> list:
    @endpoint
    async def take(request: Request):
        body = await read_body(request, service.max_body)
        return reply_response(service.take_snapshot(request.path_params["id"], body))

    @endpoint
    async def show(request: Request):
        return json_response(service.snapshot(request.path_params["id"]))

    @endpoint
    async def delete(request: Request):
        return json_response(service.delete_snapshot(request.path_params["id"]))

    return [
        Route(f"{API}/episodes/{{id}}/snapshots", take, methods=["POST"]),
        Route(f"{API}/snapshots/{{id}}", show, methods=["GET"]),
        Route(f"{API}/snapshots/{{id}}", delete, methods=["DELETE"]),
    ]
