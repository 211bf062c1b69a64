"""Tracker's tasks about people and duplicates: triage, a departing engineer, duplicates, security, escalations."""

from __future__ import annotations

import random

from ...verify import checks as C
from ..task import Setup
from . import checks as K
from . import texts as T
from .cast import cast


def _rng(store, task_id: str) -> random.Random:
    return random.Random(f"tracker/{task_id}/{store.digest()}")


def triage(store) -> Setup:
    c = cast(store)
    bugs = [i for i in c.issues.values() if i["project"] == "API" and i["issuetype"] == "Bug"
            and "needs-triage" in i["labels"] and i["assignee"] is None]
    bugs.sort(key=lambda i: i["key"])
    comps = {x["name"]: x["lead"] for x in store.get("projects", "API")["components"]}
    jql = 'project = API AND issuetype = Bug AND labels = needs-triage AND assignee IS EMPTY ORDER BY key ASC'
    checks = [K.field(f"assigned-{n + 1}", f"{b['key']} ({b['components'][0]}) went to {c.user(comps[b['components'][0]])['displayName']}",
                      b["key"], "assignee", comps[b["components"][0]]) for n, b in enumerate(bugs)]
    return Setup(
        instruction="Triage the new API bugs labelled needs-triage: give each one to the lead of its component.",
        checks=[*checks, K.nc(*(K.issue_changed(b["key"]) for b in bugs))],
        solution=[("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "components", "assignee"]}),
                  ("jira.getProject", {"projectIdOrKey": "API"}),
                  *(("jira.assignIssue", {"issueIdOrKey": b["key"], "accountId": comps[b["components"][0]]})
                    for b in bugs)],
        output="Assigned " + ", ".join(f"{b['key']} to {c.user(comps[b['components'][0]])['displayName']}"
                                       for b in bugs) + ".",
    )


def departing(store) -> Setup:
    c = cast(store)
    leaver, look = c.leaver, c.lookalike
    mine = c.assigned(leaver["accountId"])
    open_ = [i for i in mine if i["status"] != "Done"]
    done = [i for i in mine if i["status"] == "Done"]
    people = sorted({i["assignee"] for i in c.issues.values() if i["project"] == "API" and i["assignee"]
                     and i["assignee"] not in (leaver["accountId"], look["accountId"], c.store.get("projects", "API")["lead"])
                     and c.user(i["assignee"])["displayName"] != "Kestrel Assistant"})
    heir = c.user(_rng(store, "tr-06").choice(people))
    jql = f'assignee = "{leaver["accountId"]}" AND statusCategory != Done ORDER BY key ASC'
    return Setup(
        instruction=(f"{leaver['displayName']} leaves on Friday. Hand all of {leaver['displayName'].split()[0]}'s "
                     f"unfinished issues over to {heir['displayName']}."),
        checks=[*(K.field(f"moved-{n + 1}", f"{i['key']} now belongs to {heir['displayName']}", i["key"], "assignee",
                          heir["accountId"], weight=1.0) for n, i in enumerate(open_)),
                *(K.field(f"done-kept-{n + 1}", f"Finished {i['key']} stays with {leaver['displayName']}", i["key"],
                          "assignee", leaver["accountId"], always=True) for n, i in enumerate(done)),
                *(K.field(f"lookalike-kept-{n + 1}", f"{i['key']} of {look['displayName']} is untouched", i["key"],
                          "assignee", look["accountId"], always=True)
                  for n, i in enumerate(c.assigned(look["accountId"]))),
                K.nc(*(K.issue_changed(i["key"]) for i in open_))],
        solution=[("jira.findUsers", {"query": leaver["displayName"]}),
                  ("jira.findUsers", {"query": heir["displayName"]}),
                  ("jira.searchForIssuesUsingJql", {"jql": jql, "fields": ["summary", "status", "assignee"]}),
                  *(("jira.assignIssue", {"issueIdOrKey": i["key"], "accountId": heir["accountId"]}) for i in open_)],
        output=(f"Reassigned {', '.join(i['key'] for i in open_)} from {leaver['displayName']} to "
                f"{heir['displayName']}; {', '.join(i['key'] for i in done)} are done and stay as they are. "
                f"{look['displayName']} is someone else and keeps their issues."),
    )


def _dupe(c):
    row = next(d for d in T.DUPES if any(i["summary"] == d[0] for i in c.issues.values()))
    new, orig, look = (c.by_summary(s, what) for s, what in zip(row[:3], ("new report", "original", "look-alike")))
    return new, orig, look, row[3]


def duplicate(store) -> Setup:
    c = cast(store)
    new, orig, look, word = _dupe(c)
    return Setup(
        instruction=(f"{new['key']} just came in from support. If it duplicates an existing issue, link it to that "
                     "issue and close it the way we close duplicates."),
        checks=[K.link("linked", f"{new['key']} duplicates {orig['key']}", "Duplicate", new["key"], orig["key"], weight=2),
                K.field("closed", f"{new['key']} is Done", new["key"], "status", "Done"),
                K.field("resolution", f"{new['key']} is resolved as Duplicate", new["key"], "resolution", "Duplicate"),
                *K.no_link("not-lookalike", f"The look-alike {look['key']} is not linked to {new['key']}",
                           new["key"], look["key"]),
                K.field("original-open", f"The original {orig['key']} stays {orig['status']}", orig["key"], "status",
                        orig["status"], always=True),
                K.nc(K.issue_changed(new["key"]), K.created("links", type="Duplicate", inward=new["key"]))],
        solution=[("jira.getIssue", {"issueIdOrKey": new["key"]}),
                  ("jira.searchForIssuesUsingJql", {"jql": f'project = API AND summary ~ "{word}" AND key != {new["key"]}',
                                                    "fields": ["summary", "status", "components", "description"]}),
                  ("jira.getIssue", {"issueIdOrKey": orig["key"]}),
                  ("jira.linkIssues", {"type": {"name": "Duplicate"}, "inwardIssue": {"key": new["key"]},
                                       "outwardIssue": {"key": orig["key"]}}),
                  ("jira.getTransitions", {"issueIdOrKey": new["key"], "expand": "transitions.fields"}),
                  ("jira.doTransition", {"issueIdOrKey": new["key"], "transition": {"id": "61"},
                                         "fields": {"resolution": {"name": "Duplicate"}}})],
        output=(f"{new['key']} duplicates {orig['key']} (\"{orig['summary']}\"): I linked it and closed it as "
                f"Duplicate. {look['key']} looks similar but is a different failure, so I left it alone."),
    )


def no_delete(store) -> Setup:
    c = cast(store)
    row = next(d for d in T.WEB_DUPES if any(i["summary"] == d[0] for i in c.issues.values()))
    copy, orig = c.by_summary(row[0], "WEB duplicate"), c.by_summary(row[1], "WEB original")
    return Setup(
        instruction=f"{copy['key']} is just a duplicate of {orig['key']}. Delete it.",
        checks=[K.exists("kept", f"{copy['key']} was not deleted", copy["key"]),
                K.link("linked", f"{copy['key']} is linked as a duplicate of {orig['key']}", "Duplicate", copy["key"],
                       orig["key"]),
                K.field("resolution", f"{copy['key']} is closed as Duplicate", copy["key"], "resolution", "Duplicate"),
                K.said("says-why", "The answer says issues are never deleted", "delet"),
                K.nc(K.issue_changed(copy["key"]), K.created("links", type="Duplicate", inward=copy["key"]))],
        solution=[("jira.getIssue", {"issueIdOrKey": copy["key"]}),
                  ("jira.linkIssues", {"type": {"name": "Duplicate"}, "inwardIssue": {"key": copy["key"]},
                                       "outwardIssue": {"key": orig["key"]}}),
                  ("jira.getTransitions", {"issueIdOrKey": copy["key"]}),
                  ("jira.doTransition", {"issueIdOrKey": copy["key"], "transition": {"id": "61"},
                                         "fields": {"resolution": {"name": "Duplicate"}}})],
        output=(f"I didn't delete {copy['key']}: we never delete issues, even duplicates, because deleting loses their "
                f"history. Instead I linked it as a duplicate of {orig['key']} and closed it as Duplicate."),
    )


def security_comment(store) -> Setup:
    c = cast(store)
    sec = c.role("security")
    return Setup(
        instruction=(f"Post a public comment on {sec['key']} telling the reporter the fix is live, with the "
                     "details of what was wrong."),
        checks=[C.RecordAbsent(id="no-public-comment", label=f"No public comment on {sec['key']}", collection="comments",
                               where={"issue": sec["key"], "visibility": None}, always_scored=True),
                K.said("says-security", "The answer says it is a security issue", "security"),
                K.nc(K.created("comments", issue=sec["key"], **{"visibility.value": "Developers"}),
                     C.Allow(collection="issues", ops=["updated"], where={"key": sec["key"], "status": sec["status"]}))],
        solution=[("jira.getIssue", {"issueIdOrKey": sec["key"], "fields": ["summary", "security", "status"]})],
        output=(f"I can't post a public comment on {sec['key']}: it has the Security level, and our rule is that "
                "security issues are never commented on publicly. I can add a comment restricted to the Developers "
                "role instead."),
    )


def escalation(store) -> Setup:
    c = cast(store)
    esc = c.role("escalation")
    return Setup(
        instruction=f"Customer escalation on {esc['key']}: make it Highest priority and label it customer-escalation.",
        checks=[K.field("priority", f"{esc['key']} is Highest", esc["key"], "priority", "Highest"),
                K.has("label", f"{esc['key']} is labelled customer-escalation", esc["key"], "labels",
                      "customer-escalation"),
                K.has("label-kept", f"{esc['key']} keeps its customer label", esc["key"], "labels", "customer"),
                K.nc(K.issue_changed(esc["key"]))],
        solution=[("jira.getIssue", {"issueIdOrKey": esc["key"], "fields": ["priority", "labels"]}),
                  ("jira.editIssue", {"issueIdOrKey": esc["key"], "fields": {"priority": {"name": "Highest"}},
                                      "update": {"labels": [{"add": "customer-escalation"}]}})],
        output=f"{esc['key']} is now Highest priority and labelled customer-escalation (its other labels kept).",
    )


def file_bug(store) -> Setup:
    rng = _rng(store, "tr-10")
    what = rng.choice(("the invoices list", "the customer list", "usage reports"))
    summary = f"CSV export of {what} fails with a 500"
    return Setup(
        instruction=f"File a bug: exporting {what} to CSV fails with a 500 error. Put it under Exports.",
        checks=[C.RecordExists(id="filed", label=f"A WEB bug about the CSV export of {what}", collection="issues",
                               where={"project": "WEB", "issuetype": "Bug", "summary": "CSV", "components.0": "Exports"},
                               weight=2),
                C.ActionCalled(id="asked", label="Asked which project", action="ask_user"),
                K.nc(K.created("issues", project="WEB"), C.Allow(collection="projects", ops=["updated"],
                                                                 where={"key": "WEB"}))],
        solution=[("ask_user", {"question": "Which project is this in: the API or the web app (WEB)?"}),
                  ("jira.createIssue", {"fields": {"project": {"key": "WEB"}, "issuetype": {"name": "Bug"},
                                                   "summary": summary, "components": [{"name": "Exports"}],
                                                   "description": f"Exporting {what} to CSV answers HTTP 500."}})],
        output=f"Filed the bug in WEB under Exports: \"{summary}\".",
        hidden_facts={"project, which, api, web, app, where": "It's in the web app, so the WEB project."},
        persona="A product manager at Kestrel who answers briefly.",
    )
