"""Every ending is scored and kept: idle, timeout and step_limit endings
like a submit's, readable after the episode left memory; ended episodes free
the live cap; DELETE ends one; GET /episodes lists them (real servers)."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.conftest import running_server
from tests.runtime.test_api import assert_error, create

SOLVE = {"tool": "set", "arguments": {"key": "it-01", "value": 11}}  # dm-01 at seed 0


def wait_ended(http, eid, timeout=15.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        got = http.get(f"/episodes/{eid}").json()
        if got["status"] == "ended":
            return got
        assert time.monotonic() < deadline, f"episode {eid} never ended: {got['status']}"
        time.sleep(0.2)


@pytest.mark.slow
def test_idle_and_step_limit_endings_are_scored_and_readable_after_eviction():
    with running_server("--idle-timeout", "1", "--step-limit", "2") as url:
        with httpx.Client(base_url=url) as http:
            idle = create(http, task_id="dm-01")["episode_id"]
            assert http.post(f"/episodes/{idle}/step", json=SOLVE).json()["ok"] is True
            used = create(http, task_id="dm-01")["episode_id"]
            http.post(f"/episodes/{used}/step", json={"tool": "noop"})
            http.post(f"/episodes/{used}/step", json={"tool": "noop"})
            got = wait_ended(http, idle)
            assert got["ended_by"] == "idle" and got["ended_at"]
            assert got["evaluation"]["score"] == 1.0 and got["evaluation"]["pass"] is True
            assert got["evaluation"]["ended_by"] == "idle"
            assert [e["tool"] for e in got["trace"]] == ["set"] and got["trace"][0]["ok"] is True
            assert got["evaluation"]["state_diff"] == {"items": {"created": [], "updated": ["it-01"], "removed": []}}
            limited = wait_ended(http, used)
            assert limited["ended_by"] == "step_limit" and limited["evaluation"]["pass"] is False
            err = assert_error(http.post(f"/episodes/{idle}/submit"), 409, "episode_closed")
            assert "idle" in err["message"] and "GET" in err["message"]
            assert_error(http.post(f"/episodes/{idle}/step", json={"tool": "noop"}), 409, "episode_closed")


@pytest.mark.slow
def test_the_hard_timeout_ends_an_episode_in_use():
    with running_server("--max-age", "1.5", "--idle-timeout", "60") as url:
        with httpx.Client(base_url=url) as http:
            eid = create(http, task_id="dm-01")["episode_id"]
            deadline = time.monotonic() + 15
            while http.post(f"/episodes/{eid}/step", json={"tool": "noop"}).status_code == 200:
                assert time.monotonic() < deadline
                time.sleep(0.1)
            got = wait_ended(http, eid)
            assert got["ended_by"] == "timeout" and got["evaluation"]["pass"] is False
            assert got["steps"] == len(got["trace"]) >= 5


@pytest.mark.slow
def test_a_steady_create_step_submit_never_hits_the_cap():
    # The rule the 3-minute soak checks (bench/soak.py), on a server with a
    # tiny cap: submitted episodes leave it at once, abandoned ones when idle.
    with running_server("--max-episodes", "12", "--idle-timeout", "1") as url:
        with httpx.Client(base_url=url) as http:
            refused = 0
            end = time.monotonic() + 20
            n = 0
            while time.monotonic() < end:
                r = http.post("/environments/dummy/episodes", json={"task_id": "dm-01"})
                if r.status_code == 429:
                    refused += 1
                    continue
                eid = r.json()["episode_id"]
                http.post(f"/episodes/{eid}/step", json=SOLVE)
                if n % 8 != 7:  # one in eight is abandoned: it ends when idle
                    assert http.post(f"/episodes/{eid}/submit").status_code == 200
                n += 1
                time.sleep(0.02)
            assert refused == 0 and n > 200
            # the cap itself still holds
            for _ in range(12):
                http.post("/environments/dummy/episodes", json={})
            err = assert_error(http.post("/environments/dummy/episodes", json={}), 429, "rate_limited")
            assert "ended ones do not count" in err["message"]


def test_delete_ends_an_episode_and_frees_it(http):
    eid = create(http, task_id="dm-01")["episode_id"]
    http.post(f"/episodes/{eid}/step", json=SOLVE)
    r = http.delete(f"/episodes/{eid}")
    assert r.status_code == 200 and r.json()["ended_by"] == "deleted"
    assert r.json()["evaluation"]["score"] == 1.0
    got = http.get(f"/episodes/{eid}").json()
    assert got["status"] == "ended" and got["ended_by"] == "deleted" and len(got["trace"]) == 1
    assert_error(http.delete("/episodes/ep_00nosuchepisode"), 404, "not_found")


def _every(http, **params) -> set:
    """Every listed episode id, page after page (the shared server holds many)."""
    seen, cursor = set(), None
    while True:
        page = http.get("/episodes", params={**params, "limit": 500, **({"cursor": cursor} if cursor else {})}).json()
        seen |= {e["episode_id"] for e in page["items"]}
        cursor = page["next_cursor"]
        if cursor is None:
            return seen


def test_list_episodes_filters_and_pages_in_a_stable_order(http):
    ids = [create(http, "dummy", task_id="dm-01", seed=500 + i)["episode_id"] for i in range(5)]
    for eid in ids[:2]:
        http.post(f"/episodes/{eid}/submit")
    http.delete(f"/episodes/{ids[2]}")
    seen, cursor = [], None
    while True:
        params = {"environment": "dummy", "task_id": "dm-01", "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = http.get("/episodes", params=params).json()
        assert len(page["items"]) <= 2
        seen += [e["episode_id"] for e in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(seen) and len(seen) == len(set(seen)) and set(ids) <= set(seen)
    open_ids = _every(http, status="open")
    assert ids[3] in open_ids and ids[0] not in open_ids and ids[2] not in open_ids
    assert {ids[0], ids[1], ids[2]} <= _every(http, status="ended")
    assert_error(http.get("/episodes", params={"status": "sleeping"}), 400, "invalid_request")
    assert_error(http.get("/episodes", params={"limit": 0}), 400, "invalid_request")
    assert_error(http.get("/episodes", params={"colour": "red"}), 400, "invalid_request")


def test_the_stored_trace_is_the_trace_read_while_live():
    """The results store embeds the answered JSON as is (not decoded and
    encoded again): what it answers must be exactly what a live read showed."""
    from sw_runtime import schemas
    from sw_runtime.config import Settings
    from sw_runtime.engine.engine import Engine
    from sw_runtime.store.results import Results

    e = Engine(Settings(durability="none"))
    e.results = Results(":memory:")
    ep = e.create("coinpurse", schemas.CreateEpisode(task_id="cp-02", seed=3, signals=True))
    for tool, args in [("get_balance", {}), ("list_transactions", {}), ("list_contacts", {}),
                       ("send_payment", {"to": "nobody", "amount": 1}), ("no_such_tool", {}),
                       ("get_balance", {"unexpected": [1, 2.5, None, "é"]})]:
        e.step(ep.id, tool, args)
    live = e.describe(ep.id)["trace"]
    assert any(not row["ok"] for row in live) and any("signals" in row for row in live)
    e.end(ep, "idle")
    e.results.put_many(e.take_results())
    assert e.results.get(ep.id)["trace"] == live
