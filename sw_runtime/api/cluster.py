"""``GET /api/v1/cluster``: the shards of the cluster this server is part of.

``{"shard": <this server's>, "shards": [{"shard", "url"}, ...]}``; on a
cluster started on Ray each shard also has its ``node`` and ``state``
(``serving``, ``draining`` or ``down``), read from the cluster's membership. A client
given any one URL reads it to find the rest, then routes each call by the
shard in its episode id. A server started alone is a cluster of one: itself,
shard 0, at the URL the request came in on.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..service.shards import listing  # noqa: F401  (tests and callers import it from here)
from .common import API, endpoint, json_response


def routes(service) -> list:
    @endpoint
    async def cluster(request: Request):
        own = str(request.base_url).rstrip("/") + API
        return json_response(service.shards(own))

    return [Route(f"{API}/cluster", cluster, methods=["GET"])]
