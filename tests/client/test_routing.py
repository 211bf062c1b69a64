"""Where a client's requests go: the shards of a cluster, spread and routed."""

from __future__ import annotations

import pytest

from sandworld import errors
from sandworld.routing import Servers, shard_of

GIVEN = "http://lb.example:8787/api/v1"
LISTING = {"shard": 1, "shards": [{"shard": 0, "url": "http://10.0.0.1:8787/api/v1"},
                                  {"shard": 1, "url": "http://10.0.0.1:8788/api/v1"},
                                  {"shard": 2, "url": "http://10.0.0.2:8789/api/v1"}]}


def test_the_shard_is_read_from_episode_and_snapshot_ids():
    assert shard_of("ep_0_a1b2c3_" + "0" * 20) == 0
    assert shard_of("snap_1234_a1b2c3_" + "0" * 20) == 1234
    assert shard_of("ep_00abc") is None and shard_of("") is None and shard_of(None) is None


def test_one_url_is_asked_for_its_cluster_and_keeps_its_own_address():
    s = Servers([GIVEN])
    assert not s.discovered
    s.adopt(LISTING)
    assert s.discovered
    # the server that answered is reached as the caller named it; the others at their own URLs
    assert s.urls == ["http://10.0.0.1:8787/api/v1", GIVEN, "http://10.0.0.2:8789/api/v1"]
    first = s.urls.index(s.pick())  # each client starts its turn at a shard of its own
    assert [s.pick() for _ in range(3)] == [s.urls[(first + i) % 3] for i in (1, 2, 3)]
    assert s.for_episode("ep_2_a1b2c3_" + "0" * 20) == "http://10.0.0.2:8789/api/v1"
    with pytest.raises(errors.SandworldError) as unknown:
        s.for_episode("ep_7_a1b2c3_" + "0" * 20)
    assert unknown.value.code == "unknown_server" and "no shard of this cluster" in unknown.value.message


def test_a_create_with_the_callers_key_goes_where_the_key_points():
    s = Servers([GIVEN])
    s.adopt(LISTING)
    picks = {s.pick(key=f"key-{i}") for i in range(30)}
    assert picks == set(s.urls)  # keys spread over the shards
    assert len({s.pick(key="retry-me") for _ in range(5)}) == 1  # and a key always finds the same one


def test_a_lone_server_keeps_every_request_on_the_url_given():
    s = Servers([GIVEN])
    s.adopt({"shard": 0, "shards": [{"shard": 0, "url": "http://127.0.0.1:9/api/v1"}]})
    assert s.urls == [GIVEN] and s.pick() == GIVEN and s.for_episode("anything") == GIVEN
    older = Servers([GIVEN])
    older.alone()  # a server without /cluster
    assert older.discovered and older.for_episode("ep_3_a1b2c3_" + "0" * 20) == GIVEN


def test_least_loaded_sends_new_episodes_where_this_client_has_fewest_open():
    s = Servers([GIVEN], spread="least_loaded")
    s.adopt(LISTING)
    a, b, c = s.urls
    for url in (a, a, b):
        s.learn("ep_x", url)
    assert s.pick() == c
    s.learn("ep_x", c)
    tie = s.pick()  # b and c hold one each now (a two): the tie goes in turn, from this client's start
    assert tie in (b, c)
    s.learn("ep_x", tie)
    assert s.pick() == ({b, c} - {tie}).pop()
    s.finished(a)
    s.finished(a)
    assert s.pick() == a


def test_an_unknown_spread_is_refused():
    with pytest.raises(errors.SandworldError, match="round_robin, least_loaded"):
        Servers([GIVEN], spread="random")
