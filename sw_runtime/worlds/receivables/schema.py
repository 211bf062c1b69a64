"""Receivables' state schema: the records as types, which custom seeds are parsed with.

Every field is required (null where it allows it), so a valid seed is stored
as given. Money is integer cents; dates ``YYYY-MM-DD``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path

Date = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$", description="a date, e.g. 2026-04-15")]
Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")]
Cents = Annotated[int, Meta(ge=0, le=10_000_000_000, description="integer cents")]
Text = Annotated[str, Meta(max_length=20_000)]
Email = Annotated[str, Meta(pattern=r"^[^@\s]+@[^@\s]+$", max_length=254)]
EntityType = Literal["customer", "invoice", "payment", "email", "task"]


class Contact(Record):
    name: str
    email: Email
    role: Literal["billing", "primary", "ap"]


class Customer(Record):
    id: str
    name: str
    domain: str
    contacts: list[Contact]
    payment_terms: Literal["net_15", "net_30", "net_45"]
    account_manager: str | None
    key_account: bool
    notes: Text


class LineItem(Record):
    description: str
    quantity: Annotated[int, Meta(ge=1)]
    unit_amount: Cents
    amount: Cents


class Approval(Record):
    approved_by: str
    approved_at: Time


class Invoice(Record):
    id: str
    number: str
    customer_uid: str
    customer_name: str
    issue_date: Date
    due_date: Date
    currency: Literal["USD"]
    line_items: list[LineItem]
    total: Cents
    amount_paid: Cents
    status: Literal["draft", "sent", "overdue", "in_review", "paid", "disputed", "written_off"]
    payment_uids: list[str]
    notes: Text
    write_off_approval: Approval | None


class Payment(Record):
    id: str
    customer_uid: str | None
    payer: str
    amount: Cents
    method: Literal["ach", "wire", "check", "card"]
    memo: str
    received_at: Time
    invoice_uid: str | None
    status: Literal["unapplied", "applied"]


class EmailMessage(Record):
    id: str
    thread_id: str
    direction: Literal["inbound", "outbound"]
    status: Literal["received", "sent", "draft"]
    # "from" is a Python keyword: the field is named from_ and spelled "from" in the record.
    from_: Email = msgspec.field(name="from")
    to: list[Email]
    subject: str
    body: Text
    at: Time
    context_type: Literal["invoice", "customer"] | None
    context_id: str | None
    reply_to_message_uid: str | None
    draft_uid: str | None


class SlackChannel(Record):
    id: str
    name: str
    purpose: str


class SlackUser(Record):
    id: str
    name: str
    real_name: str
    title: str


class SlackMessage(Record):
    id: str
    channel: str
    user: str | None
    text: Text
    thread_ts: str | None


class ContextEntity(Record):
    entity_type: EntityType
    entity_uid: str


class Task(Record):
    id: str
    title: str
    description: Text
    due_date: Date | None
    priority: Literal["low", "medium", "high", "urgent"]
    status: Literal["todo", "in_progress", "done"]
    context_entities: list[ContextEntity]
    instructions: Text | None


class Webhook(Record):
    id: str
    event: str
    url: str
    method: Literal["POST", "PUT"]
    headers: dict[str, str]
    active: bool


class Delivery(Record):
    id: str
    webhook_uid: str
    url: str
    method: str
    headers: dict[str, str]
    body: Text
    at: Time


def _rules(state):
    customers = state.get("customers", {})
    for rid, inv in state.get("invoices", {}).items():
        if inv["customer_uid"] not in customers:
            yield Issue(record_path("invoices", rid) + ".customer_uid", "names no customer in customers")
        if inv["amount_paid"] > inv["total"]:
            yield Issue(record_path("invoices", rid) + ".amount_paid", "is more than the invoice's total")
    channels = state.get("slack_channels", {})
    for rid, msg in state.get("slack_messages", {}).items():
        if msg["channel"] not in channels:
            yield Issue(record_path("slack_messages", rid) + ".channel", "names no channel in slack_channels")


def _rule_list(state) -> list:
    return list(_rules(state))


SCHEMA = StateSchema(
    records={"customers": Customer, "invoices": Invoice, "payments": Payment, "emails": EmailMessage,
             "slack_channels": SlackChannel, "slack_users": SlackUser, "slack_messages": SlackMessage,
             "tasks": Task, "webhooks": Webhook, "webhook_deliveries": Delivery},
    required=("customers", "invoices"),
    rules=_rule_list,
)
