"""Snapshots: take one of an episode, read it, delete it.

``POST /episodes/{id}/snapshots`` (201), ``GET /snapshots/{id}``,
``DELETE /snapshots/{id}``, ``GET /snapshots`` (the caller's, a page at a
time, ``?episode_id=`` for one episode's), ``POST /episodes/{id}/restore``
(the episode back to a snapshot of itself). An episode starts from one with
``snapshot_id`` at create (``engine/snapshots.py``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..pagination import list_query
from ..security.gate import project_of
from .common import API, endpoint, json_response, read_body, reply_response


def routes(service) -> list:
    @endpoint
    async def take(request: Request):
        body = await read_body(request, service.max_body)
        return reply_response(service.take_snapshot(request.path_params["id"], body, project=project_of(request)))

    @endpoint
    async def show(request: Request):
        return json_response(service.snapshot(request.path_params["id"], project=project_of(request)))

    @endpoint
    async def delete(request: Request):
        return json_response(service.delete_snapshot(request.path_params["id"], project=project_of(request)))

    @endpoint
    async def listing(request: Request):
        page, f = list_query(request.query_params, ("episode_id",))
        return json_response(service.snapshots(page, f["episode_id"], project=project_of(request)))

    @endpoint
    async def restore(request: Request):
        body = await read_body(request, service.max_body)
        return json_response(service.restore(request.path_params["id"], body, project=project_of(request)))

    return [
        Route(f"{API}/snapshots", listing, methods=["GET"]),
        Route(f"{API}/episodes/{{id}}/snapshots", take, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}/restore", restore, methods=["POST"]),
        Route(f"{API}/snapshots/{{id}}", show, methods=["GET"]),
        Route(f"{API}/snapshots/{{id}}", delete, methods=["DELETE"]),
    ]
