"""Snapshots: take one of an episode, read it, delete it.

``POST /episodes/{id}/snapshots`` (201), ``GET /snapshots/{id}``,
``DELETE /snapshots/{id}``. An episode starts from one with ``snapshot_id``
at create (``engine/snapshots.py``).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .. import schemas
from ..pagination import page_request
from ..security.gate import principal_of
from .common import API, endpoint, json_response, read_body


def routes(engine, settings) -> list:
    limit = settings.max_body

    @endpoint
    async def take(request: Request):
        schemas.decode(schemas.CreateSnapshot, await read_body(request, limit), empty_ok=True)
        snap = engine.snapshots.take(engine.get(request.path_params["id"], principal_of(request).project))
        return json_response(snap.describe(), 201)

    @endpoint
    async def show(request: Request):
        return json_response(engine.snapshots.get(request.path_params["id"], principal_of(request).project).describe())

    @endpoint
    async def delete(request: Request):
        snap = engine.snapshots.delete(request.path_params["id"], principal_of(request).project)
        return json_response({"snapshot_id": snap.id, "deleted": True})

    @endpoint
    async def listing(request: Request):
        q = request.query_params
        page = page_request(q.get("limit"), q.get("cursor"))
        return json_response(engine.snapshots.page(page, principal_of(request).project))

    return [
        Route(f"{API}/snapshots", listing, methods=["GET"]),
        Route(f"{API}/episodes/{{id}}/snapshots", take, methods=["POST"]),
        Route(f"{API}/snapshots/{{id}}", show, methods=["GET"]),
        Route(f"{API}/snapshots/{{id}}", delete, methods=["DELETE"]),
    ]
