"""Snapshots: take, read, start from, delete; the limit. Against a real server."""

from __future__ import annotations

import httpx

from tests.conftest import running_server
from tests.runtime.test_api import assert_error, create
from tests.runtime.test_forks import show, step


def take(http, eid) -> dict:
    r = http.post(f"/episodes/{eid}/snapshots")
    assert r.status_code == 201, r.text
    return r.json()


def items(http, eid) -> dict:
    return http.get(f"/episodes/{eid}/state").json()["collections"]["items"]


def test_a_snapshot_is_immutable(http):
    eid = create(http, seed=1)["episode_id"]
    step(http, eid, "set", key="it-00", value=10)
    at = show(http, eid)
    snap = take(http, eid)
    assert snap["snapshot_id"].startswith("snap_") and snap["episode_id"] == eid
    assert snap["digest"] == at["digest"] and snap["step"] == 1 and snap["at"] == "2026-01-01T00:00:07.000Z"
    assert snap["environment"] == "dummy" and snap["created_at"].endswith("Z")
    step(http, eid, "set", key="it-00", value=11)
    step(http, eid, "set", key="it-01", value=12)
    assert http.get(f"/snapshots/{snap['snapshot_id']}").json() == snap
    assert show(http, eid)["digest"] != snap["digest"]


def test_episodes_start_from_a_snapshot(http):
    eid = create(http, seed=1)["episode_id"]
    step(http, eid, "set", key="it-00", value=10)
    snap = take(http, eid)
    state = items(http, eid)
    step(http, eid, "set", key="it-00", value=99)  # after the snapshot: not in it
    a = create(http, snapshot_id=snap["snapshot_id"], agent_name="from-snap")
    b = create(http, snapshot_id=snap["snapshot_id"])
    assert a["seed_digest"] == b["seed_digest"] == snap["digest"]
    got = show(http, a["episode_id"])
    assert got["start"] == "snapshot" and got["snapshot_id"] == snap["snapshot_id"] and got["steps"] == 0
    assert items(http, a["episode_id"]) == state
    step(http, a["episode_id"], "set", key="it-01", value=1)
    assert items(http, b["episode_id"]) == state  # siblings from one snapshot are isolated
    assert http.get(f"/snapshots/{snap['snapshot_id']}").json()["digest"] == snap["digest"]


def test_deleting_a_snapshot_leaves_its_episodes_whole(http):
    eid = create(http, seed=2)["episode_id"]
    step(http, eid, "set", key="it-03", value=33)
    snap = take(http, eid)
    sid = snap["snapshot_id"]
    started = create(http, snapshot_id=sid)["episode_id"]
    r = http.delete(f"/snapshots/{sid}")
    assert r.status_code == 200 and r.json() == {"snapshot_id": sid, "deleted": True}
    assert_error(http.get(f"/snapshots/{sid}"), 404, "not_found")
    assert_error(http.delete(f"/snapshots/{sid}"), 404, "not_found")
    assert_error(http.post("/environments/dummy/episodes", json={"snapshot_id": sid}), 404, "not_found")
    # The episodes that share its records keep them.
    dump = http.get(f"/episodes/{started}/state").json()
    assert dump["digest"] == snap["digest"] and dump["collections"]["items"]["it-03"]["value"] == 33
    step(http, started, "set", key="it-04", value=44)
    assert items(http, started)["it-03"]["value"] == 33
    assert items(http, eid)["it-03"]["value"] == 33 and show(http, eid)["digest"] == snap["digest"]


def test_a_task_is_set_up_on_the_snapshot_state(http):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    snap = take(http, eid)
    ep = create(http, "coinpurse", snapshot_id=snap["snapshot_id"], task_id="cp-12")
    assert ep["seed_digest"] == snap["digest"] and ep["task_id"] == "cp-12" and ep["instruction"]
    run = ep["episode_id"]
    step(http, run, "pay_request", request_id="rq-16")
    step(http, run, "decline_request", request_id="rq-17")
    assert http.post(f"/episodes/{run}/submit").json()["pass"] is True
    # A task that cannot be set up on the snapshot says so.
    paid = create(http, "coinpurse", seed=2)["episode_id"]
    step(http, paid, "pay_request", request_id="rq-16")
    step(http, paid, "pay_request", request_id="rq-17")
    late = take(http, paid)
    err = assert_error(http.post("/environments/coinpurse/episodes",
                                 json={"snapshot_id": late["snapshot_id"], "task_id": "cp-12"}), 400, "invalid_request")
    assert "cp-12" in err["message"] and late["snapshot_id"] in err["message"]


def test_snapshot_rules(http):
    eid = create(http, "coinpurse", seed=3)["episode_id"]
    snap = take(http, eid)
    err = assert_error(http.post("/environments/dummy/episodes", json={"snapshot_id": snap["snapshot_id"]}), 400,
                       "invalid_request")
    assert "coinpurse" in err["message"]
    assert_error(http.post("/environments/coinpurse/episodes",
                           json={"snapshot_id": snap["snapshot_id"], "state": {"account": {}}}), 400, "invalid_request")
    assert_error(http.post("/episodes/ep_nope/snapshots"), 404, "not_found")
    assert_error(http.post(f"/episodes/{eid}/snapshots", json={"label": "x"}), 400, "invalid_request")
    assert_error(http.get("/snapshots/snap_nope"), 404, "not_found")
    http.post(f"/episodes/{eid}/submit")
    assert take(http, eid)["digest"] == snap["digest"]  # a submitted episode's end state can be kept


def test_the_snapshot_limit_is_429():
    with running_server(env={"SW_MAX_SNAPSHOTS": "2"}) as url, httpx.Client(base_url=url) as http:
        eid = create(http, seed=1)["episode_id"]
        first, _second = take(http, eid), take(http, eid)
        r = http.post(f"/episodes/{eid}/snapshots")
        err = assert_error(r, 429, "rate_limited")
        assert "DELETE" in err["message"] and r.headers["retry-after"]
        http.delete(f"/snapshots/{first['snapshot_id']}")
        take(http, eid)
