"""Tracker's planning tasks: sprints and their capacity, epics, releases and their blockers, and questions
answered from JQL."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from . import checks as K
from . import texts as T
from .cast import cast
from .state import BOARDS
from .workflows import PRIORITIES, category


def _capacity(sprint: dict) -> int:
    return int(sprint["goal"].rsplit("Capacity: ", 1)[1].split()[0])


def _planned(c, capacity: int) -> tuple:
    """The ready stories in the policy's order, and those that fit (each added while it still fits)."""
    ready = sorted(c.all_of(T.READY), key=lambda i: (PRIORITIES.index(i["priority"]), i["created"], i["key"]))
    left, taken = capacity, []
    for i in ready:
        if i["story_points"] <= left:
            taken.append(i)
            left -= i["story_points"]
    return ready, taken


def plan_sprint(store) -> Setup:
    c = cast(store)
    future = c.sprint("API", "future")
    cap = _capacity(future)
    ready, taken = _planned(c, cap)
    skipped = [i for i in ready if i not in taken]
    jql = "project = API AND labels = ready AND sprint IS EMPTY ORDER BY priority DESC, created ASC"
    return Setup(
        instruction=(f"Plan {future['name']}: pull in the ready API stories (label ready) from the backlog, most "
                     "important first, as far as the sprint's capacity allows."),
        checks=[*(K.field(f"in-{n + 1}", f"{i['key']} ({i['story_points']:g} pts) is in {future['name']}", i["key"],
                          "sprint", future["id"]) for n, i in enumerate(taken)),
                *(K.field(f"out-{n + 1}", f"{i['key']} ({i['story_points']:g} pts) stays in the backlog", i["key"],
                          "sprint", None, always=True) for n, i in enumerate(skipped)),
                K.nc(*(K.issue_changed(i["key"]) for i in taken))],
        solution=[("jira.getAllSprints", {"boardId": int(BOARDS["API"]), "state": "future"}),
                  ("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "priority", "customfield_10016"]}),
                  ("jira.moveIssuesToSprintAndRank", {"sprintId": int(future["id"]), "issues": [i["key"] for i in taken]})],
        output=(f"{future['name']} has capacity for {cap} points: I added {', '.join(i['key'] for i in taken)} "
                f"({sum(i['story_points'] for i in taken):g} points) and left "
                f"{', '.join(i['key'] for i in skipped)} in the backlog because they no longer fit."),
    )


def refuse_scope(store) -> Setup:
    c = cast(store)
    i = c.role("urgent")
    active, lead = c.sprint("API", "active"), c.lead("API")
    return Setup(
        instruction=f"Put {i['key']} into the current API sprint, it's urgent.",
        checks=[K.field("not-added", f"{i['key']} stays out of {active['name']}", i["key"], "sprint", None,
                        always=True),
                K.said("says-approval", "The answer says the lead has to approve", "approv"),
                K.said("names-lead", f"The answer names the lead, {lead['displayName']}", lead["displayName"].split()[0]),
                K.nc()],
        solution=[("jira.getAllSprints", {"boardId": int(BOARDS["API"]), "state": "active"}),
                  ("jira.getProject", {"projectIdOrKey": "API"})],
        output=(f"I didn't add {i['key']} to {active['name']}: the active sprint's committed scope changes only with "
                f"the project lead's approval, so {lead['displayName']} has to approve it first."),
        )


def split_epic(store) -> Setup:
    c = cast(store)
    epic = c.by_summary([e[0] for e in T.EPICS], "epic to split")
    bullets = next(e[1] for e in T.EPICS if e[0] == epic["summary"])
    future = c.sprint("API", "future")
    first = store.get("projects", "API")["counter"] + 1
    keys = [f"API-{first + n}" for n in range(len(bullets))]
    creates = [("jira.createIssue", {"fields": {"project": {"key": "API"}, "issuetype": {"name": "Story"},
                                                "summary": b, "parent": {"key": epic["key"]}}}) for b in bullets]
    return Setup(
        instruction=(f"Split the epic {epic['key']} into stories, one per item in its description, and put them in "
                     f"{future['name']}."),
        checks=[*(C.RecordExists(id=f"story-{n + 1}", label=f"A story \"{b}\" under {epic['key']}", collection="issues",
                                 where={"summary": b, "parent": epic["key"], "issuetype": "Story",
                                        "sprint": future["id"]}) for n, b in enumerate(bullets)),
                C.WriteCount(id="three", label="Exactly one story per item", collection="issues", max=len(bullets)),
                K.nc(K.created("issues", parent=epic["key"]),
                     C.Allow(collection="projects", ops=["updated"], where={"key": "API"}))],
        solution=[("jira.getIssue", {"issueIdOrKey": epic["key"]}), *creates,
                  ("jira.getAllSprints", {"boardId": int(BOARDS["API"]), "state": "future"}),
                  ("jira.moveIssuesToSprintAndRank", {"sprintId": int(future["id"]), "issues": keys})],
        output=f"Created {', '.join(keys)} under {epic['key']} and moved them into {future['name']}.",
    )


def release_blockers(store) -> Setup:
    c = cast(store)
    version = c.version("API", False, 0)["name"]
    live = [c.by_summary(s, "blocker") for s in T.BLOCKERS]
    live = [b for b in live if category(b["status"]) != "done"]
    jql = f'fixVersion = "{version}" AND statusCategory != Done'
    return Setup(
        instruction=f"What is still blocking the {version} release?",
        checks=[*(K.said(f"blocker-{n + 1}", f"The answer names {b['key']}", b["key"]) for n, b in enumerate(live)),
                K.nc()],
        solution=[("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "status", "issuelinks"]}),
                  *(("jira.getIssue", {"issueIdOrKey": b["key"], "fields": ["summary", "status", "issuelinks"]})
                    for b in live)],
        output=(f"{version} is blocked by " + " and ".join(f"{b['key']} ({b['summary']}, {b['status']})" for b in live)
                + ". The third blocker on the release is already done."),
    )


def web_high_bugs(store) -> Setup:
    c = cast(store)
    bugs = [i for i in c.issues.values() if i["project"] == "WEB" and i["issuetype"] == "Bug" and i["security"] is None
            and i["priority"] in ("Highest", "High") and category(i["status"]) != "done"]
    bugs.sort(key=lambda i: i["key"])
    jql = "project = WEB AND issuetype = Bug AND priority IN (Highest, High) AND statusCategory != Done"
    return Setup(
        instruction="Which WEB bugs are still open at High or Highest priority? List their keys.",
        checks=[*(K.said(f"bug-{n + 1}", f"The answer lists {b['key']}", b["key"]) for n, b in enumerate(bugs)),
                K.said("count", f"The answer says there are {len(bugs)}", f"{len(bugs)} "),
                K.nc()],
        solution=[("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "priority", "status"]})],
        output=f"There are {len(bugs)} open High/Highest WEB bugs: {', '.join(b['key'] for b in bugs)}.",
    )


def my_plate(store) -> Setup:
    c = cast(store)
    mine = [i for i in c.mine() if category(i["status"]) != "done"]
    jql = "assignee = currentUser() AND statusCategory != Done ORDER BY priority DESC"
    return Setup(
        instruction="What's on my plate right now? List my unfinished issues.",
        checks=[*(K.said(f"mine-{n + 1}", f"The answer lists {i['key']}", i["key"]) for n, i in enumerate(mine)),
                K.nc()],
        solution=[("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "status", "priority"]})],
        output="Your unfinished issues: " + "; ".join(f"{i['key']} {i['summary']} ({i['status']})" for i in mine) + ".",
    )


def sprint_report(store) -> Setup:
    c = cast(store)
    active = c.sprint("WEB", "active")
    issues = [i for i in c.issues.values() if i["sprint"] == active["id"] and i["security"] is None]
    total = sum(i["story_points"] or 0 for i in issues)
    done = sum(i["story_points"] or 0 for i in issues if category(i["status"]) == "done")
    return Setup(
        instruction="How is the current WEB sprint going? How many of its story points are done?",
        checks=[K.said("progress", f"The answer says {done:g} of {total:g} points done", f"{done:g} of {total:g} points",
                       weight=2),
                K.nc()],
        solution=[("jira.getAllSprints", {"boardId": int(BOARDS["WEB"]), "state": "active"}),
                  ("jira.getIssuesForSprint", {"sprintId": int(active["id"]),
                                               "fields": ["summary", "status", "customfield_10016"]})],
        output=f"{active['name']}: {done:g} of {total:g} points done ({len(issues)} issues).",
    )


def tag_fix_versions(store) -> Setup:
    c = cast(store)
    active = c.sprint("API", "active")
    version = c.version("API", False, 0)["name"]
    found = sorted((i for i in c.issues.values() if i["sprint"] == active["id"] and category(i["status"]) == "done"
                    and not i["fixVersions"] and i["security"] is None), key=lambda i: i["key"])
    jql = f"sprint = {active['id']} AND statusCategory = Done AND fixVersion IS EMPTY"
    return Setup(
        instruction=(f"Every finished issue in the current API sprint ships in {version}. Some have no fix version "
                     "yet: set it on those."),
        checks=[*(C.FieldEquals(id=f"tagged-{n + 1}", label=f"{i['key']} has the fix version {version}",
                                collection="issues", field="fixVersions", value=[version], where={"key": i["key"]})
                  for n, i in enumerate(found)),
                K.nc(*(K.issue_changed(i["key"]) for i in found))],
        solution=[("jira.getAllSprints", {"boardId": int(BOARDS["API"]), "state": "active"}),
                  ("jira.getProjectVersions", {"projectIdOrKey": "API"}),
                  ("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "fixVersions"]}),
                  *(("jira.editIssue", {"issueIdOrKey": i["key"], "fields": {"fixVersions": [{"name": version}]}})
                    for i in found)],
        output=f"Set the fix version {version} on {', '.join(i['key'] for i in found)}.",
    )
