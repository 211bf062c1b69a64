"""The shards of the cluster a server is part of (``GET /api/v1/cluster``, the viewer's server page).

A server started alone is a cluster of one: itself, shard 0, at the URL it
was reached on.
"""

from __future__ import annotations


def listing(shard: int, peers: str, own_url: str) -> dict:
    """The answer, from this server's shard and ``Settings.peers`` (the shards'
    URLs in shard order, comma-separated; empty when the server is alone)."""
    urls = [u.strip().rstrip("/") for u in peers.split(",") if u.strip()]
    if not urls:
        urls = {shard: own_url}
    else:
        urls = dict(enumerate(urls))
    return {"shard": shard, "shards": [{"shard": s, "url": u} for s, u in sorted(urls.items())]}
