"""Per-episode lifetimes and the heartbeat, against real servers."""

from __future__ import annotations

import time

import httpx

from tests.conftest import running_server
from tests.runtime.test_api import assert_error, create


def test_create_takes_its_own_windows_bounded_by_the_servers(http):
    ep = create(http, idle_timeout_seconds=600, timeout_seconds=3600)
    assert ep["idle_timeout_seconds"] == 600 and ep["timeout_seconds"] == 3600
    assert ep["expires_at"].endswith("Z") and ep["expires_at"] > ep["now"]
    plain = create(http)  # the server's own windows (30 min idle, 24 h)
    assert plain["idle_timeout_seconds"] == 1800 and plain["timeout_seconds"] == 86400
    for body in ({"idle_timeout_seconds": 1801}, {"idle_timeout_seconds": 0}, {"timeout_seconds": 86401}):
        err = assert_error(http.post("/environments/dummy/episodes", json=body), 400, "invalid_request")
        assert next(iter(body)) in err["message"]


def test_reads_do_not_extend_an_episode_and_a_heartbeat_does(http):
    eid = create(http, idle_timeout_seconds=600)["episode_id"]
    first = http.get(f"/episodes/{eid}").json()["expires_at"]
    time.sleep(0.05)
    http.get(f"/episodes/{eid}/state")
    http.get("/episodes", params={"status": "open"})
    assert http.get(f"/episodes/{eid}").json()["expires_at"] == first  # reads leave it where it was
    beat = http.post(f"/episodes/{eid}/heartbeat")
    assert beat.status_code == 200, beat.text
    body = beat.json()
    assert body["episode_id"] == eid and body["status"] == "open" and body["expires_at"] > first
    assert http.get(f"/episodes/{eid}").json()["expires_at"] == body["expires_at"]
    # An ended episode answers 409 episode_closed with its ending.
    http.post(f"/episodes/{eid}/submit")
    err = assert_error(http.post(f"/episodes/{eid}/heartbeat"), 409, "episode_closed")
    assert err["ended_by"] == "finished"
    assert_error(http.post("/episodes/ep_nope/heartbeat"), 404, "not_found")


def test_a_heartbeat_keeps_an_episode_alive_past_its_idle_window():
    # The server's own idle window is 30 min (its sweep every minute): an
    # episode's own window of 1.5 s is honoured all the same.
    with running_server() as url, httpx.Client(base_url=url, timeout=30) as http:
        kept = create(http, idle_timeout_seconds=1.5)["episode_id"]
        left = create(http, idle_timeout_seconds=1.5)["episode_id"]
        for _ in range(8):  # 3.2 s: twice the idle window, a long model turn
            time.sleep(0.4)
            assert http.post(f"/episodes/{kept}/heartbeat").status_code == 200
        assert http.get(f"/episodes/{kept}").json()["status"] == "open"
        assert http.get(f"/episodes/{left}").json()["ended_by"] == "idle"  # no heartbeat: ended and scored
        err = assert_error(http.post(f"/episodes/{left}/heartbeat"), 409, "episode_closed")
        assert err["ended_by"] == "idle"
        deadline = time.monotonic() + 10
        while http.get(f"/episodes/{kept}").json()["status"] == "open" and time.monotonic() < deadline:
            time.sleep(0.25)
        assert http.get(f"/episodes/{kept}").json()["ended_by"] == "idle"  # once the heartbeats stop


def test_a_run_takes_heartbeats_too(api):
    root = api.removesuffix("/api/v1")
    with httpx.Client(base_url=root, timeout=30) as v1:
        run = v1.post("/v1/runs", json={"environment": "offsite-planning", "task": "Schedule the Q4 offsite"}).json()
        assert run["idle_expires_at"] <= run["expires_at"]
        time.sleep(0.05)
        beat = v1.post(f"/v1/runs/{run['id']}/heartbeat")
        assert beat.status_code == 200, beat.text
        assert beat.json()["idle_expires_at"] > run["idle_expires_at"] and "token" not in beat.json()
        v1.post(f"/v1/runs/{run['id']}/finish", json={})
        late = v1.post(f"/v1/runs/{run['id']}/heartbeat")
        assert late.status_code == 409 and late.json()["error"]["type"] == "run_ended"
