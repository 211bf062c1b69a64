"""docs/RUNS.md: reference 001's quickstart, curl for curl, against a real
server (only the address and the key changed), and what the issue's
done-when asks of it."""

from __future__ import annotations

import pathlib
import re
import subprocess

import httpx
import pytest

from sw_runtime.worlds.offsite_planning.reactions import ERIK_REPLY, MARI_REPLY
from tests.conftest import running_server
from tests.test_readme import bash_blocks

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "RUNS.md"


@pytest.fixture(scope="module")
def root():
    with running_server() as url:  # its own server: the doc's idempotency key is fresh
        yield url.removesuffix("/api/v1")


def test_the_quickstart_runs_curl_for_curl(root, tmp_path):
    script = "set -euo pipefail\n" + "\n".join(bash_blocks(DOC)) + '\necho "RUN_ID=$RUN_ID"\n'
    script = script.replace("http://127.0.0.1:8787", root)
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "HTTP/1.1 409" in r.stdout and '"type":"run_ended"' in r.stdout  # the call after the end
    run_id = r.stdout.rsplit("RUN_ID=", 1)[1].strip()
    # the codehost run on GitHub's paths: the open pull requests, then GitHub's own 404
    assert "[(8, 'Add request ids to error responses'), (7, 'Cache exchange rates for an hour')]" in r.stdout
    assert ('HTTP/1.1 404 Not Found\n{"message":"Not Found","documentation_url":'
            '"https://docs.github.com/rest/repos/repos#get-a-repository","status":"404"}') in r.stdout
    # the tracker run on Jira's paths: a JQL search, then Jira's own 404
    assert re.search(r"}(\d+) \['In Review', 'In Review'\]\n", r.stdout)  # after GitHub's 404 body
    assert ('HTTP/1.1 404 Not Found\n{"errorMessages":["Issue does not exist or you do not have permission to see '
            'it."],"errors":{}}') in r.stdout
    # the billing run on Stripe's paths: a list object, then Stripe's own 404
    assert "list /v1/customers 2 True" in r.stdout
    assert ('HTTP/1.1 404 Not Found\n{"error":{"code":"resource_missing","message":"No such charge: \'ch_NOPE\'",'
            '"param":"charge","type":"invalid_request_error"}}') in r.stdout

    run = httpx.get(f"{root}/v1/runs/{run_id}", headers={"authorization": "Bearer k"}).json()
    assert (run["status"], run["ended_by"], run["calls"]) == ("done", "finish", 5)
    assert run["task"]["id"] == "task_schedule_q4_offsite" and run["agent"]["name"] == "ops-assistant"
    ev = run["evaluation"]
    assert ev["passed"] is True and ev["score"] == 1
    assert [(c["id"], c["passed"]) for c in ev["checks"]][:5] == [
        ("chk_event_exists", True), ("chk_event_on_free_day", True), ("chk_leadership_confirmed", True),
        ("chk_general_told", True), ("chk_no_email", True)]  # 001's five (the engine may add its own after)
    assert all(c["passed"] for c in ev["checks"])
    calls = run["trace"]["calls"]
    assert [c["operation"] for c in calls] == ["gmail.messages.list", "slack.chat.postMessage",
                                               "calendar.freebusy.query", "calendar.events.insert",
                                               "slack.chat.postMessage"]
    assert [(x["user"], x["text"]) for x in calls[1]["reactions"]] == [("U_ERIK", ERIK_REPLY), ("U_MARI", MARI_REPLY)]
    diff = ev["state_diff"]
    assert set(diff) == {"events", "slack_messages"}
    assert len(diff["events"]["created"]) == 1 and len(diff["slack_messages"]["created"]) == 4
    assert not any(diff[c]["updated"] or diff[c]["removed"] for c in diff)
