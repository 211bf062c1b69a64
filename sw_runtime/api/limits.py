"""``GET /api/v1/limits``: the caller's rate limits and what is left of them."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..security.gate import principal_of
from .common import API, endpoint, json_response


def routes(layer, service) -> list:
    limiter = layer.limiter

    @endpoint
    async def limits(request: Request):
        client = request.scope.get("client")
        principal = principal_of(request)
        body = {}
        for kind, buckets, name in (("key", limiter.keys, principal.key_id),
                                    ("ip", limiter.ips, client[0] if client else None)):
            if not buckets.rule.on or name is None:
                body[kind] = None
                continue
            bucket = buckets.get(name, limiter.clock())
            body[kind] = {**bucket.status(), **buckets.rule.describe()}
        return json_response(body)

    return [Route(f"{API}/limits", limits, methods=["GET"])]
