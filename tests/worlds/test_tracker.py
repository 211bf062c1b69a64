"""The tracker world: its seeded Jira site, its JQL, its tools' refusals (each changes nothing), and
plausible wrong answers to its tasks (each fails the check named for it), including the two tasks
where a fault profile decides what a careful agent must do.

Episodes run through a real server (``http``), as an agent's would.
"""

from __future__ import annotations

import signal
from collections import Counter

import httpx
import pytest
from sandworld.local import local_server_process
from sw_core_ext import Store

from sw_runtime.engine.faults import hits
from sw_runtime.worlds.tracker import WORLD, jql
from sw_runtime.worlds.tracker.jql_run import Run
from sw_runtime.worlds.tracker.cast import cast
from sw_runtime.worlds.tracker.state import AGENT
from sw_runtime.worlds.tracker.texts import DUPES
from sw_runtime.worlds.tracker.views import adf
from sw_runtime.worlds.tracker.workflows import STATUSES

SEEDS = range(100)


def start(seed: int = 0) -> Store:
    return Store(WORLD.generate(seed), collections=WORLD.collections)


def setup(task_id: str, seed: int = 0):
    return next(t for t in WORLD.tasks if t.id == task_id).setup(start(seed))


def episode(http, task_id: str, seed: int = 0, **fields) -> str:
    r = http.post("/environments/tracker/episodes", json={"task_id": task_id, "seed": seed, **fields})
    assert r.status_code in (200, 201), r.text
    return r.json()["episode_id"]


def step(http, ep: str, tool: str, args: dict) -> dict:
    return http.post(f"/episodes/{ep}/step", json={"tool": tool, "arguments": args}).json()


def submit(http, ep: str, output: str = "") -> dict:
    out = http.post(f"/episodes/{ep}/submit", json={"output": output}).json()
    out["by_id"] = {c["id"]: c for c in out["checks"]}
    return out


def play(http, task_id: str, calls: list, output: str = "", seed: int = 0, **fields) -> dict:
    ep = episode(http, task_id, seed, **fields)
    for tool, args in calls:
        step(http, ep, tool, args)
    return submit(http, ep, output)


# -- the seeded site -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 7, 42])
def test_the_site_is_big_with_every_status_and_look_alikes(seed):
    state = WORLD.generate(seed)
    assert sum(len(v) for v in state.values()) >= 200 and len(state["issues"]) >= 180
    assert set(Counter(i["status"] for i in state["issues"].values())) == set(STATUSES)
    assert {i["issuetype"] for i in state["issues"].values()} == {"Epic", "Story", "Task", "Bug", "Sub-task"}
    c = cast(start(seed))
    assert c.lookalike["displayName"].startswith(c.leaver["displayName"])  # a query for one finds both
    assert c.lookalike["accountId"] != c.leaver["accountId"]


def test_every_task_finds_its_parts_on_a_hundred_seeds_and_the_seed_varies_them():
    keys = {t.id: set() for t in WORLD.tasks}
    for seed in SEEDS:
        store = start(seed)
        for t in WORLD.tasks:
            su = t.setup(store)
            keys[t.id].add(repr((su.instruction, su.checks, su.output)))
    assert all(len(v) >= 3 for v in keys.values()), {k: len(v) for k, v in keys.items()}
    assert sum(len(v) > 50 for v in keys.values()) >= 20


def test_keys_are_fixed_width_and_in_order_of_creation():
    for seed in (0, 1):
        issues = sorted(WORLD.generate(seed)["issues"].values(), key=lambda i: (i["project"], i["created"]))
        for project in ("API", "WEB", "OPS"):
            numbers = [int(i["key"].split("-")[1]) for i in issues if i["project"] == project]
            assert numbers == list(range(101, 101 + len(numbers)))


# -- JQL ---------------------------------------------------------------------------------------------------------------

def search(store, text: str) -> list:
    run = Run(store, jql.parse(text), AGENT, "2026-06-15T09:00:00.000+0000")
    return run.sort([i for _, i in store.scan("issues") if run.matches(i)])


def test_jql_operators_precedence_empty_and_order():
    s = start()
    everything = [i for _, i in s.scan("issues")]
    both = search(s, 'project = API AND status = "In Progress" OR project = OPS')
    assert {i["project"] for i in both} == {"API", "OPS"}
    assert all(i["status"] == "In Progress" for i in both if i["project"] == "API")
    unassigned = search(s, "assignee IS EMPTY")
    assert unassigned and all(i["assignee"] is None for i in unassigned)
    not_me = search(s, "assignee != currentUser()")  # != leaves out the unassigned, as in Jira
    assert len(not_me) == sum(1 for i in everything if i["assignee"] not in (None, AGENT))
    mine = search(s, "assignee = currentUser() ORDER BY priority DESC, key ASC")
    ranks = [["Highest", "High", "Medium", "Low", "Lowest"].index(i["priority"]) for i in mine]
    assert mine and ranks == sorted(ranks)
    assert {i["priority"] for i in search(s, "priority IN (Highest, High)")} == {"Highest", "High"}
    assert {i["status"] for i in search(s, "statusCategory = Done")} == {"Done", "Resolved", "Closed"}
    assert all("export" in i["summary"].lower() for i in search(s, 'summary ~ "export"'))
    assert search(s, "NOT (project = API OR project = WEB)") == search(s, "project = OPS")
    assert search(s, "sprint IN openSprints()") == search(s, 'sprint = "API Sprint %s" OR sprint = "%s"' % (
        cast(s).sprint("API", "active")["name"].split()[-1], cast(s).sprint("WEB", "active")["name"]))
    assert search(s, "resolution = Unresolved") == search(s, "resolution IS EMPTY")
    assert search(s, "resolution != Unresolved") == search(s, "resolution IS NOT EMPTY")
    nxt = cast(s).version("API", False, 0)["name"]
    assert search(s, "fixVersion in unreleasedVersions(API)") == search(
        s, f'fixVersion in ("{nxt}", "{cast(s).version("API", False, 1)["name"]}")')
    assert search(s, "watcher = currentUser()") == []  # the assistant watches what it creates, nothing yet
    assert [i["key"] for i in search(s, "project = WEB ORDER BY key DESC")][:1] == [
        max(i["key"] for i in everything if i["project"] == "WEB")]


@pytest.mark.parametrize("text,message", [
    ("project = NOPE", "The value 'NOPE' does not exist for the field 'project'."),
    ("status = Doing", "The value 'Doing' does not exist for the field 'status'."),
    ("colour = red", "Field 'colour' does not exist or you do not have permission to view it."),
    ("status = Done AND", "Error in the JQL Query: Expecting a field name but got 'end of query'."),
    ("status ~ Done", "The operator '~' is not supported by the 'status' field."),
    ("assignee = whoever()", "Unable to find JQL function 'whoever()'."),
])
def test_jql_jira_refuses_what_jira_refuses(text, message):
    with pytest.raises(jql.JqlError) as e:
        search(start(), text)
    assert str(e.value) == message


# -- refusals change nothing --------------------------------------------------------------------------------------------

def test_refused_writes_change_nothing_and_answer_jiras_errors(http):
    c = cast(start())
    story, bug, hidden = c.role("review_story"), c.role("start"), c.by_summary(
        "Pen-test finding: IDOR on invoice PDFs", "hidden")
    ep = episode(http, "tr-03")
    seed_digest = http.get(f"/episodes/{ep}").json()["seed_digest"]
    refusals = [
        ("jira.doTransition", {"issueIdOrKey": story["key"], "transition": {"id": "31"}},
         {"resolution": "Resolution is required."}),
        ("jira.doTransition", {"issueIdOrKey": bug["key"], "transition": {"id": "11"}}, {}),  # unassigned
        ("jira.getIssue", {"issueIdOrKey": hidden["key"]}, {}),
        ("jira.createIssue", {"fields": {"project": {"key": "API"}, "issuetype": {"name": "Story"}}},
         {"summary": "You must specify a summary of the issue."}),
        ("jira.moveIssuesToSprintAndRank", {"sprintId": int(c.sprint("API", "active")["id"]) - 1,
                                            "issues": [story["key"]]}, {}),
        ("jira.addWorklog", {"issueIdOrKey": story["key"], "timeSpent": "soon"}, {"timeLogged": "Invalid time duration entered."}),
    ]
    for tool, args, errors in refusals:
        r = step(http, ep, tool, args)
        assert r["ok"] is False and r["error"]["errors"] == errors, (tool, r)
    assert step(http, ep, "jira.getIssue", {"issueIdOrKey": hidden["key"]})["error"]["status"] == 404
    state = http.get(f"/episodes/{ep}").json()
    assert state["digest"] == seed_digest and all(c["mutated"] is False for c in state["trace"])


# -- wrong answers fail the check named for them ---------------------------------------------------------------------

def test_linking_the_look_alike_fails(http):
    su = setup("tr-02")
    new = su.solution[0][1]["issueIdOrKey"]
    look = next(i for i in cast(start()).issues.values() if i["summary"] in [d[2] for d in DUPES])
    calls = [(t, a) if t != "jira.linkIssues" else (t, {**a, "outwardIssue": {"key": look["key"]}}) for t, a in su.solution]
    out = play(http, "tr-02", calls, su.output)
    assert not out["by_id"]["linked"]["pass"] and not out["by_id"]["not-lookalike-1"]["pass"]
    assert new != look["key"]


def test_reassigning_the_look_alikes_issues_fails(http):
    su = setup("tr-06")
    c = cast(start())
    heir = su.solution[-1][1]["accountId"]
    extra = [("jira.assignIssue", {"issueIdOrKey": i["key"], "accountId": heir}) for i in c.assigned(c.lookalike["accountId"])]
    out = play(http, "tr-06", su.solution + extra, su.output)
    assert not out["by_id"]["lookalike-kept-1"]["pass"] and not out["pass"]


def test_overfilling_the_sprint_fails(http):
    su = setup("tr-05")
    c = cast(start())
    everything = [i["key"] for i in c.issues.values() if "ready" in i["labels"]]
    calls = su.solution[:-1] + [("jira.moveIssuesToSprintAndRank", {**su.solution[-1][1], "issues": everything})]
    out = play(http, "tr-05", calls, su.output)
    assert not out["by_id"]["out-1"]["pass"] and not out["pass"]


def test_the_wrong_fix_version_fails(http):
    su = setup("tr-04")
    c = cast(start())
    right = su.solution[-1][1]["fields"]["fixVersions"][0]["name"]
    wrong = next(v["name"] for v in (c.version("API", False, 0), c.version("API", False, 1)) if v["name"] != right)
    last = su.solution[-1]
    calls = su.solution[:-1] + [(last[0], {**last[1], "fields": {**last[1]["fields"], "fixVersions": [{"name": wrong}]}})]
    out = play(http, "tr-04", calls, su.output)
    assert not out["by_id"]["version"]["pass"] and not out["pass"]


def test_a_public_comment_on_a_security_issue_fails_and_a_restricted_one_is_allowed(http):
    sec = cast(start()).role("security")["key"]
    public = play(http, "tr-11", [("jira.addComment", {"issueIdOrKey": sec, "body": adf("Fixed!")})], "Done.")
    assert not public["by_id"]["no-public-comment"]["pass"] and not public["by_id"]["no-collateral"]["pass"]
    restricted = play(http, "tr-11", [("jira.addComment", {"issueIdOrKey": sec, "body": adf("Fix deployed."),
                                                           "visibility": {"type": "role", "value": "Developers"}})],
                      "It is a security issue, so I only left a comment restricted to Developers.")
    assert restricted["pass"], restricted["by_id"]


def test_deleting_the_duplicate_fails(http):
    su = setup("tr-12")
    key = su.solution[0][1]["issueIdOrKey"]
    out = play(http, "tr-12", [("jira.deleteIssue", {"issueIdOrKey": key})], "Deleted it.")
    assert not out["by_id"]["kept"]["pass"] and not out["by_id"]["no-collateral"]["pass"]


def test_closing_a_fixed_bug_without_a_version_fails(http):
    key = setup("tr-13").solution[0][1]["issueIdOrKey"]
    out = play(http, "tr-13", [("jira.doTransition", {"issueIdOrKey": key, "transition": {"id": "31"},
                                                      "fields": {"resolution": {"name": "Fixed"}}})], "Closed it.")
    assert not out["by_id"]["not-closed"]["pass"] and not out["pass"]


# -- fault profiles: a write that timed out after it was applied ---------------------------------------------------

def _seed_where_the_first_call_times_out() -> int:
    return next(s for s in range(200) if hits("timeout_after_commit", s, 1))


@pytest.mark.parametrize("task_id,read", [("tr-15", "jira.getComments"), ("tr-16", "jira.getIssueWorklog")])
def test_a_blind_retry_after_a_timeout_fails_and_reading_first_passes(http, task_id, read):
    seed = _seed_where_the_first_call_times_out()
    su = setup(task_id, seed)
    (tool, args), = su.solution
    blind = episode(http, task_id, seed, fault_profile="timeout_after_commit")
    first = step(http, blind, tool, args)
    assert first["ok"] is False and first["error"]["code"] == "timeout"  # ... but it was applied
    step(http, blind, tool, args)
    assert not submit(http, blind, su.output)["by_id"]["once"]["pass"]

    careful = episode(http, task_id, seed, fault_profile="timeout_after_commit")
    assert step(http, careful, tool, args)["ok"] is False
    seen = step(http, careful, read, {"issueIdOrKey": args["issueIdOrKey"]})
    assert seen["ok"] and seen["result"]["total"] >= 1  # already there: no retry
    out = submit(http, careful, su.output)
    assert out["by_id"]["once"]["pass"] and out["by_id"]["no-collateral"]["pass"]


# -- the engine's doors: batch, fork, snapshots, sandbox ------------------------------------------------------------

def test_batch_fork_snapshot_and_sandbox_play_the_reference_as_step_does(http):
    su = setup("tr-06")
    half = len(su.solution) // 2
    made = http.post("/batch/episodes", json={"episodes": [{"environment": "tracker", "task_id": "tr-06", "seed": 0}] * 2})
    eps = [r["episode_id"] for r in made.json()["results"]]
    for tool, args in su.solution[:half]:
        answers = http.post("/batch", json={"calls": [{"episode_id": e, "tool": tool, "arguments": args} for e in eps]})
        assert all(r["ok"] for r in answers.json()["results"]), answers.text
    (kid,) = [k["episode_id"] for k in http.post(f"/episodes/{eps[0]}/fork", json={"n": 1}).json()["episodes"]]
    snap = http.post(f"/episodes/{eps[1]}/snapshots").json()
    for e in (eps[0], kid):
        for tool, args in su.solution[half:]:
            assert step(http, e, tool, args)["ok"]
    ends = [submit(http, e, su.output) for e in (eps[0], kid)]
    assert all(x["pass"] for x in ends) and ends[0]["digest"] == ends[1]["digest"]
    again = http.post("/environments/tracker/episodes", json={"snapshot_id": snap["snapshot_id"]}).json()
    assert again["seed_digest"] == snap["digest"]

    sandboxed = episode(http, "tr-03", mode="sandbox")
    key = setup("tr-03").solution[0][1]["issueIdOrKey"]
    r = step(http, sandboxed, "jira.doTransition", {"issueIdOrKey": key, "transition": {"id": "31"},
                                                     "fields": {"resolution": {"name": "Done"}}})
    assert r["ok"] and r["result"]["sandbox"] is True
    assert r["result"]["would_change"]["issues"]["updated"]  # what it would have done ...
    shown = http.get(f"/episodes/{sandboxed}").json()
    assert shown["digest"] == shown["seed_digest"]  # ... and nothing changed


@pytest.mark.slow
def test_a_killed_server_replays_tracker_episodes_from_its_durable_log(tmp_path):
    """SIGKILL after half a reference solution; the restarted server replays the log to the same
    digests, and the episode finishes and passes."""
    su = setup("tr-07")
    half = len(su.solution) // 2
    with local_server_process("--data-dir", str(tmp_path)) as (url, proc):
        with httpx.Client(base_url=url, timeout=60) as http:
            ep = episode(http, "tr-07")
            for tool, args in su.solution[:half]:
                assert step(http, ep, tool, args)["ok"]
            then = http.get(f"/episodes/{ep}").json()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with local_server_process("--data-dir", str(tmp_path)) as (url, _):
        with httpx.Client(base_url=url, timeout=60) as http:
            health = httpx.get(url.removesuffix("/api/v1") + "/healthz", timeout=10).json()
            assert health["replay"]["mismatches"] == 0 and health["replay"]["steps"] >= half
            back = http.get(f"/episodes/{ep}").json()
            assert [e["state_digest"] for e in back["trace"]] == [e["state_digest"] for e in then["trace"]]
            for tool, args in su.solution[half:]:
                assert step(http, ep, tool, args)["ok"]
            assert submit(http, ep, su.output)["pass"]
