"""Reference 001's control API under /v1, against a real server: environments,
creating, reading and finishing runs, /tools, and 001's error envelope."""

from __future__ import annotations

import httpx
import pytest

from sw_runtime.worlds.offsite_planning.tasks import q4_quickstart
from tests.runs.conftest import QUICKSTART, new_run

RUN_FIELDS = ["id", "status", "ended_by", "error", "environment", "task", "agent", "tools_url", "mcp_url", "tools",
              "now", "calls", "max_calls", "idle_timeout_seconds", "timeout_seconds", "created_at", "started_at",
              "expires_at", "finished_at", "scored_at", "metadata", "trace", "evaluation"]
Q4_TEXT_START = "The leadership team wants a full-day Q4 offsite in Oslo."


def error_type(r) -> str:
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}, body
    return body["error"]["type"]


# -- environments ---------------------------------------------------------------------------------------------


def test_environments_list_pages_with_a_cursor(v1):
    everything = v1.get("/v1/environments").json()
    assert everything["next_cursor"] is None
    slugs = [e["slug"] for e in everything["data"]]
    assert "offsite-planning" in slugs and len(slugs) >= 3
    seen, cursor = [], None
    while True:
        page = v1.get("/v1/environments", params={"limit": 1, **({"cursor": cursor} if cursor else {})}).json()
        assert len(page["data"]) == 1
        seen.append(page["data"][0]["slug"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == slugs
    assert error_type(v1.get("/v1/environments", params={"limit": 0})) == "invalid_request"
    assert error_type(v1.get("/v1/environments", params={"limit": 201})) == "invalid_request"


def test_an_environment_by_slug_or_id_with_tasks_tools_and_seed_digest(v1):
    env = v1.get("/v1/environments/offsite-planning").json()
    assert env["id"].startswith("env_") and env["slug"] == "offsite-planning" and env["name"] == "Offsite planning"
    assert v1.get(f"/v1/environments/{env['id']}").json() == env
    assert env["seed_digest"].startswith("sha256:") and env["version"]["number"] == 1
    assert [(t["provider"], t["surface"], t["path"]) for t in env["tools"]] == [
        ("google.gmail", "rest", "gmail.googleapis.com/gmail/v1"),
        ("google.gmail", "mcp", "gmailmcp.googleapis.com/mcp/v1"),
        ("slack", "web-api", "slack.com/api"),
        ("slack", "mcp", "mcp.slack.com/mcp"),
        ("google.calendar", "rest", "www.googleapis.com/calendar/v3"),
    ]
    q4 = env["tasks"][0]
    assert (q4["id"], q4["title"]) == ("task_schedule_q4_offsite", "Schedule the Q4 offsite")
    assert q4["instructions"].startswith(Q4_TEXT_START)
    first = q4["checks"][0]
    assert first == {"collection": "events", "description": "A calendar event named Q4 offsite exists",
                     "id": "chk_event_exists", "kind": "record_exists", "where": {"summary": "Q4 offsite"},
                     "source": "template"}
    assert [c["id"] for c in q4["checks"]] == ["chk_event_exists", "chk_event_on_free_day",
                                                "chk_leadership_confirmed", "chk_general_told", "chk_no_email"]
    r = v1.get("/v1/environments/nope")
    assert r.status_code == 404 and r.json() == {"error": {"type": "not_found", "message": 'no environment "nope"'}}


# -- creating a run -------------------------------------------------------------------------------------------


def test_create_by_title_answers_every_field_of_a_run_and_its_token(v1, base):
    run = new_run(v1, task="schedule THE q4 offsite", metadata={"batch": 7})
    assert list(run)[:len(RUN_FIELDS)] == RUN_FIELDS and run["token"].startswith("tw_run_")
    assert run["id"].startswith("run_") and run["status"] == "created" and run["ended_by"] is None
    assert run["task"]["id"] == "task_schedule_q4_offsite" and run["task"]["text"].startswith(Q4_TEXT_START)
    assert run["agent"] == {"name": "ops-assistant", "revision": "1"} and run["metadata"] == {"batch": 7}
    assert run["tools_url"] == f"{base}/v1/runs/{run['id']}/tools" and run["mcp_url"] == run["tools_url"] + "/mcp"
    assert run["tools"][0] == {"provider": "google.gmail", "surface": "rest",
                               "url": run["tools_url"] + "/gmail.googleapis.com/gmail/v1"}
    assert (run["calls"], run["max_calls"], run["idle_timeout_seconds"], run["timeout_seconds"]) == (0, 500, 600, 3600)
    assert run["now"] == "2026-10-26T08:00:00.000Z" and run["started_at"] is None
    assert run["trace"] is None and run["evaluation"] is None
    assert run["environment"]["slug"] == "offsite-planning" and run["environment"]["id"].startswith("env_")
    read = v1.get(f"/v1/runs/{run['id']}").json()
    assert "token" not in read and read["metadata"] == {"batch": 7} and read["status"] == "created"


def test_create_by_task_id_or_free_text(v1):
    by_id = new_run(v1, task="task_schedule_q4_offsite")
    assert by_id["task"]["id"] == "task_schedule_q4_offsite"
    free = new_run(v1, task="Tidy up the inbox as you see fit.", max_calls=3, idle_timeout_seconds=30,
                   timeout_seconds=60)
    assert free["task"] == {"id": None, "text": "Tidy up the inbox as you see fit."}
    assert (free["max_calls"], free["idle_timeout_seconds"], free["timeout_seconds"]) == (3, 30, 60)


@pytest.mark.parametrize("fields,message", [
    ({"foo": 1}, "unknown field: foo"),
    ({"task": "task_nope"}, "unknown task id: task_nope"),
    ({"max_calls": 0}, None), ({"max_calls": 501}, None),
    ({"idle_timeout_seconds": 29}, None), ({"idle_timeout_seconds": 3601}, None),
    ({"timeout_seconds": 59}, None), ({"timeout_seconds": 86401}, None),
    ({"metadata": {"blob": "x" * 5000}}, "metadata is over 4096 bytes"),
    ({"task": "x" * 8193}, None),
    ({"checks": [{"kind": "record_exists", "collection": "nope", "where": {}}]}, None),
    ({"idempotency_key": ""}, None),
])
def test_bad_requests_are_invalid_request(v1, fields, message):
    r = v1.post("/v1/runs", json={"environment": "offsite-planning", "task": "x", **fields})
    assert r.status_code == 400 and error_type(r) == "invalid_request", r.text
    if message is not None:
        assert r.json()["error"]["message"] == message
    r = v1.post("/v1/runs", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and error_type(r) == "invalid_request"


def test_unknown_environment_is_404(v1):
    r = v1.post("/v1/runs", json={"environment": "nope", "task": "x"})
    assert r.status_code == 404 and error_type(r) == "not_found"


def test_custom_checks_take_001s_description(v1, base):
    run = new_run(v1, replace_template_checks=True, checks=[
        {"kind": "output_contains", "value": "13 November", "description": "The answer names the day"},
        {"kind": "action_not_called", "action": "gmail.messages.send"}])
    done = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "Booked for 13 November."}).json()
    checks = done["evaluation"]["checks"]
    assert [(c["kind"], c["source"], c["passed"]) for c in checks] == [
        ("output_contains", "custom", True), ("action_not_called", "custom", True)]
    assert checks[0]["description"] == "The answer names the day" and checks[1]["judge"] is None


def test_idempotency_key_replays_the_run_and_refuses_another_body(v1):
    first = new_run(v1, idempotency_key="k-replay-1")
    again = v1.post("/v1/runs", json={"environment": "offsite-planning", "task": "Schedule the Q4 offsite",
                                      "agent": {"revision": "1", "name": "ops-assistant"},
                                      "idempotency_key": "k-replay-1"})
    assert again.status_code == 201 and again.json()["id"] == first["id"]
    assert again.json()["token"] == first["token"]
    other = v1.post("/v1/runs", json={"environment": "offsite-planning", "task": "Something else",
                                      "idempotency_key": "k-replay-1"})
    assert other.status_code == 409 and error_type(other) == "idempotency_conflict"


# -- finishing, reading, tools ------------------------------------------------------------------------------


def test_finish_scores_once_and_a_second_finish_is_run_ended_unless_it_replays_its_key(v1):
    run = new_run(v1)
    done = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "nothing", "idempotency_key": "f-1"})
    assert done.status_code == 200, done.text
    body = done.json()
    assert body["status"] == "done" and body["ended_by"] == "finish" and body["finished_at"] and body["scored_at"]
    assert body["evaluation"]["passed"] is False and body["trace"] == {"calls": []}
    replay = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "nothing", "idempotency_key": "f-1"})
    assert replay.status_code == 200 and replay.json()["evaluation"] == body["evaluation"]
    second = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "again"})
    assert second.status_code == 409 and error_type(second) == "run_ended"
    tools = v1.get(f"/v1/runs/{run['id']}/tools")
    assert tools.status_code == 409 and tools.json() == {
        "error": {"type": "run_ended", "message": "The run has ended; its tools no longer answer."}}


def test_tools_answers_the_addresses_and_the_token_again(v1):
    run = new_run(v1)
    tools = v1.get(f"/v1/runs/{run['id']}/tools").json()
    assert tools == {"run_id": run["id"], "tools_url": run["tools_url"], "mcp_url": run["mcp_url"],
                     "token": run["token"], "expires_at": run["expires_at"], "tools": run["tools"]}


def test_max_calls_ends_the_run_after_the_call_that_reaches_it_and_scores_it(v1):
    run = new_run(v1, max_calls=2)
    h = {"authorization": f"Bearer {run['token']}"}
    gmail = run["tools_url"] + "/gmail.googleapis.com/gmail/v1/users/me/messages"
    assert v1.get(gmail, params={"q": "offsite"}, headers=h).status_code == 200
    assert v1.get(gmail, params={"q": "offsite"}, headers=h).status_code == 200  # answered, then the run ends
    late = v1.get(gmail, params={"q": "offsite"}, headers=h)
    assert late.status_code == 409 and error_type(late) == "run_ended"
    done = v1.get(f"/v1/runs/{run['id']}").json()
    assert done["ended_by"] == "max_calls" and done["status"] == "done" and done["calls"] == 2
    assert done["evaluation"]["passed"] is False and len(done["trace"]["calls"]) == 2


def test_a_run_token_does_not_open_the_control_api(v1):
    run = new_run(v1)
    r = v1.get(f"/v1/runs/{run['id']}", headers={"authorization": f"Bearer {run['token']}"})
    assert r.status_code == 401 and error_type(r) == "unauthorized"


def test_unknown_runs_and_routes_are_001s_not_found(v1):
    for r in (v1.get("/v1/runs/run_nope"), v1.post("/v1/runs/run_nope/finish", json={}), v1.get("/v1/nothing")):
        assert r.status_code == 404 and error_type(r) == "not_found"


def test_the_trace_is_in_001s_shape(v1):
    run = new_run(v1)
    h = {"authorization": f"Bearer {run['token']}"}
    post = dict(q4_quickstart()[2][1])
    assert v1.post(run["tools_url"] + "/slack.com/api/chat.postMessage", json=post, headers=h).json()["ok"]
    body = v1.post(f"/v1/runs/{run['id']}/finish", json={}).json()
    (call,) = body["trace"]["calls"]
    assert list(call) == ["seq", "at", "provider", "surface", "operation", "arguments", "result", "status", "error",
                          "mutated", "state_digest", "reactions"]
    assert (call["seq"], call["provider"], call["surface"], call["operation"]) == (
        1, "slack", "web-api", "slack.chat.postMessage")
    assert call["arguments"] == post and call["status"] == "ok" and call["error"] is None and call["mutated"]
    assert [(x["id"], x["user"]) for x in call["reactions"]] == [("rx_erik_date", "U_ERIK"), ("rx_mari_go", "U_MARI")]
    assert body["started_at"] is not None and body["calls"] == 1


def test_a_runs_checks_are_its_tasks_checks_and_the_step_budget_has_its_own_field(v1, base):
    # 001's score is passed checks over all checks and its quickstart shows the
    # task's five: the engine's within-budget row is not one of a run's checks.
    run = new_run(v1)
    template = [c["id"] for t in v1.get("/v1/environments/offsite-planning").json()["tasks"]
                if t["title"] == QUICKSTART["task"] for c in t["checks"]]
    ev = v1.post(f"/v1/runs/{run['id']}/finish", json={}).json()["evaluation"]
    assert [c["id"] for c in ev["checks"]] == template and len(template) == 5
    assert ev["step_budget"] == {"budget": 20, "calls": 0, "within": True}
    # /api/v1 keeps 000's row.
    ep = httpx.post(f"{base}/api/v1/environments/offsite-planning/episodes",
                    json={"task_id": run["task"]["id"]}).json()
    done = httpx.post(f"{base}/api/v1/episodes/{ep['episode_id']}/submit").json()
    assert done["checks"][-1]["id"] == "within-budget"
