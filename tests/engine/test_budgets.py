"""Byte budgets: the trace keeps arguments only for known tools and up to a
cap, open episodes' bytes are metered and capped, snapshots expire and have
a byte budget, and eviction is a heap of deadlines (no scan)."""

from __future__ import annotations

import time

import pytest

from sw_runtime import errors, schemas
from sw_runtime.config import Settings
from sw_runtime.engine.engine import Engine
from sw_runtime.store.results import Results


def make(**settings) -> Engine:
    e = Engine(Settings(durability="none", **settings))
    e.results = Results(":memory:")  # where ended episodes are read from once freed
    return e


def test_the_trace_keeps_arguments_only_for_known_tools_and_up_to_the_cap():
    e = make(max_trace_arguments=100)
    ep = e.create("dummy", schemas.CreateEpisode(task_id="dm-01"))
    e.step(ep.id, "get", {"key": "it-01"})
    e.step(ep.id, "get", {"key": "x" * 500})
    e.step(ep.id, "no_such_tool", {"blob": "y" * 50})
    rows = e.describe(ep.id)["trace"]
    assert rows[0]["arguments"] == {"key": "it-01"}
    assert rows[1]["arguments"] == {"unrecorded_arguments": {"bytes": 510, "why": "larger than 100 bytes"}}
    assert rows[2]["arguments"]["unrecorded_arguments"]["why"] == "unknown tool"
    assert rows[1]["ok"] is False  # the call itself ran as always (not_found), only the trace is bounded


def test_open_episodes_are_metered_and_their_bytes_capped():
    e = make(max_live_bytes=5_000)
    ep = e.create("dummy", schemas.CreateEpisode(task_id="dm-01"))
    while e.meter[0] <= 5_000:
        e.step(ep.id, "get", {"key": "it-01"})
    with pytest.raises(errors.RateLimited, match="budget"):
        e.create("dummy", schemas.CreateEpisode())
    e.submit(ep.id)  # an ended episode gives its bytes back
    assert e.meter[0] == 0 and e.live == 0
    e.create("dummy", schemas.CreateEpisode())


def test_snapshots_expire_and_have_a_byte_budget():
    e = make(snapshot_ttl=60, max_snapshot_bytes=200)
    ep = e.create("dummy", schemas.CreateEpisode(task_id="dm-01"))
    first = e.take_snapshot(ep.id)
    assert first.nbytes == 0  # nothing changed since the start: it pins nothing
    for value in range(5):
        e.step(ep.id, "set", {"key": f"it-0{value}", "value": 999})
    big = e.take_snapshot(ep.id)
    assert 0 < big.nbytes <= 200
    e.step(ep.id, "set", {"key": "it-00", "value": 1000})
    with pytest.raises(errors.RateLimited, match="budget"):
        for _ in range(10):
            e.take_snapshot(ep.id)
    e.sweep(now=time.monotonic() + 61)
    assert len(e.snapshots) == 0 and e.snapshots.nbytes == 0
    with pytest.raises(errors.NotFound):
        e.snapshots.get(first.id)


def test_a_sweep_ends_only_the_episodes_past_their_deadline():
    e = make(idle_timeout=10)
    eps = [e.create("dummy", schemas.CreateEpisode()) for _ in range(2000)]
    now = time.monotonic()
    for ep in eps[:1990]:
        ep.touched = now + 100  # used recently: their deadlines are far
    # Deadlines come up in order; only the ten idle ones (and nothing else) are ended.
    assert e.sweep(now=now + 11) == 10
    e.results.put_many(e.take_results())  # what the service does after every sweep
    assert e.live == 1990 and all(e.describe(ep.id)["ended_by"] == "idle" for ep in eps[1990:])


def test_the_strings_an_episode_keeps_count_toward_the_live_budget():
    e = make()
    ep = e.create("dummy", schemas.CreateEpisode(task_id="dm-01", agent_name="a" * 200))
    assert ep.nbytes == 200 and e.meter[0] == 200
    e.submit(ep.id)
    assert e.meter[0] == 0
