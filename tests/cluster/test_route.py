"""``GET /api/v1/cluster`` on a server started alone: a cluster of one."""

from __future__ import annotations

from sw_runtime.api.cluster import listing


def test_a_lone_server_lists_itself_at_the_url_it_was_reached_on(http, api):
    body = http.get("/cluster").json()
    assert body == {"shard": 0, "shards": [{"shard": 0, "url": api}]}


def test_a_shard_lists_its_peers_in_shard_order():
    peers = "http://a:1/api/v1, http://b:2/api/v1/"
    assert listing(1, peers, "http://ignored/api/v1") == {
        "shard": 1, "shards": [{"shard": 0, "url": "http://a:1/api/v1"}, {"shard": 1, "url": "http://b:2/api/v1"}]}
