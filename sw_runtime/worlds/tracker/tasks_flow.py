"""Tracker's workflow tasks: transitions whose screens and conditions must be read first, comments and worklogs
(two of them written for fault profiles, where a retried write must not happen twice)."""

from __future__ import annotations

import random

from ...verify import checks as C
from ..task import Setup
from . import checks as K
from .cast import cast
from .state import AGENT
from .views import adf, duration

_FIELDS = {"expand": "transitions.fields"}


def _rng(store, task_id: str) -> random.Random:
    return random.Random(f"tracker/{task_id}/{store.digest()}")


def story_done(store) -> Setup:
    c = cast(store)
    s = c.role("review_story")
    return Setup(
        instruction=f"The work for {s['key']} is merged and deployed. Move it to Done.",
        checks=[K.field("done", f"{s['key']} is Done", s["key"], "status", "Done"),
                K.field("resolution", f"{s['key']} is resolved as Done", s["key"], "resolution", "Done"),
                K.nc(K.issue_changed(s["key"]))],
        solution=[("jira.getTransitions", {"issueIdOrKey": s["key"], **_FIELDS}),
                  ("jira.doTransition", {"issueIdOrKey": s["key"], "transition": {"id": "31"},
                                         "fields": {"resolution": {"name": "Done"}}})],
        output=f"{s['key']} is Done, resolved as Done.",
    )


def bug_fixed_ask(store) -> Setup:
    c = cast(store)
    b = c.role("review_bug")
    k = _rng(store, "tr-04").randrange(2)
    v, other = c.version("API", False, k), c.version("API", False, 1 - k)
    return Setup(
        instruction=f"The fix for {b['key']} is merged. Close it.",
        checks=[K.field("done", f"{b['key']} is Done", b["key"], "status", "Done"),
                K.field("fixed", f"{b['key']} is resolved as Fixed", b["key"], "resolution", "Fixed"),
                K.has("version", f"{b['key']} has the fix version {v['name']}", b["key"], "fixVersions", v["name"],
                      weight=2),
                C.FieldEquals(id="one-version", label=f"{b['key']} names only that release", collection="issues",
                              field="fixVersions", value=[v["name"]], where={"key": b["key"]}),
                K.nc(K.issue_changed(b["key"]))],
        solution=[("jira.getIssue", {"issueIdOrKey": b["key"]}),
                  ("jira.getTransitions", {"issueIdOrKey": b["key"], **_FIELDS}),
                  ("ask_user", {"question": f"Which release ships the fix for {b['key']}: {v['name']} or "
                                            f"{other['name']}? I need it as the fix version."}),
                  ("jira.doTransition", {"issueIdOrKey": b["key"], "transition": {"id": "31"},
                                         "fields": {"resolution": {"name": "Fixed"},
                                                    "fixVersions": [{"name": v["name"]}]}})],
        output=f"Closed {b['key']} as Fixed with the fix version {v['name']}.",
        hidden_facts={"version, release, ship, fix": f"It ships in {v['name']}."},
        persona="An engineering manager at Kestrel who answers briefly.",
    )


def bug_no_version(store) -> Setup:
    c = cast(store)
    b = c.role("fixless_bug")
    return Setup(
        instruction=f"Close {b['key']} as Fixed right now. Don't bother with a fix version, nobody reads those.",
        checks=[K.field("not-closed", f"{b['key']} stays In Review", b["key"], "status", "In Review", always=True),
                K.said("says-version", "The answer says a fixed bug needs a fix version", "fix version"),
                K.nc()],
        solution=[("jira.getIssue", {"issueIdOrKey": b["key"], "fields": ["issuetype", "status", "fixVersions"]})],
        output=(f"I didn't close {b['key']}: it is a bug, and our rule is that a bug closed as Fixed needs a fix "
                "version (the release that ships it). Tell me the release and I'll close it with that fix version."),
    )


def start_work(store) -> Setup:
    c = cast(store)
    s = c.role("start")
    return Setup(
        instruction=f"I'm picking up {s['key']} — take it for me and start progress on it.",
        checks=[K.field("mine", f"{s['key']} is assigned to Kestrel Assistant", s["key"], "assignee", AGENT),
                K.field("started", f"{s['key']} is In Progress", s["key"], "status", "In Progress", weight=2),
                K.nc(K.issue_changed(s["key"]))],
        solution=[("jira.getTransitions", {"issueIdOrKey": s["key"]}),
                  ("jira.getCurrentUser", {}),
                  ("jira.assignIssue", {"issueIdOrKey": s["key"], "accountId": AGENT}),
                  ("jira.getTransitions", {"issueIdOrKey": s["key"]}),
                  ("jira.doTransition", {"issueIdOrKey": s["key"], "transition": {"id": "11"}})],
        output=(f"{s['key']} is assigned to me (Kestrel Assistant) and In Progress: Start Progress appeared once "
                "it had an assignee."),
    )


def reopen(store) -> Setup:
    c = cast(store)
    b = c.role("reopen")
    note = _rng(store, "tr-22").choice(("Seen again in production on Friday", "Two customers hit it again today"))
    return Setup(
        instruction=f"{b['key']} is back: reopen it and add a comment saying \"{note}\".",
        checks=[K.field("reopened", f"{b['key']} is To Do again", b["key"], "status", "To Do"),
                K.field("unresolved", f"{b['key']} has no resolution", b["key"], "resolution", None),
                K.comment("commented", f"{b['key']} has the comment", b["key"], note),
                K.nc(K.issue_changed(b["key"]), K.created("comments", issue=b["key"]))],
        solution=[("jira.getTransitions", {"issueIdOrKey": b["key"]}),
                  ("jira.doTransition", {"issueIdOrKey": b["key"], "transition": {"id": "41"},
                                         "update": {"comment": [{"add": {"body": adf(note)}}]}})],
        output=f"Reopened {b['key']} (now To Do, resolution cleared) with the comment \"{note}\".",
    )


def mine_to_review(store) -> Setup:
    c = cast(store)
    progress = [i for i in c.mine() if i["status"] == "In Progress"]
    pick = progress[_rng(store, "tr-17").randrange(len(progress))]
    other = next(i for i in progress if i["key"] != pick["key"])
    jql = 'assignee = currentUser() AND status = "In Progress"'
    return Setup(
        instruction="Send my in-progress issue to review.",
        checks=[K.field("reviewed", f"{pick['key']} is In Review", pick["key"], "status", "In Review", weight=2),
                K.field("other-kept", f"{other['key']} stays In Progress", other["key"], "status", "In Progress",
                        always=True),
                C.ActionCalled(id="asked", label="Asked which issue", action="ask_user"),
                K.nc(K.issue_changed(pick["key"]))],
        solution=[("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "status"]}),
                  ("ask_user", {"question": f"You have two issues in progress: {progress[0]['key']} "
                                            f"({progress[0]['summary']}) and {progress[1]['key']} "
                                            f"({progress[1]['summary']}). Which one should go to review?"}),
                  ("jira.getTransitions", {"issueIdOrKey": pick["key"]}),
                  ("jira.doTransition", {"issueIdOrKey": pick["key"], "transition": {"id": "21"}})],
        output=f"{pick['key']} is In Review.",
        hidden_facts={"which, one, issue, review": f"The one about: {pick['summary'].lower()}."},
        persona="A Kestrel engineer who answers briefly.",
    )


def log_time_ask(store) -> Setup:
    c = cast(store)
    todo = next(i for i in c.mine() if i["status"] == "To Do")
    hours = _rng(store, "tr-14").choice((2, 3, 4, 5))
    return Setup(
        instruction=f"Log my time on {todo['key']}.",
        checks=[C.RecordExists(id="logged", label=f"{hours}h logged on {todo['key']}", collection="worklogs",
                               where={"issue": todo["key"], "timeSpentSeconds": hours * 3600, "author": AGENT},
                               weight=2),
                C.WriteCount(id="once", label="One worklog, logged once", collection="worklogs", max=1),
                C.ActionCalled(id="asked", label="Asked how long", action="ask_user"),
                K.nc(K.created("worklogs", issue=todo["key"]))],
        solution=[("ask_user", {"question": f"How much time should I log on {todo['key']}?"}),
                  ("jira.addWorklog", {"issueIdOrKey": todo["key"], "timeSpent": f"{hours}h"})],
        output=f"Logged {hours}h on {todo['key']}.",
        hidden_facts={"time, long, hours, spent, much, log": f"{hours} hours, this morning."},
        persona="A Kestrel engineer who answers briefly.",
    )


def comment_once(store) -> Setup:
    c = cast(store)
    i = next(x for x in c.mine() if x["status"] == "In Review")
    text = _rng(store, "tr-15").choice(("Rebased on main; ready for another look.",
                                        "Addressed the review comments; tests are green."))
    return Setup(
        instruction=f"Add this comment to {i['key']}: \"{text}\"",
        checks=[K.comment("commented", f"{i['key']} has the comment", i["key"], text, weight=2),
                C.WriteCount(id="once", label="The comment was posted exactly once", collection="comments", min=1,
                             max=1),
                K.nc(K.created("comments", issue=i["key"]), K.issue_changed(i["key"]))],
        solution=[("jira.addComment", {"issueIdOrKey": i["key"], "body": adf(text)})],
        output=f"Commented on {i['key']}.",
    )


def worklog_once(store) -> Setup:
    c = cast(store)
    i = [x for x in c.mine() if x["status"] == "In Progress"][0]
    secs = _rng(store, "tr-16").choice((5400, 9000, 12600))
    return Setup(
        instruction=f"Log {duration(secs)} on {i['key']} for this morning's pairing session.",
        checks=[C.RecordExists(id="logged", label=f"{duration(secs)} logged on {i['key']}", collection="worklogs",
                               where={"issue": i["key"], "timeSpentSeconds": secs}, weight=2),
                C.WriteCount(id="once", label="The time was logged exactly once", collection="worklogs", min=1, max=1),
                K.nc(K.created("worklogs", issue=i["key"]))],
        solution=[("jira.addWorklog", {"issueIdOrKey": i["key"], "timeSpent": duration(secs),
                                       "comment": adf("Pairing session")})],
        output=f"Logged {duration(secs)} on {i['key']}.",
    )


def ops_unblock(store) -> Setup:
    c = cast(store)
    i = c.role("ops_blocked")
    return Setup(
        instruction=f"The DNS change {i['key']} was waiting on has landed. Unblock it and let the team know in a comment.",
        checks=[K.field("unblocked", f"{i['key']} is In Progress", i["key"], "status", "In Progress", weight=2),
                C.RecordExists(id="commented", label=f"A comment on {i['key']}", collection="comments",
                               where={"issue": i["key"], "author": AGENT}),
                K.nc(K.issue_changed(i["key"]), K.created("comments", issue=i["key"]))],
        solution=[("jira.getTransitions", {"issueIdOrKey": i["key"]}),
                  ("jira.doTransition", {"issueIdOrKey": i["key"], "transition": {"id": "31"}}),
                  ("jira.addComment", {"issueIdOrKey": i["key"],
                                       "body": adf("The DNS change has landed, so this is unblocked and back in progress.")})],
        output=f"{i['key']} is back In Progress, with a comment for the team.",
    )


def ops_resolve(store) -> Setup:
    c = cast(store)
    i = c.role("ops_progress")
    return Setup(
        instruction=f"{i['key']} is fixed. Resolve it as Fixed and log 45m on it for the fix.",
        checks=[K.field("resolved", f"{i['key']} is Resolved", i["key"], "status", "Resolved"),
                K.field("fixed", f"{i['key']} is resolved as Fixed", i["key"], "resolution", "Fixed"),
                C.RecordExists(id="logged", label=f"45m logged on {i['key']}", collection="worklogs",
                               where={"issue": i["key"], "timeSpentSeconds": 2700}),
                K.nc(K.issue_changed(i["key"]), K.created("worklogs", issue=i["key"]))],
        solution=[("jira.getTransitions", {"issueIdOrKey": i["key"], **_FIELDS}),
                  ("jira.doTransition", {"issueIdOrKey": i["key"], "transition": {"id": "41"},
                                         "fields": {"resolution": {"name": "Fixed"}}}),
                  ("jira.addWorklog", {"issueIdOrKey": i["key"], "timeSpent": "45m"})],
        output=f"{i['key']} is Resolved as Fixed, with 45m logged.",
    )
