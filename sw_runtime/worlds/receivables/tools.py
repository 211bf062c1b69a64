"""Receivables' tools, with reference 004's names and classes.

Safe (run normally in sandbox mode): ``read_entity``, ``classify_entity``,
``list_slack_channels``, ``list_slack_users``, ``prepare_email``.
Guarded (in sandbox mode they answer their ``would_*`` preview, which is
exactly their live result, and change nothing): ``send_email``
(``would_send``), ``reply_to_email`` (``would_reply``), ``send_slack_message``
(``would_send_slack``), ``create_task`` (``would_create_task``),
``update_entity`` (``would_update``), ``trigger_webhook``
(``would_trigger_webhook``), ``save_draft`` (``would_save_draft``). Their
results carry 004's fields, field for field.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

import msgspec
import orjson
from msgspec import Meta

from ..tool import Refused, tool
from .state import OPEN, OUR_EMAIL, STATUSES, days_overdue, dollars, tone_for, uid_of

Uid = Annotated[str, Meta(min_length=1, max_length=100, description="The entity's uid (a UUID).")]
EmailAddr = Annotated[str, Meta(pattern=r"^[^@\s]+@[^@\s]+$", max_length=254)]
Subject = Annotated[str, Meta(min_length=1, max_length=300)]
Body = Annotated[str, Meta(min_length=1, max_length=20_000)]
DateStr = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$", description="YYYY-MM-DD")]
EntityType = Literal["customer", "invoice", "payment", "email", "task"]
PREVIEW = 200  # characters of a body or text shown in a preview


def _preview(text: str) -> str:
    return text if len(text) <= PREVIEW else text[: PREVIEW - 3] + "..."


def _new_uid(ctx, collection: str) -> str:
    n = 0
    while True:
        n += 1
        rid = uid_of(f"receivables/{ctx.seed}/step-{ctx.step}/{collection}/{n}")
        if ctx.store.get(collection, rid) is None:
            return rid


def _tool_uid(name: str) -> str:
    return uid_of(f"receivables/tool/{name}")


_COLLECTION = {"customer": "customers", "invoice": "invoices", "payment": "payments", "email": "emails",
               "task": "tasks", "webhook": "webhooks"}


def _entity(ctx, entity_type: str, uid: str) -> dict:
    rec = ctx.store.get(_COLLECTION[entity_type], uid)
    if rec is None:
        raise Refused("not_found", f"no {entity_type} with uid {uid!r}; find uids with read_entity")
    return rec


def _invoice_view(inv: dict) -> dict:
    return {**inv, "balance_due": inv["total"] - inv["amount_paid"], "days_overdue": days_overdue(inv)}


# -- safe ----------------------------------------------------------------------------------------------------------


class ReadArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    entity_type: Annotated[Literal["customer", "invoice", "payment", "email", "task", "webhook"],
                           Meta(description="What to read.")]
    uid: Annotated[str, Meta(description="One entity's uid; omit it to list entities.")] | None = None
    query: Annotated[str, Meta(max_length=200, description=(
        "When listing: keep entities whose name, number, email address, subject or memo contains this "
        "(case-insensitive)."))] | None = None
    status: Annotated[str, Meta(max_length=40, description="When listing: only this status.")] | None = None
    customer_uid: Annotated[str, Meta(max_length=100, description="When listing: only this customer's.")] | None = None
    thread_id: Annotated[str, Meta(max_length=100, description="When listing emails: one thread.")] | None = None
    limit: Annotated[int, Meta(ge=1, le=100)] = 50


def _text(rec: dict) -> str:
    parts = [rec.get(k) for k in ("name", "number", "subject", "memo", "from", "customer_name", "payer", "title")]
    parts += [c["email"] for c in rec.get("contacts", ())] + list(rec.get("to", ()))
    return " ".join(p for p in parts if isinstance(p, str)).casefold()


@tool(writes=False, params=ReadArgs)
def read_entity(ctx, args):
    """Read one customer, invoice, payment, email, task or registered webhook by uid, or list them (filtered by query, status,
    customer_uid, thread_id). Invoices come with balance_due and days_overdue. Amounts are integer cents."""
    view = _invoice_view if args.entity_type == "invoice" else (lambda r: r)
    if args.uid is not None:
        return {"entity_type": args.entity_type, "entity": view(_entity(ctx, args.entity_type, args.uid))}
    items = []
    q = args.query.casefold() if args.query else None
    for _, rec in ctx.store.scan(_COLLECTION[args.entity_type]):
        if args.status is not None and rec.get("status") != args.status:
            continue
        if args.customer_uid is not None and rec.get("customer_uid") != args.customer_uid:
            continue
        if args.thread_id is not None and rec.get("thread_id") != args.thread_id:
            continue
        if q is not None and q not in _text(rec):
            continue
        items.append(view(rec))
    if args.entity_type == "email":
        items.sort(key=lambda e: e["at"])
    return {"entity_type": args.entity_type, "count": len(items), "items": items[: args.limit]}


class ClassifyArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    entity_type: Literal["invoice", "email"]
    uid: Uid


_INTENTS = (("dispute", ("dispute", "damaged")), ("overcharge", ("overcharged", "looks wrong")),
            ("promise_to_pay", ("we will pay",)), ("billing_question", ("?",)))


@tool(writes=False, params=ClassifyArgs)
def classify_entity(ctx, args):
    """Classify an invoice (aging bucket, days overdue and the dunning tone the policy sets) or an email
    (its intent: dispute, overcharge, promise_to_pay, billing_question or other)."""
    rec = _entity(ctx, args.entity_type, args.uid)
    if args.entity_type == "invoice":
        days = days_overdue(rec)
        bucket = "current" if days == 0 else ("1-14" if days <= 14 else ("15-44" if days <= 44 else "45+"))
        return {"entity_type": "invoice", "uid": rec["id"], "aging_bucket": bucket, "days_overdue": days,
                "recommended_tone": tone_for(days) if rec["status"] != "disputed" else None,
                "disputed": rec["status"] == "disputed"}
    text = f"{rec['subject']} {rec['body']}".casefold()
    intent = next((name for name, words in _INTENTS if any(w in text for w in words)), "other")
    return {"entity_type": "email", "uid": rec["id"], "intent": intent, "direction": rec["direction"]}


@tool(writes=False)
def list_slack_channels(ctx, args):
    """List the Slack channels: id, name and purpose."""
    return {"channels": [r for _, r in ctx.store.scan("slack_channels")]}


@tool(writes=False)
def list_slack_users(ctx, args):
    """List the Slack users: id, handle, real name and title (account managers, the finance controller...)."""
    return {"users": [r for _, r in ctx.store.scan("slack_users")]}


class PrepareArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    template: Annotated[Literal["friendly_reminder", "second_notice", "final_notice", "balance_remaining"],
                        Meta(description="Which letter to prepare.")]
    invoice_uid: Uid


_OPENING = {
    "friendly_reminder": ("Friendly reminder", "this is a friendly reminder that {n} for {a} was due on {d}. "
                          "If you have already paid, thank you and please disregard this note."),
    "second_notice": ("Second notice", "our records show {n} for {a}, due on {d}, is now {k} days past due. "
                      "Please arrange payment this week or let us know when to expect it."),
    "final_notice": ("Final notice", "{n} for {a} is {k} days past due despite earlier reminders. Please pay it "
                     "within 7 days to avoid a hold on your account."),
    "balance_remaining": ("Balance remaining", "thank you for your payment on {n}. A balance of {b} remains due."),
}


@tool(writes=False, params=PrepareArgs)
def prepare_email(ctx, args):
    """Compose (not send) a collections email for an invoice from a template: answers to, subject and body,
    ready for send_email or save_draft."""
    inv = _entity(ctx, "invoice", args.invoice_uid)
    cust = ctx.store.get("customers", inv["customer_uid"]) or {"name": inv["customer_name"], "contacts": []}
    billing = [c for c in cust["contacts"] if c["role"] == "billing"] or cust["contacts"]
    if not billing:
        raise Refused("no_contact", f"{cust['name']} has no contact to write to")
    label, text = _OPENING[args.template]
    body = text.format(n=inv["number"], a=dollars(inv["total"]), d=inv["due_date"], k=days_overdue(inv),
                       b=dollars(inv["total"] - inv["amount_paid"]))
    first = billing[0]["name"].split()[0]
    return {"to": [billing[0]["email"]], "subject": f"{label}: Invoice {inv['number']}",
            "body": f"Dear {first},\n\n{body[0].upper()}{body[1:]}\n\nKind regards,\nAccounts Receivable",
            "context_type": "invoice", "context_id": inv["id"]}


# -- guarded -------------------------------------------------------------------------------------------------------


class SendArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    to: Annotated[list[EmailAddr], Meta(min_length=1, max_length=20)]
    subject: Subject
    body: Body
    context_type: Literal["invoice", "customer"] | None = None
    context_id: Annotated[str, Meta(description="The invoice's or customer's uid.")] | None = None
    draft_uid: Annotated[str, Meta(description="Send this saved draft (it is marked sent).")] | None = None


def _check_context(ctx, context_type, context_id) -> None:
    if (context_type is None) != (context_id is None):
        raise Refused("invalid_arguments", "give context_type and context_id together, or neither")
    if context_type is not None:
        _entity(ctx, context_type, context_id)


def _outbound(ctx, rid, thread, to, subject, body, status, context_type, context_id, reply_to=None, draft=None):
    ctx.store.insert("emails", rid, {
        "id": rid, "thread_id": thread, "direction": "outbound", "status": status, "from": OUR_EMAIL,
        "to": list(to), "subject": subject, "body": body, "at": ctx.at, "context_type": context_type,
        "context_id": context_id, "reply_to_message_uid": reply_to, "draft_uid": draft})


@tool(writes=True, params=SendArgs, preview="would_send")
def send_email(ctx, args):
    """Send a new email (a new thread). Link it to the invoice or customer it is about with context_type and
    context_id. Guarded: in sandbox mode it answers would_send and sends nothing."""
    _check_context(ctx, args.context_type, args.context_id)
    if args.draft_uid is not None:
        draft = ctx.store.get("emails", args.draft_uid)
        if draft is None or draft["status"] != "draft":
            raise Refused("not_found", f"no saved draft {args.draft_uid!r}")
    rid = _new_uid(ctx, "emails")
    _outbound(ctx, rid, rid, args.to, args.subject, args.body, "sent", args.context_type, args.context_id,
              draft=args.draft_uid)
    if args.draft_uid is not None:
        ctx.store.remove("emails", args.draft_uid)  # the draft became this email
    return {"uid": rid, "status": "sent", "to": list(args.to), "subject": args.subject,
            "body_preview": _preview(args.body), "draft_uid": args.draft_uid, "reply_to_message_uid": None,
            "context_type": args.context_type, "context_id": args.context_id}


class ReplyArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    message_uid: Annotated[str, Meta(max_length=100, description="The email to answer (its uid).")]
    body: Body
    subject: Annotated[str, Meta(max_length=300, description="Default: RE: and the original's.")] | None = None


@tool(writes=True, params=ReplyArgs, preview="would_reply")
def reply_to_email(ctx, args):
    """Reply in an email's thread, to its sender. Guarded: in sandbox mode it answers would_reply."""
    orig = _entity(ctx, "email", args.message_uid)
    if orig["status"] == "draft":
        raise Refused("invalid_arguments", "a draft cannot be replied to; send it or use send_email")
    subject = args.subject or (orig["subject"] if orig["subject"].upper().startswith("RE:")
                               else f"RE: {orig['subject']}")
    to = [orig["from"]] if orig["direction"] == "inbound" else list(orig["to"])
    rid = _new_uid(ctx, "emails")
    _outbound(ctx, rid, orig["thread_id"], to, subject, args.body, "sent", orig["context_type"],
              orig["context_id"], reply_to=orig["id"])
    return {"uid": rid, "status": "sent", "reply_to_message_uid": orig["id"], "subject": subject,
            "body_preview": _preview(args.body), "tool_uid": _tool_uid("reply_to_email")}


class SlackArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    channel: Annotated[str, Meta(max_length=80, description="A channel id (C...) or name (#collections).")]
    text: Annotated[str, Meta(min_length=1, max_length=4000, description="Mention people as <@USERID>.")]
    thread_ts: Annotated[str, Meta(max_length=40, description="Reply in this message's thread.")] | None = None


@tool(writes=True, params=SlackArgs, preview="would_send_slack")
def send_slack_message(ctx, args):
    """Post a Slack message to a channel (or in a thread). Guarded: in sandbox mode it answers
    would_send_slack."""
    name = args.channel.lstrip("#")
    chan = ctx.store.get("slack_channels", args.channel) or next(
        (r for _, r in ctx.store.scan("slack_channels") if r["name"] == name), None)
    if chan is None:
        raise Refused("channel_not_found", f"no channel {args.channel!r}; list_slack_channels lists them")
    if args.thread_ts is not None and ctx.store.get("slack_messages", args.thread_ts) is None:
        raise Refused("thread_not_found", f"no message {args.thread_ts!r} to reply under")
    ts = f"{ctx.at_ms // 1000}.{ctx.step:06d}"
    ctx.store.insert("slack_messages", ts, {"id": ts, "channel": chan["id"], "user": None, "text": args.text,
                                            "thread_ts": args.thread_ts})
    return {"message_ts": ts, "channel": chan["id"], "text_preview": _preview(args.text),
            "thread_ts": args.thread_ts}


class ContextEntity(msgspec.Struct, forbid_unknown_fields=True):
    entity_type: EntityType
    entity_uid: Uid


class TaskArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    title: Annotated[str, Meta(min_length=1, max_length=200)]
    description: Annotated[str, Meta(max_length=5000)] = ""
    due_date: DateStr | None = None
    priority: Literal["low", "medium", "high", "urgent"] = "medium"
    context_entities: Annotated[list[ContextEntity], Meta(max_length=10)] = []
    instructions: Annotated[str, Meta(max_length=5000)] | None = None


@tool(writes=True, params=TaskArgs, preview="would_create_task")
def create_task(ctx, args):
    """Create a task for the team (status todo), linked to the entities it is about. Guarded: in sandbox mode
    it answers would_create_task."""
    if args.due_date is not None:
        try:
            date.fromisoformat(args.due_date)
        except ValueError:
            raise Refused("invalid_arguments", f"due_date {args.due_date!r} is not a date") from None
    entities = [{"entity_type": e.entity_type, "entity_uid": e.entity_uid} for e in args.context_entities]
    for e in entities:
        _entity(ctx, e["entity_type"], e["entity_uid"])
    rid = _new_uid(ctx, "tasks")
    ctx.store.insert("tasks", rid, {"id": rid, "title": args.title, "description": args.description,
                                    "due_date": args.due_date, "priority": args.priority, "status": "todo",
                                    "context_entities": entities, "instructions": args.instructions})
    return {"uid": rid, "title": args.title, "description_preview": _preview(args.description),
            "due_date": args.due_date, "priority": args.priority, "status": "todo", "context_entities": entities,
            "instructions_preview": None if args.instructions is None else _preview(args.instructions),
            "tool_uid": _tool_uid("create_task")}


class UpdateArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    entity_type: Literal["invoice", "payment", "customer", "task"]
    uid: Uid
    updates: Annotated[dict[str, Any], Meta(description=(
        "Fields to set. invoice: status, notes; payment: invoice_uid (applies the payment to that invoice); "
        "customer: notes; task: status."))]


_EDITABLE = {"invoice": {"status", "notes"}, "payment": {"invoice_uid"}, "customer": {"notes"},
             "task": {"status"}}


@tool(writes=True, params=UpdateArgs, preview="would_update")
def update_entity(ctx, args):
    """Update an invoice (status, notes), apply a payment to an invoice (invoice_uid), or update a customer's
    notes or a task's status. Guarded: in sandbox mode it answers would_update."""
    rec = _entity(ctx, args.entity_type, args.uid)
    bad = sorted(set(args.updates) - _EDITABLE[args.entity_type])
    if not args.updates or bad:
        raise Refused("invalid_arguments", f"a {args.entity_type} update may set "
                      f"{', '.join(sorted(_EDITABLE[args.entity_type]))}" + (f", not {', '.join(bad)}" if bad else ""))
    up = args.updates
    coll = _COLLECTION[args.entity_type]
    if args.entity_type == "invoice":
        if "status" in up and up["status"] not in STATUSES:
            raise Refused("invalid_arguments", f"an invoice's status is one of {', '.join(STATUSES)}")
        if "notes" in up and not isinstance(up["notes"], str):
            raise Refused("invalid_arguments", "notes is text")
        ctx.store.update(coll, rec["id"], dict(up))
    elif args.entity_type == "payment":
        if rec["status"] == "applied":
            raise Refused("already_applied", f"payment {rec['id']} is already applied to {rec['invoice_uid']}")
        inv = ctx.store.get("invoices", up["invoice_uid"]) if isinstance(up["invoice_uid"], str) else None
        if inv is None:
            raise Refused("not_found", f"no invoice with uid {up['invoice_uid']!r}")
        if inv["status"] not in OPEN:
            raise Refused("invalid_state", f"{inv['number']} is {inv['status']}; a payment applies to an open invoice")
        paid = inv["amount_paid"] + rec["amount"]
        if paid > inv["total"]:
            raise Refused("overpayment", f"{dollars(rec['amount'])} is more than the {dollars(inv['total'] - inv['amount_paid'])} "
                          f"still due on {inv['number']}")
        ctx.store.update("payments", rec["id"], {"invoice_uid": inv["id"], "status": "applied"})
        ctx.store.update("invoices", inv["id"], {"amount_paid": paid, "payment_uids": inv["payment_uids"] + [rec["id"]],
                                                 **({"status": "paid"} if paid == inv["total"] else {})})
    elif args.entity_type == "customer":
        if not isinstance(up["notes"], str):
            raise Refused("invalid_arguments", "notes is text")
        ctx.store.update(coll, rec["id"], {"notes": up["notes"]})
    else:
        if up["status"] not in ("todo", "in_progress", "done"):
            raise Refused("invalid_arguments", "a task's status is todo, in_progress or done")
        ctx.store.update(coll, rec["id"], {"status": up["status"]})
    return {"entity_type": args.entity_type, "uid": rec["id"], "updates": dict(up)}


class WebhookArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    webhook_uid: Annotated[str, Meta(max_length=100, description="A registered webhook's uid (read_entity "
                                                                 "lists them).")]
    payload: Annotated[dict[str, Any], Meta(description="The JSON body to send.")]


@tool(writes=True, params=WebhookArgs, preview="would_trigger_webhook")
def trigger_webhook(ctx, args):
    """Call a registered webhook with a JSON body. Guarded: in sandbox mode it answers would_trigger_webhook."""
    hook = ctx.store.get("webhooks", args.webhook_uid)
    if hook is None or not hook["active"]:
        raise Refused("not_found", f"no active webhook {args.webhook_uid!r}")
    body = orjson.dumps(args.payload, option=orjson.OPT_SORT_KEYS).decode()
    rid = _new_uid(ctx, "webhook_deliveries")
    ctx.store.insert("webhook_deliveries", rid, {"id": rid, "webhook_uid": hook["id"], "url": hook["url"],
                                                 "method": hook["method"], "headers": dict(hook["headers"]),
                                                 "body": body, "at": ctx.at})
    return {"url": hook["url"], "method": hook["method"], "headers": dict(hook["headers"]),
            "body_preview": _preview(body)}


class DraftArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    to: Annotated[list[EmailAddr], Meta(min_length=1, max_length=20)]
    subject: Subject
    body: Body
    context_type: Literal["invoice", "customer"] | None = None
    context_id: str | None = None


@tool(writes=True, params=DraftArgs, preview="would_save_draft")
def save_draft(ctx, args):
    """Save an email as a draft for a person to review (nothing is sent). Guarded: in sandbox mode it answers
    would_save_draft."""
    _check_context(ctx, args.context_type, args.context_id)
    rid = _new_uid(ctx, "emails")
    _outbound(ctx, rid, rid, args.to, args.subject, args.body, "draft", args.context_type, args.context_id)
    return {"uid": rid, "status": "draft", "subject": args.subject, "to": list(args.to),
            "body_preview": _preview(args.body), "context_type": args.context_type, "context_id": args.context_id}


TOOLS = [read_entity, classify_entity, list_slack_channels, list_slack_users, prepare_email, send_email,
         reply_to_email, send_slack_message, create_task, update_entity, trigger_webhook, save_draft]
