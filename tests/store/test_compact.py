"""Compaction keeps exactly what a replay still needs."""

from __future__ import annotations

import msgspec

from sw_runtime.store.compact import keep

enc = msgspec.json.encode


def lines(*groups):
    return [[msgspec.Raw(enc(r)) for r in g] for g in groups]


def kept(out):
    return [[tuple(msgspec.json.decode(r)[:2]) for r in line] for line in out]


def test_ended_episodes_go_and_live_ones_stay():
    out = keep(lines(
        [("c", "a", "dummy", {}, "t"), ("c", "b", "dummy", {}, "t")],
        [("s", "a", "noop", {}, 1, "d"), ("s", "b", "noop", {}, 1, "d")],
        [("e", "a", "finished", "", None, 1.0)],
    ))
    assert kept(out) == [[("c", "b")], [("s", "b")]]


def test_an_ended_source_stays_while_a_fork_or_snapshot_of_it_lives():
    out = keep(lines(
        [("c", "src", "dummy", {}, "t")],
        [("f", "src", ["k1", "k2"], "t")],
        [("e", "k1", "idle", "", None, 0.0), ("e", "src", "finished", "", None, 1.0)],
        [("p", "k2", "snap", "t"), ("e", "k2", "idle", "", None, 0.0)],
        [("c", "from", "dummy", {"snapshot_id": "snap"}, "t")],
    ))
    # "from" needs snap, snap needs k2, k2 needs the fork (and so k1 with it) and src
    flat = {x for line in kept(out) for x in line}
    assert flat == {("c", "src"), ("f", "src"), ("e", "k1"), ("e", "src"), ("p", "k2"), ("e", "k2"), ("c", "from")}


def test_keys_stay_until_they_expire():
    out = keep(lines([("k", "s", "old", "f", None, 201, "", "application/json", 50.0),
                      ("k", "s", "new", "f", None, 201, "", "application/json", 150.0)]), now=100.0)
    assert kept(out) == [[("k", "s")]] and msgspec.json.decode(out[0][0])[2] == "new"


def test_a_live_episode_keeps_its_snapshots_deletions_and_restores():
    out = keep(lines(
        [("c", "a", "dummy", {}, "t")],
        [("s", "a", "set", {}, 1, "d1"), ("p", "a", "snap", "t", None)],
        [("s", "a", "set", {}, 2, "d2"), ("r", "a", "snap", 1, "d1"), ("pd", "snap")],
    ))
    assert kept(out) == [[("c", "a")], [("s", "a"), ("p", "a")], [("s", "a"), ("r", "a"), ("pd", "snap")]]
