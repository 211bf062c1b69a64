"""Finalize and validation semantics (reference 003), on both doors. Real servers."""

from __future__ import annotations

import time

import httpx

from tests.conftest import running_server
from tests.runtime.test_api import assert_error, create
from tests.runtime.test_forks import step


def test_a_second_submit_answers_the_first_result(http):
    eid = create(http, task_id="dm-01", seed=3)["episode_id"]
    step(http, eid, "set", key="it-01", value=11)
    first = http.post(f"/episodes/{eid}/submit", json={"output": "done"})
    again = http.post(f"/episodes/{eid}/submit", json={"output": "something else"})  # no key: still the first
    assert first.status_code == again.status_code == 200, again.text
    assert again.json() == first.json()
    slots = http.post("/batch/submit", json={"episodes": [{"episode_id": eid}]}).json()["results"]
    assert slots == [first.json()]
    # an episode the server ended (not submitted) is still 409, saying how it ended
    gone = create(http)["episode_id"]
    http.delete(f"/episodes/{gone}")
    err = assert_error(http.post(f"/episodes/{gone}/submit"), 409, "episode_closed")
    assert err["ended_by"] == "deleted"


def test_a_second_submit_after_the_episode_left_memory_answers_from_the_results_store():
    with running_server(env={"SW_KEEP_ENDED": "0", "SW_IDLE_TIMEOUT": "4"}) as url, httpx.Client(base_url=url, timeout=30) as http:
        eid = create(http, task_id="dm-01", seed=4)["episode_id"]
        first = http.post(f"/episodes/{eid}/submit").json()
        time.sleep(2.5)  # the sweeper (every second: SW_IDLE_TIMEOUT / 4) frees it and stores its result
        assert http.get(f"/episodes/{eid}").json()["status"] == "ended"
        again = http.post(f"/episodes/{eid}/submit")
        assert again.status_code == 200, again.text
        assert again.json()["score"] == first["score"] and again.json()["digest"] == first["digest"]


def test_validate_answers_422_invalid_seed_with_its_issues(http):
    r = http.post("/environments/dummy/seeds/validate", json={"state": {"items": {"x": {"id": "x", "value": -1}}}})
    err = assert_error(r, 422, "invalid_seed")
    assert err["issues"] == [{"path": "$.items['x'].value", "message": "Expected `int` >= 0"}]
    assert err["issue_count"] == 1 and err["environment"] == "dummy"
    assert err["checked"] == [] and err["unchecked"] == []
    ok = http.post("/environments/dummy/seeds/validate", json={"state": {"items": {"x": {"id": "x", "value": 1}}}})
    assert ok.status_code == 200 and ok.json()["valid"] is True
    assert ok.json()["checked"] == ["dummy"] and ok.json()["unchecked"] == []
    assert_error(http.post("/environments/dummy/seeds/validate", content=b"{nope"), 400, "invalid_json")


def test_bind_finds_the_check_a_sentence_stands_for(http):
    checks = [
        {"kind": "record_exists", "collection": "items", "where": {"id": "it-01"}},
        {"kind": "field_equals", "collection": "items", "field": "value", "value": 11, "where": {"id": "it-01"}},
        {"kind": "no_writes", "collection": "items"},
        {"kind": "write_count", "min": 1, "max": 2},
        {"kind": "action_called", "action": "set"},
        {"kind": "action_not_called", "action": "get"},
        {"kind": "output_contains", "value": "it-01"},
    ]
    lines = http.post("/checks/render", json={"environment": "dummy", "checks": checks}).json()["lines"]
    r = http.post("/checks/bind", json={"environment": "dummy", "sentences": [*lines, "Make it nice"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["environment"] == "dummy" and len(body["results"]) == len(lines) + 1
    for check, got in zip(checks, body["results"]):
        assert got["kind"] == check["kind"] and got["corrupted"] is False, got
        assert {k: got["check"].get(k) for k in check} == check, got
    miss = body["results"][-1]
    assert miss["kind"] is None and miss["check"] is None and miss["nearest"], miss
    # a real check's wording with a slot the world refuses binds, corrupted
    bad = http.post("/checks/bind", json={"environment": "dummy", "sentences": ["No writes to ledgers"]}).json()
    assert bad["results"][0]["kind"] == "no_writes" and bad["results"][0]["corrupted"] is True
    assert "ledgers" in bad["results"][0]["why"]
    # an unknown world: nothing to bind against (003's "not_checked")
    unknown = http.post("/checks/bind", json={"environment": "nope", "sentences": lines[:2]}).json()
    assert unknown["results"] == ["not_checked", "not_checked"]
    assert_error(http.post("/checks/bind", json={"sentences": "x"}), 400, "invalid_request")


def test_empty_criteria_are_refused_on_both_doors(http, api):
    err = assert_error(http.post("/environments/dummy/episodes", json={"task_id": "dm-01",
                                                                         "replace_template_checks": True}),
                       422, "empty_criteria")
    assert "never graded" in err["message"]
    r = httpx.post(api.removesuffix("/api/v1") + "/v1/runs",
                   json={"environment": "offsite-planning", "task": "Schedule the Q4 offsite",
                         "replace_template_checks": True})
    assert r.status_code == 422 and r.json()["error"]["type"] == "empty_criteria", r.text


def test_a_run_with_no_calls_is_scored_the_same_on_both_doors(http, api):
    # 001 scores every ending, a run that never called a tool too (it fails its
    # checks); our tape is never incomplete, so 003's capture_incomplete never applies.
    eid = create(http, "offsite-planning", task_id="task_schedule_q4_offsite")["episode_id"]
    ev = http.post(f"/episodes/{eid}/submit").json()
    root = api.removesuffix("/api/v1")
    run = httpx.post(f"{root}/v1/runs", json={"environment": "offsite-planning", "task": "Schedule the Q4 offsite"}).json()
    done = httpx.post(f"{root}/v1/runs/{run['id']}/finish", json={}).json()
    assert ev["steps"] == done["calls"] == 0
    assert ev["pass"] is done["evaluation"]["passed"] is False
    assert ev["score"] == done["evaluation"]["score"] is not None
