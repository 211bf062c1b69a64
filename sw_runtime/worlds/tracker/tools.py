"""Tracker's issue tools: Jira Cloud REST API v3's issue operations, by their
operation ids (``jira.getIssue``, ``jira.doTransition``...).

Each answers Jira's body; what Jira refuses is refused as ``ok: false`` data
carrying Jira's ``errorMessages``, ``errors`` and HTTP ``status`` (404 for an
issue the agent may not see, 400 for a field Jira rejects). The agent is the
account ``Kestrel Assistant``; ``currentUser()`` is that account. Transitions,
comments, the assignee, links and worklogs are in ``activity.py``, the
site's tools (server info, fields, projects, users, boards, sprints) in
``site.py``; ``TOOLS`` holds them all.
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from ..tool import tool
from . import rules as R, views as V
from .args import FieldList, IssueFields, Key, Ref, StartAt, Update, _S
from .activity import TOOLS as ACTIVITY
from .site import TOOLS as SITE_TOOLS
from .workflows import SPRINT

MaxResults = Annotated[int, Meta(ge=0, le=100, description="At most this many issues (default 50, max 100).")]


# -- search ----------------------------------------------------------------------------------------------------------


class SearchArgs(_S):
    jql: Annotated[str, Meta(max_length=4000, description='A JQL query, e.g. project = API AND status = "In '
                                                          'Progress" ORDER BY priority DESC.')] = ""
    startAt: StartAt = 0
    maxResults: MaxResults = 50
    fields: FieldList | None = None


@tool(writes=False, params=SearchArgs, name="jira.searchForIssuesUsingJql")
def search(ctx, args):
    """Search for issues using JQL (GET or POST /rest/api/3/search). Answers {startAt, maxResults, total, issues}
    with every field unless `fields` names some. JQL subset: AND, OR, NOT, parentheses; =, !=, ~, !~, >, >=, <,
    <=, IN, NOT IN, IS [NOT] EMPTY; currentUser(), openSprints(), futureSprints(), closedSprints(),
    releasedVersions(), unreleasedVersions(); ORDER BY field [ASC|DESC]. Fields: project, key, issuetype,
    status, statusCategory, resolution (Unresolved = empty), priority, assignee, reporter, watcher, labels,
    component, fixVersion, sprint, parent, summary, description, text, created, updated, resolved, "Story
    Points". As in Jira, != leaves out issues whose field is empty. Without ORDER BY, newest first. An invalid
    query answers 400."""
    found = R.search(ctx, args.jql)
    page = found[args.startAt:args.startAt + args.maxResults]
    want = R.field_list(args.fields) or ["*navigable"]
    return {"expand": "names,schema", "startAt": args.startAt, "maxResults": args.maxResults, "total": len(found),
            "issues": [_listed(ctx, i, want) for i in page]}


def _listed(ctx, i: dict, want: list) -> dict:
    view = V.issue(ctx.store, i, want, R.me())
    if "*navigable" in want:  # the search's default leaves out the comment and worklog lists
        view["fields"] = {k: v for k, v in view["fields"].items() if k not in ("comment", "worklog")}
    return view


class EnhancedArgs(_S):
    jql: Annotated[str, Meta(max_length=4000, description="A JQL query (as for jira.searchForIssuesUsingJql).")] = ""
    nextPageToken: Annotated[str, Meta(description="The token of the next page, from the previous answer.")] | None = None
    maxResults: MaxResults = 50
    fields: FieldList | None = None


@tool(writes=False, params=EnhancedArgs, name="jira.searchAndReconsileIssuesUsingJql")
def search_jql(ctx, args):
    """Search for issues using JQL with paging by token (GET or POST /rest/api/3/search/jql), Jira Cloud's
    successor of /search. Answers {issues, isLast, nextPageToken?}; each issue has only its id unless `fields`
    names some (*all for every field). The same JQL subset as jira.searchForIssuesUsingJql."""
    found = R.search(ctx, args.jql)
    start = int(args.nextPageToken[4:]) if args.nextPageToken and args.nextPageToken[4:].isdigit() else 0
    page = found[start:start + args.maxResults]
    want = R.field_list(args.fields) or ["id"]
    out = {"issues": [_listed(ctx, i, want) for i in page], "isLast": start + args.maxResults >= len(found)}
    if not out["isLast"]:
        out["nextPageToken"] = f"page{start + args.maxResults}"
    return out


# -- issues ----------------------------------------------------------------------------------------------------------


class IssueArgs(_S):
    issueIdOrKey: Key
    fields: FieldList | None = None


@tool(writes=False, params=IssueArgs, name="jira.getIssue", pure=True,
      reads=("issues", "projects", "sprints", "comments", "worklogs", "versions", "links", "users"))
def get_issue(ctx, args):
    """Get an issue (GET /rest/api/3/issue/{issueIdOrKey}): its fields (status, resolution, assignee, labels,
    components, fixVersions, parent, issuelinks, customfield_10016 Story Points, customfield_10020 Sprint,
    security, comment, worklog...). 404 when it does not exist or the agent may not see it."""
    return V.issue(ctx.store, R.visible(ctx.store, args.issueIdOrKey), R.field_list(args.fields), R.me())


class CreateArgs(_S):
    fields: IssueFields
    update: Update | None = None


@tool(writes=True, params=CreateArgs, name="jira.createIssue")
def create_issue(ctx, args):
    """Create an issue (POST /rest/api/3/issue) from `fields`: project, issuetype and summary are required; a
    Sub-task needs a parent, a story, task or bug may name its epic as parent. Answers 201 {id, key, self}."""
    f = args.fields
    p = R.project(ctx.store, f.project)
    itype = R.issuetype(f.issuetype)
    if not (f.summary or "").strip():
        raise V.refuse(400, summary="You must specify a summary of the issue.")
    parent = _parent(ctx, p, itype, f.parent)
    rec = _apply(ctx, p, {"assignee": None, "labels": [], "components": [], "fixVersions": [], "priority": "Medium",
                          "story_points": None, "sprint": None, "duedate": None, "description": None,
                          "reporter": R.me()}, f)
    number = p["counter"] + 1
    key = f"{p['key']}-{number}"
    iid = str(max([int(i["jira_id"]) for _, i in ctx.store.scan("issues")] + [10000]) + 1)
    at = R.now(ctx)
    ctx.store.update("projects", p["key"], {"counter": number})
    ctx.store.insert("issues", key, {
        "jira_id": iid, "key": key, "project": p["key"], "issuetype": itype, "summary": f.summary.strip(),
        "status": "Open" if p["workflow"] == "service" else "To Do", "resolution": None, "parent": parent,
        "security": None, "watchers": [R.me()], "created": at, "updated": at, "resolutiondate": None, **rec})
    return {"id": iid, "key": key, "self": f"{V.API3}/issue/{iid}"}


def _parent(ctx, p: dict, itype: str, ref) -> str | None:
    if ref is None:
        if itype == "Sub-task":
            raise V.refuse(400, parent="Given parent work item does not belong to appropriate hierarchy.")
        return None
    parent = R.visible(ctx.store, ref.key or ref.id)
    ok = parent["issuetype"] == "Epic" if itype in ("Story", "Task", "Bug") else (
        itype == "Sub-task" and parent["issuetype"] not in ("Epic", "Sub-task"))
    if not ok or parent["project"] != p["key"]:
        raise V.refuse(400, parent="Given parent work item does not belong to appropriate hierarchy.")
    return parent["key"]


def _apply(ctx, p: dict, rec: dict, f: IssueFields) -> dict:
    """The stored fields ``f`` sets, checked as Jira checks them, over ``rec``."""
    rec = dict(rec)
    if f.description is not None:
        rec["description"] = V.plain(f.description)
    if f.priority is not None:
        rec["priority"] = R.priority(f.priority)
    if f.labels is not None:
        rec["labels"] = R.labels(f.labels)
    if f.components is not None:
        rec["components"] = R.components(p, f.components)
    if f.fixVersions is not None:
        rec["fixVersions"] = R.versions(ctx.store, p["key"], f.fixVersions)
    if f.assignee is not None:
        rec["assignee"] = R.account(ctx.store, f.assignee)
    if f.reporter is not None:
        rec["reporter"] = R.account(ctx.store, f.reporter, "reporter") or rec["reporter"]
    if f.duedate is not None:
        rec["duedate"] = f.duedate
    if f.customfield_10016 is not None:
        rec["story_points"] = int(f.customfield_10016) if f.customfield_10016 == int(f.customfield_10016) else \
            f.customfield_10016
    if f.customfield_10020 is not None:
        s = ctx.store.get("sprints", str(f.customfield_10020))
        if s is None or s["state"] == "closed":
            raise V.refuse(400, **{SPRINT: f"Sprint with id {f.customfield_10020} does not exist or is closed."})
        rec["sprint"] = s["id"]
    return rec


class EditArgs(_S):
    issueIdOrKey: Key
    fields: IssueFields | None = None
    update: Update | None = None
    notifyUsers: bool = True


_LISTS = {"labels": "labels", "components": "components", "fixVersions": "fixVersions"}


@tool(writes=True, params=EditArgs, name="jira.editIssue")
def edit_issue(ctx, args):
    """Edit an issue (PUT /rest/api/3/issue/{issueIdOrKey}): `fields` sets values (summary, description, priority,
    labels, components, fixVersions, assignee, duedate, parent, customfield_10016 Story Points, customfield_10020
    Sprint); `update` adds or removes items of labels, components and fixVersions ({"labels": [{"add": "x"}]}).
    Status and resolution change only by a transition. Answers 204."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    p = ctx.store.get("projects", i["project"])
    f = args.fields or IssueFields()
    if f.project is not None or f.issuetype is not None:
        bad = "project" if f.project is not None else "issuetype"
        raise V.refuse(400, **{bad: f"Field '{bad}' cannot be set. It is not on the appropriate screen, or unknown."})
    rec = _apply(ctx, p, {k: i[k] for k in ("assignee", "labels", "components", "fixVersions", "priority",
                                             "story_points", "sprint", "duedate", "description", "reporter")}, f)
    if f.summary is not None:
        if not f.summary.strip():
            raise V.refuse(400, summary="You must specify a summary of the issue.")
        rec["summary"] = f.summary.strip()
    if f.parent is not None:
        rec["parent"] = _parent(ctx, p, i["issuetype"], f.parent)
    for name, ops in (args.update or {}).items():
        if name not in _LISTS:
            raise V.refuse(400, **{name: f"Field '{name}' cannot be set. It is not on the appropriate screen, or "
                                         "unknown."})
        rec[name] = _edit_list(ctx, p, name, rec[name], ops)
    ctx.store.update("issues", i["key"], {**rec, "updated": R.now(ctx)})
    return None


def _edit_list(ctx, p: dict, name: str, have: list, ops: list) -> list:
    def names(value) -> list:
        values = value if isinstance(value, list) else [value]
        if name == "labels":
            return R.labels([str(v) for v in values])
        refs = [Ref(**v) if isinstance(v, dict) else Ref(name=str(v)) for v in values]
        return R.components(p, refs) if name == "components" else R.versions(ctx.store, p["key"], refs)

    out = list(have)
    for op in ops:
        if op.set is not None:
            out = names(op.set)
        if op.add is not None:
            out += [n for n in names(op.add) if n not in out]
        if op.remove is not None:
            gone = names(op.remove)
            out = [n for n in out if n not in gone]
    return out


class DeleteArgs(_S):
    issueIdOrKey: Key
    deleteSubtasks: bool = False


@tool(writes=True, params=DeleteArgs, name="jira.deleteIssue")
def delete_issue(ctx, args):
    """Delete an issue (DELETE /rest/api/3/issue/{issueIdOrKey}) with its comments, worklogs and links. An issue
    with sub-tasks needs deleteSubtasks=true. This cannot be undone. Answers 204."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    subs = [s for _, s in ctx.store.scan("issues", {"parent": i["key"]}) if s["issuetype"] == "Sub-task"]
    if subs and not args.deleteSubtasks:
        raise V.refuse(400, "The issue has subtasks. Set deleteSubtasks to true to delete them too.")
    for gone in [i, *subs]:
        for coll in ("comments", "worklogs"):
            for rid, _ in ctx.store.scan(coll, {"issue": gone["key"]}):
                ctx.store.remove(coll, rid)
        for rid, link in ctx.store.scan("links"):
            if gone["key"] in (link["inward"], link["outward"]):
                ctx.store.remove("links", rid)
        ctx.store.remove("issues", gone["key"])
    return None


TOOLS = [search, search_jql, get_issue, create_issue, edit_issue, delete_issue, *ACTIVITY, *SITE_TOOLS]
