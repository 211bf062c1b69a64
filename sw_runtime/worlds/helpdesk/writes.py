"""Helpdesk's writing tools: Create Ticket, Update Ticket, Update Many
Tickets, Merge Tickets. All guarded.

They take Zendesk's bodies (``{"ticket": {...}}``), check everything before the
first write (an unknown id is Zendesk's 404, a bad value its 422
``RecordInvalid`` with ``details``, a closed ticket cannot be updated), and
record an audit of what changed. A comment is a public reply unless
``public`` is false (an internal note); its author is the assistant.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..tool import Refused, tool
from .reads import get_ticket
from .records import BASE
from .shapes import Id, invalid, now
from .state import ASSISTANT_ID

Status = Literal["new", "open", "pending", "hold", "solved", "closed"]
Priority = Literal["low", "normal", "high", "urgent"]
Kind = Literal["question", "incident", "problem", "task"]
Tag = Annotated[str, Meta(min_length=1, max_length=80, pattern=r"^[^\s,]+$")]
Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d)?(\.\d+)?Z?)?$",
                           description="ISO 8601, e.g. 2026-06-18T12:00:00Z")]


class Comment(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    body: Annotated[str, Meta(min_length=1, max_length=65_536)] | None = None
    html_body: Annotated[str, Meta(max_length=65_536)] | None = None
    public: Annotated[bool, Meta(description="true: a public reply the requester sees; false: an internal "
                                              "note.")] = True
    author_id: Id | None = None


class CustomField(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: Annotated[Id, Meta(description="The field's id (zendesk.ticket_fields.list).")]
    value: str | int | float | None = None


class Changes(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """What an update may set; only the fields sent change."""

    id: Id | None = None  # the ticket's own id, as SDKs send it back; ignored
    subject: Annotated[str, Meta(min_length=1, max_length=300)] | None = None
    comment: Comment | None = None
    status: Status | None = None
    priority: Priority | None = None
    type: Kind | None = None
    tags: Annotated[list[Tag], Meta(max_length=50, description="Replaces every tag.")] | None = None
    additional_tags: Annotated[list[Tag], Meta(max_length=50, description="Tags to add.")] | None = None
    remove_tags: Annotated[list[Tag], Meta(max_length=50, description="Tags to remove.")] | None = None
    assignee_id: Id | None = None
    group_id: Id | None = None
    custom_fields: Annotated[list[CustomField], Meta(max_length=20)] | None = None
    due_at: Time | None = None
    problem_id: Id | None = None


def _now_audit(ctx, ticket_id: int, events: list, k: int = 0) -> dict:
    i = 37090000 + ctx.step * 10 + k
    audit = {"id": i, "ticket_id": ticket_id, "author_id": ASSISTANT_ID, "created_at": now(ctx), "metadata": {},
             "via": {"channel": "api"}, "events": [{"id": i * 100 + n, **e} for n, e in enumerate(events)]}
    ctx.store.insert("audits", str(i), audit)
    return audit


def _comment(ctx, ticket_id: int, c: Comment, k: int = 0) -> dict:
    i = 36990000 + ctx.step * 10 + k
    body = c.body or c.html_body
    rec = {"id": i, "ticket_id": ticket_id, "type": "Comment", "author_id": c.author_id or ASSISTANT_ID,
           "body": body, "html_body": c.html_body or f"<div class=\"zd-comment\"><p>{body}</p></div>",
           "plain_body": body, "public": c.public, "attachments": [], "via": {"channel": "api"}, "metadata": {},
           "created_at": now(ctx)}
    ctx.store.insert("comments", str(i), rec)
    return rec


def _check_refs(store, ch, ticket: dict | None) -> None:
    """Every id an update or a new ticket names exists, and the values fit together (422 otherwise)."""
    if ch.assignee_id is not None:
        a = store.get("users", str(ch.assignee_id))
        if a is None or a["role"] == "end-user":
            raise invalid("assignee", f"{ch.assignee_id} is not an agent")
        if a["suspended"]:
            raise invalid("assignee", f"{a['name']} is suspended and cannot be assigned tickets")
    if ch.group_id is not None and store.get("groups", str(ch.group_id)) is None:
        raise invalid("group", f"{ch.group_id} is not a group")
    for f in ch.custom_fields or ():
        if store.get("ticket_fields", str(f.id)) is None:
            raise invalid("custom_fields", f"{f.id} is not a ticket field")
    kind = ch.type or (ticket or {}).get("type")
    if ch.due_at is not None and kind != "task":
        raise invalid("due_at", "can only be set on tickets of type task")
    if ch.problem_id is not None:
        p = store.get("tickets", str(ch.problem_id))
        if p is None or p["type"] != "problem":
            raise invalid("problem_id", f"{ch.problem_id} is not a problem ticket")
        if ticket is not None and p["id"] == ticket["id"]:
            raise invalid("problem_id", "a ticket cannot be its own problem")
    if ch.comment is not None and not (ch.comment.body or ch.comment.html_body):
        raise invalid("comment", "needs a body")


def _due(value: str | None) -> str | None:
    """A due time in Zendesk's format; a bare day is due at midnight UTC."""
    if value is None:
        return None
    if len(value) == 10:
        return value + "T00:00:00Z"
    v = value.rstrip("Z").split(".")[0]
    return (v + ":00" if len(v) == 16 else v) + "Z"


def _changes(store, ticket: dict, ch: Changes) -> dict:
    """The ticket's fields after ``ch`` (checked first: closed tickets and bad values are 422s)."""
    if ticket["status"] == "closed":
        raise invalid("status", "closed prevents ticket update")
    _check_refs(store, ch, ticket)
    up: dict = {}
    for f in ("subject", "priority", "type", "assignee_id", "group_id", "problem_id"):
        v = getattr(ch, f)
        if v is not None and v != ticket[f]:
            up[f] = v
    if ch.due_at is not None:
        up["due_at"] = _due(ch.due_at)
    tags = list(ticket["tags"]) if ch.tags is None else list(dict.fromkeys(ch.tags))
    tags += [t for t in ch.additional_tags or () if t not in tags]
    tags = [t for t in tags if t not in (ch.remove_tags or ())]
    if sorted(tags) != ticket["tags"]:
        up["tags"] = sorted(tags)
    if ch.custom_fields:
        given = {f.id: f.value for f in ch.custom_fields}
        fields = [{"id": f["id"], "value": given.get(f["id"], f["value"])} for f in ticket["custom_fields"]]
        fields += [{"id": i, "value": v} for i, v in given.items() if all(f["id"] != i for f in fields)]
        if fields != ticket["custom_fields"]:
            up["custom_fields"] = fields
    status = ch.status
    if status is None and ticket["status"] == "new":
        status = "open"  # an agent's update opens a new ticket
    if status is not None and status != ticket["status"]:
        if status == "new":
            raise invalid("status", "cannot be changed back to new")
        if status in ("solved", "closed") and up.get("assignee_id", ticket["assignee_id"]) is None:
            raise invalid("assignee", "is required when a ticket is solved")
        up["status"] = status
    return up


def _apply(ctx, ticket: dict, up: dict, comment: Comment | None, k: int = 0) -> tuple:
    events = [{"type": "Change", "field_name": f, "value": v, "previous_value": ticket.get(f)}
              for f, v in up.items()]
    if comment is not None:
        c = _comment(ctx, ticket["id"], comment, k)
        events.insert(0, {"type": "Comment", "body": c["body"], "public": c["public"], "author_id": c["author_id"]})
    up = dict(up, updated_at=now(ctx))
    ticket = ctx.store.update("tickets", str(ticket["id"]), up)
    if "problem_id" in up and up["problem_id"] is not None:
        ctx.store.update("tickets", str(up["problem_id"]), {"has_incidents": True})
    return ticket, _now_audit(ctx, ticket["id"], events, k)


class UpdateArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ticket_id: Annotated[Id, Meta(description="The ticket's id.")]
    ticket: Changes


@tool(writes=True, params=UpdateArgs, name="zendesk.tickets.update", preview="would_update")
def tickets_update(ctx, args):
    """Update Ticket (PUT /api/v2/tickets/{ticket_id}.json) with {"ticket": {...}}: status, priority, type,
    subject, tags (replace) or additional_tags/remove_tags, assignee_id, group_id, custom_fields, due_at (task
    tickets), problem_id (link an incident), and comment {body, public} to reply (public: true) or add an
    internal note (public: false). Closed tickets cannot be updated (422); solving needs an assignee."""
    ticket = get_ticket(ctx.store, args.ticket_id)
    up = _changes(ctx.store, ticket, args.ticket)
    ticket, audit = _apply(ctx, ticket, up, args.ticket.comment)
    return {"ticket": ticket, "audit": audit}


class Requester(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    email: Annotated[str, Meta(min_length=3, max_length=200)]


class NewTicket(Changes, kw_only=True):
    description: Annotated[str, Meta(min_length=1, max_length=65_536)] | None = None
    requester_id: Id | None = None
    requester: Requester | None = None
    submitter_id: Id | None = None
    via_followup_source_id: Annotated[Id, Meta(description="A closed ticket this one follows up.")] | None = None


class CreateArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ticket: NewTicket


def _requester(store, t: NewTicket) -> dict:
    if t.requester_id is not None:
        u = store.get("users", str(t.requester_id))
        if u is None:
            raise invalid("requester", f"{t.requester_id} is not a user")
        return u
    if t.requester is not None:
        found = [u for _, u in store.scan("users") if u["email"].lower() == t.requester.email.lower()]
        if found:
            return found[0]
        raise invalid("requester", f"no user has the email {t.requester.email}; create the user first")
    raise invalid("requester", "is required")


@tool(writes=True, params=CreateArgs, name="zendesk.tickets.create", preview="would_create")
def tickets_create(ctx, args):
    """Create Ticket (POST /api/v2/tickets.json) with {"ticket": {subject, comment: {body}, requester_id (or
    requester {email}), priority, type, status, group_id, assignee_id, tags, custom_fields, due_at,
    via_followup_source_id (to follow up a closed ticket)}}. Answers 201 with the ticket and its audit."""
    t = args.ticket
    store = ctx.store
    body = (t.comment.body or t.comment.html_body) if t.comment else t.description
    if not body:
        raise invalid("description", "cannot be blank")
    if not t.subject:
        raise invalid("subject", "cannot be blank")
    requester = _requester(store, t)
    _check_refs(store, t, None)
    source = None
    if t.via_followup_source_id is not None:
        source = store.get("tickets", str(t.via_followup_source_id))
        if source is None or source["status"] != "closed":
            raise invalid("via_followup_source_id", "must be a closed ticket")
    status = t.status or ("open" if t.assignee_id or t.group_id else "new")
    if status in ("solved", "closed") and t.assignee_id is None:
        raise invalid("assignee", "is required when a ticket is solved")
    tid = max(int(i) for i in store.ids("tickets")) + 1
    at = now(ctx)
    tags = list(dict.fromkeys((t.tags or []) + (t.additional_tags or [])))
    fields = {f["id"]: None for _, f in store.scan("ticket_fields")}
    fields.update({f.id: f.value for f in t.custom_fields or ()})
    via = {"channel": "api", "source": {"from": {}, "to": {}, "rel": None}}
    if source is not None:
        via["source"] = {"from": {"ticket_id": source["id"]}, "to": {}, "rel": "follow_up"}
    ticket = {
        "id": tid, "url": f"{BASE}/tickets/{tid}.json", "external_id": None, "via": via, "created_at": at,
        "updated_at": at, "type": t.type, "subject": t.subject, "raw_subject": t.subject, "description": body,
        "priority": t.priority, "status": status, "recipient": None, "requester_id": requester["id"],
        "submitter_id": t.submitter_id or ASSISTANT_ID, "assignee_id": t.assignee_id,
        "organization_id": requester["organization_id"], "group_id": t.group_id, "collaborator_ids": [],
        "follower_ids": [], "email_cc_ids": [], "problem_id": t.problem_id, "has_incidents": False,
        "is_public": t.comment.public if t.comment else True, "due_at": _due(t.due_at), "tags": sorted(tags),
        "custom_fields": [{"id": i, "value": v} for i, v in fields.items()], "satisfaction_rating": None,
        "allow_channelback": False, "allow_attachments": True}
    store.insert("tickets", str(tid), ticket)
    first = Comment(body=body, public=t.comment.public if t.comment else True,
                    author_id=(t.comment.author_id if t.comment else None) or requester["id"])
    c = _comment(ctx, tid, first)
    events = [{"type": "Comment", "body": c["body"], "public": c["public"], "author_id": c["author_id"]}] + [
        {"type": "Create", "field_name": f, "value": ticket[f]} for f in ("subject", "status", "priority", "type")]
    if t.problem_id is not None:
        store.update("tickets", str(t.problem_id), {"has_incidents": True})
    return {"ticket": ticket, "audit": _now_audit(ctx, tid, events)}


def _job(ctx, results: list) -> dict:
    job = hashlib.sha256(f"helpdesk-job:{ctx.step}:{ctx.at}".encode()).hexdigest()[:32]
    return {"job_status": {"id": job, "url": f"{BASE}/job_statuses/{job}.json", "total": len(results),
                           "progress": len(results), "status": "completed", "message": "Completed at " + now(ctx),
                           "results": results}}


class UpdateManyArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ids: Annotated[str, Meta(pattern=r"^\d+(,\d+)*$", max_length=1100,
                             description="Comma-separated ticket ids, at most 100: 1042,1043")]
    ticket: Changes


@tool(writes=True, params=UpdateManyArgs, name="zendesk.tickets.update_many", preview="would_update_many")
def tickets_update_many(ctx, args):
    """Update Many Tickets (PUT /api/v2/tickets/update_many.json?ids=...) with one {"ticket": {...}} for all of
    them, e.g. additional_tags to bulk-tag. Answers a job_status whose results say, per ticket, whether it was
    updated (a closed ticket is not)."""
    ids = list(dict.fromkeys(int(i) for i in args.ids.split(",")))
    if len(ids) > 100:
        raise invalid("ids", "at most 100 tickets at once")
    tickets = [get_ticket(ctx.store, i) for i in ids]
    plans = []
    for t in tickets:
        try:
            plans.append((t, _changes(ctx.store, t, args.ticket), None))
        except Refused as e:  # a per-ticket failure is reported in the job's results, as Zendesk does
            plans.append((t, None, e.message))
    results = []
    for k, (t, up, error) in enumerate(plans):
        if error is not None:
            results.append({"id": t["id"], "index": k, "success": False, "errors": error})
            continue
        _apply(ctx, t, up, args.ticket.comment, k)
        results.append({"id": t["id"], "index": k, "action": "update", "success": True, "status": "Updated"})
    return _job(ctx, results)


class MergeArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ticket_id: Annotated[Id, Meta(description="The target ticket, which stays open.")]
    ids: Annotated[list[Id], Meta(min_length=1, max_length=5, description="The tickets to merge into it.")]
    target_comment: Annotated[str, Meta(max_length=65_536)] | None = None
    source_comment: Annotated[str, Meta(max_length=65_536)] | None = None
    target_comment_is_public: bool = False
    source_comment_is_public: bool = False


@tool(writes=True, params=MergeArgs, name="zendesk.tickets.merge", preview="would_merge")
def tickets_merge(ctx, args):
    """Merge Tickets into Target Ticket (POST /api/v2/tickets/{ticket_id}/merge.json) with {"ids": [...]}: each
    source ticket is closed with the tag closed_by_merge and a comment pointing at the target; the target gets a
    comment listing them. Cannot be undone. Answers a job_status."""
    store = ctx.store
    target = get_ticket(store, args.ticket_id)
    sources = [get_ticket(store, i) for i in dict.fromkeys(args.ids)]
    for t in [target] + sources:
        if t["status"] == "closed":
            raise invalid("status", f"ticket {t['id']} is closed and cannot be merged")
    if any(s["id"] == target["id"] for s in sources):
        raise invalid("ids", "a ticket cannot be merged into itself")
    listed = ", ".join(f"#{s['id']}" for s in sources)
    _apply(ctx, target, {}, Comment(body=args.target_comment or f"Requests {listed} were closed and merged into "
                                    "this request.", public=args.target_comment_is_public), 0)
    results = []
    for k, s in enumerate(sources, start=1):
        up = {"status": "closed", "tags": sorted(set(s["tags"]) | {"closed_by_merge"})}
        _apply(ctx, s, up, Comment(body=args.source_comment or f"This request was closed and merged into request "
                                   f"#{target['id']}.", public=args.source_comment_is_public), k)
        results.append({"id": s["id"], "index": k - 1, "action": "merge", "success": True, "status": "Merged"})
    return _job(ctx, results)


TOOLS = [tickets_create, tickets_update, tickets_update_many, tickets_merge]
