"""Tracker's issue tools: Jira Cloud REST API v3's issue operations, by their
operation ids (``jira.getIssue``, ``jira.doTransition``...).

Each answers Jira's body; what Jira refuses is refused as ``ok: false`` data
carrying Jira's ``errorMessages``, ``errors`` and HTTP ``status`` (404 for an
issue the agent may not see, 400 for a field Jira rejects). The agent is the
account ``Kestrel Assistant``; ``currentUser()`` is that account. The site's
tools (server info, fields, projects, users, boards, sprints) are in
``site.py``; ``TOOLS`` holds both.
"""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from ..tool import tool
from . import rules as R, views as V
from .args import Doc, FieldList, Id, IssueFields, Key, Ref, StartAt, Text, Update, Visibility, _S
from .site import TOOLS as SITE_TOOLS
from .workflows import LINK_TYPES, SPRINT

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
    <=, IN, NOT IN, IS [NOT] EMPTY; currentUser(), openSprints(), futureSprints(), closedSprints(); ORDER BY
    field [ASC|DESC]. Fields: project, key, issuetype, status, statusCategory, resolution, priority, assignee,
    reporter, labels, component, fixVersion, sprint, parent, summary, description, text, created, updated,
    resolved, "Story Points". Without ORDER BY, newest first. An invalid query answers 400."""
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


@tool(writes=False, params=IssueArgs, name="jira.getIssue")
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


# -- transitions -----------------------------------------------------------------------------------------------------


class TransitionsArgs(_S):
    issueIdOrKey: Key
    expand: Annotated[str, Meta(description="transitions.fields: also the fields each transition's screen takes.")] | None = None
    transitionId: Annotated[str, Meta(description="Only this transition.")] | None = None


@tool(writes=False, params=TransitionsArgs, name="jira.getTransitions")
def get_transitions(ctx, args):
    """Get the transitions the issue can take now (GET /rest/api/3/issue/{issueIdOrKey}/transitions): each with its
    id, name and target status; with expand=transitions.fields, the fields its screen takes and whether each is
    required. A transition whose condition is not met (Start Progress needs an assignee) is not listed."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    out = []
    for t in R.available(ctx.store, i):
        if args.transitionId is not None and str(args.transitionId) != t.id:
            continue
        row = {"id": t.id, "name": t.name, "to": V.status(t.to), "hasScreen": bool(t.required or t.optional),
               "isGlobal": len(t.sources) > 1, "isInitial": False, "isAvailable": True, "isConditional": t.needs_assignee,
               "isLooped": False}
        if "transitions.fields" in (args.expand or ""):
            row["fields"] = {name: _screen_field(ctx, i, name, name in t.required) for name in (*t.required, *t.optional)}
        out.append(row)
    return {"expand": "transitions", "transitions": out}


def _screen_field(ctx, i: dict, name: str, required: bool) -> dict:
    if name == "resolution":
        allowed = [V.resolution(n) for n in ("Done", "Fixed", "Won't Do", "Duplicate", "Cannot Reproduce")]
        return {"required": required, "schema": {"type": "resolution", "system": "resolution"}, "name": "Resolution",
                "key": "resolution", "hasDefaultValue": False, "operations": ["set"], "allowedValues": allowed}
    allowed = [V.version(v) for _, v in ctx.store.scan("versions", {"project": i["project"]})]
    return {"required": required, "schema": {"type": "array", "items": "version", "system": "fixVersions"},
            "name": "Fix versions", "key": "fixVersions", "hasDefaultValue": False, "operations": ["set", "add", "remove"],
            "allowedValues": allowed}


class TransitionRef(_S):
    id: Annotated[Id, Meta(description="The transition's id, from jira.getTransitions.")]


class DoTransitionArgs(_S):
    issueIdOrKey: Key
    transition: TransitionRef
    fields: Annotated[dict[str, Any], Meta(description='The screen\'s fields: {"resolution": {"name": "Fixed"}, '
                                                       '"fixVersions": [{"name": "2.14.0"}]}.')] | None = None
    update: Annotated[dict[str, list[dict[str, Any]]],
                      Meta(description='Also add a comment or worklog: {"comment": [{"add": {"body": "..."}}], '
                                       '"worklog": [{"add": {"timeSpent": "1h"}}]}.')] | None = None


@tool(writes=True, params=DoTransitionArgs, name="jira.doTransition")
def do_transition(ctx, args):
    """Transition an issue (POST /rest/api/3/issue/{issueIdOrKey}/transitions) by the id of one of the transitions
    jira.getTransitions lists, with the fields its screen requires (a resolution to Done or Resolve) and, in
    `update`, a comment or worklog to add. Answers 204; 400 for a transition the issue cannot take now or a
    missing required field."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    t = next((t for t in R.available(ctx.store, i) if t.id == str(args.transition.id)), None)
    if t is None:
        raise V.refuse(400, f"Transition id '{args.transition.id}' is not valid for this issue.")
    given = dict(args.fields or {})
    change = {"status": t.to, "updated": R.now(ctx)}
    for name in given:
        if name not in (*t.required, *t.optional):
            raise V.refuse(400, **{name: f"Field '{name}' cannot be set. It is not on the appropriate screen, or "
                                         "unknown."})
    for name in t.required:
        if not given.get(name):
            raise V.refuse(400, **{name: f"{name.capitalize()} is required."})
    if "resolution" in given:
        change["resolution"] = R.resolution(_ref(given["resolution"], "resolution"))
    if "fixVersions" in given:
        refs = [_ref(v, "fixVersions") for v in (given["fixVersions"] or [])]
        change["fixVersions"] = R.versions(ctx.store, i["project"], refs)
    for name in t.clears:
        change[name] = None
    change["resolutiondate"] = change["updated"] if "resolution" in change else (None if t.clears else i["resolutiondate"])
    extras = _transition_updates(ctx, i, args.update or {})
    ctx.store.update("issues", i["key"], change)
    for coll, rec in extras:
        ctx.store.insert(coll, rec["id"], rec)
    return None


def _ref(value, field: str) -> Ref:
    if isinstance(value, dict) and set(value) <= {"name", "id", "key"}:
        return Ref(**value)
    raise V.refuse(400, **{field: f"Could not read the value of {field}: send {{\"name\": ...}} or {{\"id\": ...}}."})


def _transition_updates(ctx, i: dict, update: dict) -> list:
    """The comment and worklog a transition's ``update`` adds (checked before anything is written)."""
    out, n = [], 0
    for name, ops in update.items():
        if name not in ("comment", "worklog"):
            raise V.refuse(400, **{name: f"Field '{name}' cannot be set. It is not on the appropriate screen, or "
                                         "unknown."})
        for op in ops:
            add = op.get("add") if isinstance(op, dict) else None
            if not isinstance(add, dict):
                raise V.refuse(400, **{name: "Operation must be {\"add\": {...}}."})
            n += 1
            if name == "comment":
                out.append(("comments", _comment(ctx, i, add.get("body"), add.get("visibility"), n)))
            else:
                out.append(("worklogs", _worklog(ctx, i, add.get("timeSpent"), add.get("timeSpentSeconds"),
                                                 add.get("started"), add.get("comment"), n)))
    return out


# -- comments, assignee, links, worklogs -----------------------------------------------------------------------------


class PageArgs(_S):
    issueIdOrKey: Key
    startAt: StartAt = 0
    maxResults: Annotated[int, Meta(ge=0, le=5000, description="At most this many (default 5000).")] = 5000


@tool(writes=False, params=PageArgs, name="jira.getComments")
def get_comments(ctx, args):
    """Get an issue's comments, oldest first (GET /rest/api/3/issue/{issueIdOrKey}/comment)."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    rows = [V.comment(ctx.store, c) for _, c in ctx.store.scan("comments", {"issue": i["key"]})]
    return {"startAt": args.startAt, "maxResults": args.maxResults, "total": len(rows),
            "comments": rows[args.startAt:args.startAt + args.maxResults]}


class CommentArgs(_S):
    issueIdOrKey: Key
    body: Doc
    visibility: Annotated[Visibility, Meta(description="Restrict who sees it, e.g. {type: role, value: "
                                                       "Developers}; without it the comment is public.")] | None = None


def _comment(ctx, i: dict, body, visibility, n: int = 1) -> dict:
    text = V.plain(body).strip() if isinstance(body, (dict, str)) else ""
    if not text:
        raise V.refuse(400, comment="Comment body can not be empty!")
    if visibility is not None:
        vis = visibility if isinstance(visibility, dict) else {"type": visibility.type, "value": visibility.value}
        if vis.get("type") not in ("role", "group") or not vis.get("value"):
            raise V.refuse(400, visibility="Visibility type must be role or group, with a value.")
        visibility = {"type": vis["type"], "value": vis["value"]}
    cid = str(max([int(r) for r in ctx.store.ids("comments")] + [20000]) + n)
    return {"id": cid, "issue": i["key"], "author": R.me(), "body": text, "visibility": visibility,
            "created": R.now(ctx)}


@tool(writes=True, params=CommentArgs, name="jira.addComment")
def add_comment(ctx, args):
    """Add a comment (POST /rest/api/3/issue/{issueIdOrKey}/comment): body in ADF or plain text; without
    `visibility` everyone who can see the issue sees it. Answers 201 with the comment."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    rec = _comment(ctx, i, args.body, args.visibility)
    ctx.store.insert("comments", rec["id"], rec)
    ctx.store.update("issues", i["key"], {"updated": rec["created"]})
    return V.comment(ctx.store, rec)


class AssignArgs(_S):
    issueIdOrKey: Key
    accountId: Annotated[str, Meta(description="The assignee's account id; null unassigns, -1 gives the project's "
                                               "default assignee.")] | None = None


@tool(writes=True, params=AssignArgs, name="jira.assignIssue")
def assign_issue(ctx, args):
    """Assign an issue (PUT /rest/api/3/issue/{issueIdOrKey}/assignee). Answers 204."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    who = args.accountId
    if who == "-1":
        who = ctx.store.get("projects", i["project"])["lead"]
    elif who is not None and ctx.store.get("users", who) is None:
        raise V.refuse(404, f"User with accountId '{who}' does not exist")
    ctx.store.update("issues", i["key"], {"assignee": who, "updated": R.now(ctx)})
    return None


class LinkComment(_S):
    body: Text
    visibility: Visibility | None = None


class LinkArgs(_S):
    type: Annotated[Ref, Meta(description="Blocks, Duplicate or Relates: {name} or {id}.")]
    inwardIssue: Annotated[Ref, Meta(description="{key}: the issue that blocks / duplicates / relates to the other.")]
    outwardIssue: Annotated[Ref, Meta(description="{key}: the issue that is blocked / duplicated by the first.")]
    comment: LinkComment | None = None


@tool(writes=True, params=LinkArgs, name="jira.linkIssues")
def link_issues(ctx, args):
    """Link two issues (POST /rest/api/3/issueLink). The link reads "inwardIssue <outward> outwardIssue": with type
    Duplicate, inwardIssue duplicates outwardIssue; with Blocks, inwardIssue blocks outwardIssue. Answers 201."""
    kind = next((n for n, (tid, _, _) in LINK_TYPES.items()
                 if (args.type.name or "").lower() == n.lower() or str(args.type.id or "") == tid), None)
    if kind is None:
        raise V.refuse(404, f"No issue link type with name '{args.type.name or args.type.id}' found.")
    a = R.visible(ctx.store, args.inwardIssue.key or args.inwardIssue.id)
    b = R.visible(ctx.store, args.outwardIssue.key or args.outwardIssue.id)
    if a["key"] == b["key"]:
        raise V.refuse(400, "You cannot link an issue to itself.")
    note = _comment(ctx, a, args.comment.body, args.comment.visibility) if args.comment else None
    if not any(l["type"] == kind and l["inward"] == a["key"] and l["outward"] == b["key"]
               for _, l in ctx.store.scan("links")):
        lid = str(max([int(r) for r in ctx.store.ids("links")] + [20000]) + 1)
        ctx.store.insert("links", lid, {"id": lid, "type": kind, "inward": a["key"], "outward": b["key"]})
    if note:
        ctx.store.insert("comments", note["id"], note)
    return None


@tool(writes=False, params=PageArgs, name="jira.getIssueWorklog")
def get_worklog(ctx, args):
    """Get an issue's worklogs, oldest first (GET /rest/api/3/issue/{issueIdOrKey}/worklog)."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    rows = [V.worklog(ctx.store, w) for _, w in ctx.store.scan("worklogs", {"issue": i["key"]})]
    return {"startAt": args.startAt, "maxResults": args.maxResults, "total": len(rows),
            "worklogs": rows[args.startAt:args.startAt + args.maxResults]}


class WorklogArgs(_S):
    issueIdOrKey: Key
    timeSpent: Annotated[str, Meta(max_length=40, description='Time spent in Jira\'s format: "3h 30m", "1d", "45m" '
                                                              '(a day is 8 hours, a week 5 days).')] | None = None
    timeSpentSeconds: Annotated[int, Meta(ge=60, le=10_000_000)] | None = None
    started: Annotated[str, Meta(description="When the work started, e.g. 2026-06-15T09:00:00.000+0000; default "
                                             "now.")] | None = None
    comment: Doc | None = None


def _seconds(text: str) -> int:
    total = 0
    for part in (text or "").split():
        size = {"w": 5 * 8 * 3600, "d": 8 * 3600, "h": 3600, "m": 60}.get(part[-1:].lower())
        if size is None or not part[:-1].replace(".", "", 1).isdigit():
            raise V.refuse(400, timeLogged="Invalid time duration entered.")
        total += int(float(part[:-1]) * size)
    return total


def _worklog(ctx, i: dict, spent, spent_seconds, started, comment, n: int = 1) -> dict:
    secs = spent_seconds if spent_seconds else _seconds(spent) if spent else 0
    if secs < 60:
        raise V.refuse(400, timeLogged="You must indicate the time spent working.")
    wid = str(max([int(r) for r in ctx.store.ids("worklogs")] + [20000]) + n)
    return {"id": wid, "issue": i["key"], "author": R.me(), "timeSpentSeconds": secs, "started": started or R.now(ctx),
            "comment": V.plain(comment) if comment else None, "created": R.now(ctx)}


@tool(writes=True, params=WorklogArgs, name="jira.addWorklog")
def add_worklog(ctx, args):
    """Log work on an issue as the agent (POST /rest/api/3/issue/{issueIdOrKey}/worklog): timeSpent ("2h 30m") or
    timeSpentSeconds, when it started, a comment. Answers 201 with the worklog."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    rec = _worklog(ctx, i, args.timeSpent, args.timeSpentSeconds, args.started, args.comment)
    ctx.store.insert("worklogs", rec["id"], rec)
    return V.worklog(ctx.store, rec)


TOOLS = [search, search_jql, get_issue, create_issue, edit_issue, delete_issue, get_transitions, do_transition,
         get_comments, add_comment, assign_issue, link_issues, get_worklog, add_worklog, *SITE_TOOLS]
