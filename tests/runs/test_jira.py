"""Tracker's tools at Jira Cloud's own REST paths (``{tools_url}/kestrel.atlassian.net/rest/…``),
against a real server: the ``jira`` SDK (pycontribs) connects and works there unchanged, with the
same trace and digests as the same calls through ``step``; every task's reference solution sent as
Jira's methods and paths passes as ``step`` does; and the answers and refusals are Jira's (bodies,
201 and 204, ``{"errorMessages", "errors"}``, 404 for an issue the agent may not see)."""

from __future__ import annotations

import base64
import re

import jira
import pytest
from sw_core_ext import Store

from sw_runtime.runs import addresses
from sw_runtime.runs.addresses import ADDRESSES
from sw_runtime.worlds.tracker import WORLD
from sw_runtime.worlds.tracker.cast import cast
from sw_runtime.worlds.tracker.views import adf
from tests.runs.conftest import new_run

SITE = "/kestrel.atlassian.net"
JIRA = [a for a in ADDRESSES if a.provider == "jira"]


def jira_request(tool: str, args: dict) -> tuple:
    """``(method, path, rest)``: the tool's REST method and path as Jira's docs write them, and the
    arguments left for the query or the body."""
    address = next(a for a in JIRA if a.tool == tool)
    names = re.findall(r"\{([A-Za-z]+)\}", address.template)
    path = re.sub(r"\{([A-Za-z]+)\}", lambda m: str(args[m.group(1)]), address.template)
    return address.methods[0], SITE + path, {k: v for k, v in args.items() if k not in names}


def auth(run, email="assistant@kestrel.io") -> dict:
    return {"authorization": "Basic " + base64.b64encode(f"{email}:{run['token']}".encode()).decode()}


def send(v1, run, tool, args):
    method, path, rest = jira_request(tool, args)
    url = run["tools_url"] + path
    if method in ("GET", "DELETE"):
        params = {k: (",".join(v) if isinstance(v, list) else str(v).lower() if isinstance(v, bool) else v)
                  for k, v in rest.items()}
        return v1.request(method, url, params=params, headers=auth(run))
    return v1.request(method, url, json=rest, headers=auth(run))


def replay_through_step(http, task_id: str, calls: list) -> tuple:
    """The same calls through ``/api/v1`` step: the trace and the submit answer."""
    ep = http.post("/environments/tracker/episodes", json={"task_id": task_id, "seed": 0}).json()
    for c in calls:
        assert http.post(f"/episodes/{ep['episode_id']}/step",
                         json={"tool": c["operation"], "arguments": c["arguments"]}).json()["ok"], c
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    return trace, http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": "done"}).json()


def test_every_tracker_tool_has_its_jira_path():
    assert {a.tool for a in JIRA} == {t.alias for t in WORLD.tools}  # the real API's names
    for method, path, tool in [("GET", "x.atlassian.net/rest/api/2/serverInfo", "jira.getServerInfo"),
                               ("PUT", "x.atlassian.net/rest/api/latest/issue/API-101/assignee", "jira.assignIssue"),
                               ("POST", "x.atlassian.net/rest/api/3/search/jql", "jira.searchAndReconsileIssuesUsingJql"),
                               ("POST", "x.atlassian.net/rest/agile/1.0/sprint/104/issue",
                                "jira.moveIssuesToSprintAndRank")]:
        assert addresses.route(method, path).tool == tool
    assert addresses.route("GET", "x.atlassian.net/rest/agile/1.0/board/eleven/sprint") is None
    assert addresses.route("GET", "x.atlassian.net/rest/api/4/myself") is None


def solution(task) -> list:
    return task.setup(Store(WORLD.generate(0), collections=WORLD.collections)).solution


@pytest.mark.parametrize("task", [t for t in WORLD.tasks if all(c[0] != "ask_user" for c in solution(t))],
                         ids=lambda t: t.id)
def test_every_reference_solution_through_jiras_paths_passes_as_step_does(v1, http, task):
    run = new_run(v1, environment="tracker", task=task.title)
    assert {"provider": "jira", "surface": "rest", "url": run["tools_url"] + SITE} in run["tools"]
    calls = solution(task)
    answers = [send(v1, run, tool, args) for tool, args in calls]
    want = [next(a for a in JIRA if a.tool == tool).ok_status for tool, _ in calls]
    assert [a.status_code for a in answers] == want, [a.text for a in answers]
    finished = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "done"}).json()
    rest = finished["trace"]["calls"]
    assert {(c["provider"], c["surface"]) for c in rest} == {("jira", "rest")}
    step, submitted = replay_through_step(http, task.id, rest)
    assert [c["operation"] for c in rest] == [tool for tool, _ in calls]
    assert [c["state_digest"] for c in rest] == [s["state_digest"] for s in step]
    assert finished["evaluation"]["digest"] == submitted["digest"]


def test_the_jira_sdk_works_on_the_tools_url_with_steps_digests(v1, http):
    run = new_run(v1, environment="tracker", task="Move a merged story to Done")
    c = cast(Store(WORLD.generate(0), collections=WORLD.collections))
    story, esc, heir = c.role("review_story"), c.role("escalation"), c.user(c.lead("WEB")["accountId"])
    sprint = c.sprint("API", "future")
    client = jira.JIRA(server=run["tools_url"] + SITE, basic_auth=("assistant@kestrel.io", run["token"]),
                       options={"rest_api_version": "3"}, max_retries=0)
    assert client.server_info()["deploymentType"] == "Cloud"  # and JIRA() read it on connect
    found = client.search_issues('project = API AND status = "In Review" AND issuetype = Story ORDER BY key ASC',
                                 maxResults=10)
    assert story["key"] in [i.key for i in found]
    issue = client.issue(story["key"])
    assert issue.fields.status.name == "In Review" and issue.fields.summary == story["summary"]
    assert "Done" in [t["name"] for t in client.transitions(issue)]
    client.transition_issue(issue, "Done", fields={"resolution": {"name": "Done"}})
    assert client.issue(story["key"]).fields.resolution.name == "Done"
    note = client.add_comment(story["key"], adf("Shipped in today's deploy."))
    assert note.raw["body"]["content"][0]["content"][0]["text"] == "Shipped in today's deploy."
    client.create_issue_link("Relates", story["key"], esc["key"])
    client.assign_issue(esc["key"], heir["emailAddress"])
    assert client.issue(esc["key"]).fields.assignee.accountId == heir["accountId"]
    assert client.add_worklog(story["key"], timeSpent="1h 30m").timeSpentSeconds == 5400
    client.add_watcher(esc["key"], heir["emailAddress"])  # the body is the account id as a bare JSON string
    assert heir["accountId"] in [w.accountId for w in client.watchers(esc["key"]).watchers]
    client.remove_watcher(esc["key"], heir["emailAddress"])
    assert client.watchers(esc["key"]).watchCount == len(esc["watchers"])
    new = client.create_issue(fields={"project": {"key": "API"}, "issuetype": {"name": "Story"},
                                      "summary": "Document the refund webhooks"})
    client.add_issues_to_sprint(int(sprint["id"]), [new.key])
    assert [b.name for b in client.boards()] == ["API board", "WEB board", "OPS board"]
    assert sprint["name"] in [s.name for s in client.sprints(11)]
    assert {p.key for p in client.projects()} == {"API", "WEB", "OPS"}
    assert heir["accountId"] in [u.accountId for u in client.search_users(query=heir["displayName"])]
    with pytest.raises(jira.JIRAError) as gone:
        client.issue("API-999")
    assert gone.value.status_code == 404

    finished = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "done"}).json()
    rest = [x for x in finished["trace"]["calls"] if x["status"] == "ok"]
    assert {"jira.getServerInfo", "jira.getFields", "jira.searchAndReconsileIssuesUsingJql", "jira.doTransition",
            "jira.linkIssues", "jira.assignIssue", "jira.createIssue", "jira.moveIssuesToSprintAndRank",
            "jira.addWatcher", "jira.removeWatcher"} <= {
        x["operation"] for x in rest}
    step, submitted = replay_through_step(http, "tr-03", rest)
    assert [x["state_digest"] for x in rest] == [s["state_digest"] for s in step]
    assert finished["evaluation"]["digest"] == submitted["digest"]
    checks = {x.get("id"): x for x in finished["evaluation"]["checks"]}
    assert checks["done"]["passed"] is True and checks["no-collateral"]["passed"] is False  # tr-03, and much more


def test_jiras_refusals_bodies_and_statuses(v1):
    run = new_run(v1, environment="tracker", task="Move a merged story to Done")
    t, h = run["tools_url"] + SITE, auth(run)
    c = cast(Store(WORLD.generate(0), collections=WORLD.collections))
    hidden, story = c.by_summary(("Pen-test finding: SSRF in the webhook tester",), "hidden"), c.role("review_story")
    for key in ("API-999", hidden["key"]):  # missing and not permitted look the same
        gone = v1.get(f"{t}/rest/api/3/issue/{key}", headers=h)
        assert gone.status_code == 404
        assert gone.json() == {"errorMessages": ["Issue does not exist or you do not have permission to see it."],
                               "errors": {}}
    bad = v1.get(f"{t}/rest/api/3/search", params={"jql": "project = NOPE"}, headers=h)
    assert bad.status_code == 400 and bad.json()["errorMessages"] == [
        "The value 'NOPE' does not exist for the field 'project'."]
    unparsed = v1.get(f"{t}/rest/api/3/search", params={"jql": "status = Done AND"}, headers=h)
    assert unparsed.status_code == 400 and "Error in the JQL Query" in unparsed.json()["errorMessages"][0]
    missing = v1.post(f"{t}/rest/api/3/issue/{story['key']}/transitions", json={"transition": {"id": "31"}}, headers=h)
    assert missing.status_code == 400 and missing.json() == {"errorMessages": [],
                                                             "errors": {"resolution": "Resolution is required."}}
    page = v1.get(f"{t}/rest/api/3/search", params={"jql": "project = API ORDER BY key ASC", "maxResults": "2",
                                                    "startAt": "1", "fields": "summary"}, headers=h).json()
    assert (page["startAt"], page["maxResults"], len(page["issues"])) == (1, 2, 2)
    assert page["issues"][0]["key"] == "API-102" and set(page["issues"][0]["fields"]) == {"summary"}
    done = v1.post(f"{t}/rest/api/3/issue/{story['key']}/transitions", headers=h,
                   json={"transition": {"id": 31}, "fields": {"resolution": {"name": "Done"}}})
    assert done.status_code == 204 and done.content == b""
    made = v1.post(f"{t}/rest/api/3/issue/{story['key']}/comment", json={"body": adf("ok")}, headers=h)
    assert made.status_code == 201 and made.json()["body"] == adf("ok")
    text = v1.post(f"{t}/rest/api/3/issue/{story['key']}/comment", json={"body": "ok"}, headers=h)
    assert text.status_code == 400 and "body" in text.json()["errorMessages"][0]  # v3 takes ADF, not text
    bearer = v1.get(f"{t}/rest/api/3/myself", headers={"authorization": f"Bearer {run['token']}"})
    assert bearer.status_code == 200 and bearer.json()["displayName"] == "Kestrel Assistant"
    anon = v1.get(f"{t}/rest/api/3/myself")
    assert anon.status_code == 401 and anon.json()["errorMessages"][0].startswith("You are not authenticated")
    nowhere = v1.get(f"{t}/rest/api/3/nothing-here", headers=h)
    assert nowhere.status_code == 404 and list(nowhere.json()) == ["errorMessages", "errors"]
    calls = v1.post(f"/v1/runs/{run['id']}/finish", json={"output": "x"}).json()["trace"]["calls"]
    assert [x["status"] for x in calls] == ["error"] * 5 + ["ok"] * 3 + ["error", "ok"]
