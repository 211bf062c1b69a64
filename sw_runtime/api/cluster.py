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

from .common import API, endpoint, json_response


def listing(shard: int, peers: str, own_url: str) -> dict:
    """The answer, from this server's shard and ``Settings.peers`` (the shards'
    URLs in shard order, comma-separated; empty when the server is alone)."""
    urls = [u.strip().rstrip("/") for u in peers.split(",") if u.strip()]
    if not urls:
        urls = {shard: own_url}
    else:
        urls = dict(enumerate(urls))
    return {"shard": shard, "shards": [{"shard": s, "url": u} for s, u in sorted(urls.items())]}


def routes(service) -> list:
    settings = service.settings

    @endpoint
    async def cluster(request: Request):
        members = service.cluster()
        if members is not None:  # a cluster on Ray: where each shard is now, its node and state
            return json_response({"shard": settings.shard, "shards": members})
        own = str(request.base_url).rstrip("/") + API
        return json_response(listing(settings.shard, settings.peers, own))

    return [Route(f"{API}/cluster", cluster, methods=["GET"])]
