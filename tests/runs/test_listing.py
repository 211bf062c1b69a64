"""Runs over HTTP beyond 001's six routes: the list, trial groups, the
markdown report, and a run's final state after it left memory. Real servers."""

from __future__ import annotations

import time

import httpx

from sw_runtime.worlds.offsite_planning.tasks import q4_quickstart
from tests.conftest import running_server
from tests.runs.conftest import QUICKSTART, new_run


def _solve(v1, run) -> None:
    """The quickstart's reference solution, through the run's step door."""
    for tool, args in q4_quickstart():
        r = v1.post(f"/api/v1/episodes/{run['episode_id']}/step", json={"tool": tool, "arguments": args})
        assert r.status_code == 200 and r.json()["ok"], r.text


def test_runs_list_newest_first_with_filters_and_cursor_pages(v1):
    tag = f"list-{time.monotonic_ns()}"
    made = [new_run(v1, group_id=tag, agent={"name": f"a{i % 2}"}) for i in range(5)]
    page = v1.get("/v1/runs", params={"group_id": tag, "limit": 2}).json()
    assert [r["id"] for r in page["data"]] == [made[4]["id"], made[3]["id"]] and page["next_cursor"]
    seen = [r["id"] for r in page["data"]]
    while page["next_cursor"]:
        page = v1.get("/v1/runs", params={"group_id": tag, "limit": 2, "cursor": page["next_cursor"]}).json()
        seen += [r["id"] for r in page["data"]]
    assert seen == [r["id"] for r in reversed(made)]
    row = page["data"][-1]
    assert set(row) == {"id", "status", "ended_by", "environment", "task", "agent", "group_id", "calls", "score",
                        "passed", "created_at", "finished_at", "episode_id"}
    assert row["group_id"] == tag and row["status"] == "created" and row["score"] is None
    mine = v1.get("/v1/runs", params={"group_id": tag, "agent": "a1"}).json()["data"]
    assert [r["id"] for r in mine] == [made[3]["id"], made[1]["id"]]
    assert v1.get("/v1/runs", params={"group_id": tag, "status": "done"}).json()["data"] == []
    bad = v1.get("/v1/runs", params={"status": "nope"})
    assert bad.status_code == 400 and bad.json()["error"]["type"] == "invalid_request"
    assert v1.get("/v1/runs", params={"bogus": 1}).status_code == 400


def test_a_trial_group_gives_pass_hat_k(v1):
    tag = f"group-{time.monotonic_ns()}"
    runs = [new_run(v1, group_id=tag) for _ in range(4)]
    for run in runs[:3]:  # three of four trials solve it
        _solve(v1, run)
    for run in runs:
        v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "done"})
    body = v1.get("/v1/runs", params={"group_id": tag}).json()
    group = body["group"]
    assert (group["group_id"], group["runs"], group["scored"], group["passed"]) == (tag, 4, 4, 3)
    assert group["tasks"] == ["task_schedule_q4_offsite"]
    # pass^k = C(3, k) / C(4, k): 0.75, 0.5, 0.25, 0
    assert group["pass_hat_k"] == {"1": 0.75, "2": 0.5, "3": 0.25, "4": 0.0}
    assert sorted(r["passed"] for r in body["data"]) == [False, True, True, True]
    assert "group" not in v1.get("/v1/runs", params={"limit": 1}).json()


def test_a_runs_markdown_report(v1, base):
    run = new_run(v1, group_id="report-1")
    _solve(v1, run)
    done = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "Booked."}).json()
    r = v1.get(f"/v1/runs/{run['id']}/report.md")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/markdown")
    text = r.text
    assert text.startswith(f"# Run {run['id']}\n") and f"<{base}/v1/runs/{run['id']}>" in text
    assert "**1**, passed: **True**" in text and "denominator of" in text
    for c in done["evaluation"]["checks"]:  # a row per check, each with its reason
        assert f"| `{c['id']}` | {c['kind']} | {c['source']} | yes | " in text
        assert c["explanation"].replace("|", "\\|") in text
    assert "ops-assistant" in text and "offsite-planning" in text and "sandworld-runtime" in text
    assert v1.get("/v1/runs/run_nope/report.md").status_code == 404


def test_an_ended_episodes_state_is_read_back_from_the_results_store():
    with running_server(env={"SW_KEEP_ENDED": "0", "SW_IDLE_TIMEOUT": "4"}) as url, httpx.Client(base_url=url, timeout=30) as http:
        root = url.removesuffix("/api/v1")
        run = httpx.post(f"{root}/v1/runs", json=QUICKSTART).json()
        for tool, args in q4_quickstart():
            http.post(f"/episodes/{run['episode_id']}/step", json={"tool": tool, "arguments": args})
        live = http.get(f"/episodes/{run['episode_id']}/state").json()
        done = httpx.post(f"{root}/v1/runs/{run['id']}/finish", json={}).json()
        custom = http.post("/environments/dummy/episodes", json={"state": {"items": {"a": {"id": "a", "value": 1}}}}
                           ).json()["episode_id"]
        http.post(f"/episodes/{custom}/step", json={"tool": "set", "arguments": {"key": "a", "value": 2}})
        http.post(f"/episodes/{custom}/submit")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and "changes_only" not in http.get(f"/episodes/{custom}/state").json():
            time.sleep(0.25)  # both ended together: once one is in the results store, so is the other
        kept = http.get(f"/episodes/{run['episode_id']}/state")
        assert kept.status_code == 200, kept.text
        assert kept.json() == live and kept.json()["digest"] == done["evaluation"]["digest"]
        part = http.get(f"/episodes/{run['episode_id']}/state", params={"collections": "events"}).json()
        assert part["collections"] == {"events": live["collections"]["events"]}
        # A custom start is not kept: once stored, its dump holds only the records it changed.
        while time.monotonic() < deadline and "changes_only" not in http.get(f"/episodes/{custom}/state").json():
            time.sleep(0.25)
        changes = http.get(f"/episodes/{custom}/state").json()
        assert changes["changes_only"] is True and changes["collections"] == {"items": {"a": {"id": "a", "value": 2}}}
