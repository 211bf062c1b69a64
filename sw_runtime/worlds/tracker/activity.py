"""Tracker's tools that move an issue along and record work on it: transitions (read first, then made
with the fields their screen requires), comments, the assignee, links and worklogs, by Jira REST API
v3's operation ids."""

from __future__ import annotations

from typing import Annotated, Any

from msgspec import Meta

from ..tool import tool
from . import rules as R, views as V
from .args import Doc, Id, Key, Ref, StartAt, Text, Visibility, _S
from .watchers import TOOLS as WATCHERS
from .workflows import LINK_TYPES


# -- transitions -----------------------------------------------------------------------------------------------------


class TransitionsArgs(_S):
    issueIdOrKey: Key
    expand: Annotated[str, Meta(description="transitions.fields: also the fields each transition's screen takes.")] | None = None
    transitionId: Annotated[str, Meta(description="Only this transition.")] | None = None


@tool(writes=False, params=TransitionsArgs, name="jira.getTransitions", pure=True,
      reads=("issues", "projects", "versions"))
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
    p = ctx.store.get("projects", i["project"])
    allowed = [V.version(v, p) for _, v in ctx.store.scan("versions", {"project": i["project"]})]
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


@tool(writes=False, params=PageArgs, name="jira.getComments", pure=True, reads=("issues", "comments", "users"))
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


@tool(writes=False, params=PageArgs, name="jira.getIssueWorklog", pure=True,
      reads=("issues", "worklogs", "users"))
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


TOOLS = [get_transitions, do_transition, get_comments, add_comment, assign_issue, link_issues, get_worklog,
         add_worklog, *WATCHERS]
