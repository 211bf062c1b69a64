"""``GET /api/v1/me`` and ``GET /api/v1/usage``: who am I, and how much of
the server's room do I hold.

``/me`` answers the caller as the gate admitted it: its key (never the
secret: the key's id and hint), its project and its scopes, and whether the
server checks keys at all. ``/usage`` answers the caller's open episodes and
snapshots against the server's caps (per project with keys on; the whole
server with keys off, where everyone is one caller). Any valid key may read
both: what a key may do is exactly what it needs to know first.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..security.gate import principal_of
from ..security.scopes import SCOPES
from .common import API, endpoint, json_response


def routes(layer, service) -> list:
    @endpoint
    async def me(request: Request):
        p = principal_of(request)
        key = None
        if p.key_id is not None and layer.keys is not None:
            info = layer.keys.get(p.key_id)
            key = {"key_id": p.key_id, "hint": info.hint if info else None,
                   "created_at": info.describe()["created_at"] if info else None}
        return json_response({
            "auth": "keys" if layer.keys is not None else "none",
            "key": key,
            "project": p.project,
            "scopes": sorted(p.scopes),
            "all_scopes": dict(SCOPES),
        })

    @endpoint
    async def usage(request: Request):
        return json_response(service.usage(project=principal_of(request).project))

    return [Route(f"{API}/me", me, methods=["GET"]), Route(f"{API}/usage", usage, methods=["GET"])]
