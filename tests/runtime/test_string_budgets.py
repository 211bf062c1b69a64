"""Byte budgets without holes (issue 34, item 2): an error text never echoes
a huge argument, the strings a server keeps are capped, and every step on
an open episode is checked against the live budget. Real servers."""

from __future__ import annotations

import httpx
import pytest
from sandworld.local import local_server

from tests.runtime.test_api import assert_error

BIG = "x" * (1024 * 1024)


def test_a_refused_calls_error_does_not_echo_a_huge_argument(http):
    eid = http.post("/environments/dummy/episodes", json={"task_id": "dm-01"}).json()["episode_id"]
    r = http.post(f"/episodes/{eid}/step", json={"tool": "get", "arguments": {"key": BIG}})
    assert r.status_code == 200 and r.json()["ok"] is False
    assert len(r.content) < 8192, len(r.content)
    err = r.json()["error"]
    assert err["code"] == "not_found" and "characters cut" in err["message"]
    trace = http.get(f"/episodes/{eid}").json()["trace"]
    assert len(str(trace[0]["error"])) < 8192
    batch = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "get", "arguments": {"key": BIG}}]})
    assert len(batch.content) < 8192


def test_stored_strings_are_capped(http):
    err = assert_error(http.post("/environments/dummy/episodes", json={"agent_name": BIG}), 400, "invalid_request")
    assert "agent_name" in err["message"] and len(err["message"]) < 2048
    ok = http.post("/environments/dummy/episodes", json={"agent_name": "a" * 256})
    assert ok.status_code == 201
    eid = ok.json()["episode_id"]
    assert_error(http.post(f"/episodes/{eid}/step", json={"tool": BIG}), 400, "invalid_request")
    batch = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": BIG}]}).json()["results"]
    assert batch[0]["ok"] is False and batch[0]["error"]["code"] == "invalid_request"
    made = http.post("/batch/episodes", json={"episodes": [{"environment": "dummy", "agent_name": BIG}]})
    assert made.json()["results"][0]["error"]["code"] == "invalid_request"
    assert_error(http.post(f"/episodes/{eid}/submit", json={"output": "y" * (2 * 1024 * 1024)}), 400,
                 "invalid_request")
    assert http.get("/episodes", params={"limit": 100}).status_code == 200


def test_steps_on_open_episodes_are_checked_against_the_live_budget():
    with local_server(env={"SW_MAX_LIVE_BYTES": "20000"}) as api, httpx.Client(base_url=api, timeout=30) as http:
        a = http.post("/environments/dummy/episodes", json={"task_id": "dm-01"}).json()["episode_id"]
        b = http.post("/environments/dummy/episodes", json={"task_id": "dm-01"}).json()["episode_id"]
        blob = {"tool": "get", "arguments": {"key": "z" * 4000}}
        for _ in range(8):
            r = http.post(f"/episodes/{a}/step", json=blob)
            if r.status_code == 429:
                break
            assert r.status_code == 200
        err = assert_error(http.post(f"/episodes/{b}/step", json=blob), 429, "rate_limited")
        assert "budget" in err["message"]
        slot = http.post("/batch", json={"calls": [{"episode_id": b, **blob}]}).json()["results"][0]
        assert slot["ok"] is False and slot["error"]["code"] == "rate_limited"
        assert_error(http.post(f"/episodes/{b}/fork", json={"n": 1}), 429, "rate_limited")
        assert http.post(f"/episodes/{a}/submit", json={"output": "done"}).status_code == 200  # gives bytes back
        assert http.post(f"/episodes/{b}/step", json=blob).status_code == 200
