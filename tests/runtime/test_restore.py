"""Restore: an episode back to a snapshot of itself, and named, filtered snapshots. Real servers."""

from __future__ import annotations

import signal

from tests.runtime.test_api import assert_error, create
from tests.runtime.test_forks import show, step
from tests.runtime.test_snapshots import items
from tests.store.test_recovery import root_get, server


def test_restore_gives_back_state_clock_and_steps_and_keeps_the_trace(http):
    eid = create(http, seed=1)["episode_id"]
    step(http, eid, "set", key="it-00", value=10)
    snap = http.post(f"/episodes/{eid}/snapshots", json={"name": "after the first set"}).json()
    assert snap["name"] == "after the first set"
    state = items(http, eid)
    step(http, eid, "set", key="it-00", value=11)
    step(http, eid, "set", key="it-01", value=12)
    r = http.post(f"/episodes/{eid}/restore", json={"snapshot_id": snap["snapshot_id"]})
    assert r.status_code == 200, r.text
    back = r.json()
    assert (back["steps"], back["digest"], back["now"]) == (1, snap["digest"], snap["at"])
    assert items(http, eid) == state
    trace = show(http, eid)["trace"]
    assert [e.get("tool") for e in trace] == ["set", "set", "set", None]
    assert [e.get("undone", False) for e in trace] == [False, True, True, False]
    assert trace[3] == {"seq": 1, "at": snap["at"], "restored": {"snapshot_id": snap["snapshot_id"], "from_step": 3},
                        "mutated": True, "state_digest": snap["digest"]}
    nxt = step(http, eid, "get", key="it-01")  # the clock goes on from the snapshot's step
    assert nxt["step"] == 2 and nxt["at"] == "2026-01-01T00:00:14.000Z"
    ev = http.post(f"/episodes/{eid}/submit").json()
    assert ev["steps"] == 2 and ev["write_steps"] == 1 and ev["digest"] == snap["digest"]


def test_restore_refuses_what_is_not_a_past_of_the_episode(http):
    eid = create(http, seed=2)["episode_id"]
    other = create(http, seed=2)["episode_id"]
    theirs = http.post(f"/episodes/{other}/snapshots").json()["snapshot_id"]
    err = assert_error(http.post(f"/episodes/{eid}/restore", json={"snapshot_id": theirs}), 400, "invalid_request")
    assert other in err["message"]
    assert_error(http.post(f"/episodes/{eid}/restore", json={"snapshot_id": "snap_nope"}), 404, "not_found")
    assert_error(http.post(f"/episodes/{eid}/restore", json={}), 400, "invalid_request")
    mine = http.post(f"/episodes/{eid}/snapshots").json()["snapshot_id"]
    http.post(f"/episodes/{eid}/submit")
    assert_error(http.post(f"/episodes/{eid}/restore", json={"snapshot_id": mine}), 409, "episode_closed")


def test_snapshots_list_by_episode(http):
    a, b = create(http)["episode_id"], create(http)["episode_id"]
    taken = [http.post(f"/episodes/{e}/snapshots").json()["snapshot_id"] for e in (a, b, a)]
    got = http.get("/snapshots", params={"episode_id": a, "limit": 500}).json()["items"]
    assert [s["snapshot_id"] for s in got] == [taken[0], taken[2]]
    assert http.get("/snapshots", params={"episode_id": "ep_none"}).json()["items"] == []


def test_a_restore_is_logged_and_replays_to_the_same_episode(tmp_path):
    with server(tmp_path) as (http, proc):
        eid = create(http, "coinpurse", task_id="cp-01", seed=3)["episode_id"]
        step(http, eid, "list_requests")
        snap = http.post(f"/episodes/{eid}/snapshots").json()["snapshot_id"]
        step(http, eid, "get_balance")
        http.post(f"/episodes/{eid}/restore", json={"snapshot_id": snap})
        step(http, eid, "get_balance")
        http.delete(f"/snapshots/{snap}")
        before = show(http, eid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with server(tmp_path) as (http, _):
        replay = root_get(http, "/healthz").json()["replay"]
        assert replay["mismatches"] == 0 and replay["steps"] == 3, replay
        now = show(http, eid)
        for field in ("digest", "steps", "trace", "now", "status"):
            assert now[field] == before[field], field
        assert http.get(f"/snapshots/{snap}").status_code == 404  # its deletion replayed too
        assert step(http, eid, "get_balance")["step"] == 3


def test_signals_start_again_from_the_restored_state(http):
    eid = create(http, "coinpurse", task_id="cp-01", seed=3, signals=True)["episode_id"]
    step(http, eid, "list_requests")
    snap = http.post(f"/episodes/{eid}/snapshots").json()["snapshot_id"]
    first = step(http, eid, "get_balance")["signals"]
    http.post(f"/episodes/{eid}/restore", json={"snapshot_id": snap})
    again = step(http, eid, "get_balance")
    assert again["step"] == 2 and again["signals"] == first  # the same call from the same state
