"""Helpdesk's state schema: Zendesk's records as types, which custom seeds are parsed with.

A custom seed replaces the whole account: send the users, groups and ticket
fields your tickets name. Ids are Zendesk's integers, stored under their
decimal string.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path

Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", description="e.g. 2026-06-15T09:00:00Z")]
Status = Literal["new", "open", "pending", "hold", "solved", "closed"]


class FieldValue(Record):
    id: int
    value: str | int | float | None


class Ticket(Record):
    id: int
    url: str
    external_id: str | None
    via: dict[str, Any]
    created_at: Time
    updated_at: Time
    type: Literal["question", "incident", "problem", "task"] | None
    subject: str
    raw_subject: str
    description: str
    priority: Literal["low", "normal", "high", "urgent"] | None
    status: Status
    recipient: str | None
    requester_id: int
    submitter_id: int
    assignee_id: int | None
    organization_id: int | None
    group_id: int | None
    collaborator_ids: list[int]
    follower_ids: list[int]
    email_cc_ids: list[int]
    problem_id: int | None
    has_incidents: bool
    is_public: bool
    due_at: Time | None
    tags: list[str]
    custom_fields: list[FieldValue]
    satisfaction_rating: dict[str, Any] | None
    allow_channelback: bool
    allow_attachments: bool


class Comment(Record):
    id: int
    ticket_id: int
    type: Literal["Comment", "VoiceComment"]
    author_id: int
    body: str
    html_body: str
    plain_body: str
    public: bool
    attachments: list[dict[str, Any]]
    via: dict[str, Any]
    metadata: dict[str, Any]
    created_at: Time


class Audit(Record):
    id: int
    ticket_id: int
    author_id: int
    created_at: Time
    metadata: dict[str, Any]
    via: dict[str, Any]
    events: list[dict[str, Any]]


class User(Record):
    id: int
    url: str
    name: str
    email: str
    role: Literal["end-user", "agent", "admin"]
    organization_id: int | None
    phone: str | None
    tags: list[str]
    suspended: bool
    active: bool
    verified: bool
    time_zone: str
    locale: str
    default_group_id: int | None
    notes: str
    details: str
    external_id: str | None
    moderator: bool
    only_private_comments: bool
    user_fields: dict[str, Any]
    created_at: Time
    updated_at: Time


class Organization(Record):
    id: int
    url: str
    name: str
    domain_names: list[str]
    details: str
    notes: str
    group_id: int | None
    shared_tickets: bool
    shared_comments: bool
    tags: list[str]
    organization_fields: dict[str, Any]
    external_id: str | None
    created_at: Time
    updated_at: Time


class Group(Record):
    id: int
    url: str
    name: str
    description: str
    default: bool
    deleted: bool
    is_public: bool
    created_at: Time
    updated_at: Time


class Macro(Record):
    id: int
    url: str
    title: str
    description: str
    active: bool
    actions: list[dict[str, Any]]
    position: int
    restriction: dict[str, Any] | None
    created_at: Time
    updated_at: Time


class View(Record):
    id: int
    url: str
    title: str
    active: bool
    position: int
    restriction: dict[str, Any] | None
    conditions: dict[str, Any]
    execution: dict[str, Any]
    created_at: Time
    updated_at: Time


class SlaPolicy(Record):
    id: int
    url: str
    title: str
    description: str
    position: int
    filter: dict[str, Any]
    policy_metrics: list[dict[str, Any]]
    created_at: Time
    updated_at: Time


class TicketField(Record):
    id: int
    url: str
    type: Literal["text", "textarea", "decimal", "integer", "tagger", "checkbox", "date"]
    title: str
    description: str
    active: bool
    required: bool
    position: int
    custom_field_options: list[dict[str, Any]] | None
    created_at: Time
    updated_at: Time


class Rating(Record):
    id: int
    url: str
    ticket_id: int
    score: Literal["offered", "unoffered", "good", "bad"]
    comment: str
    reason: str | None
    requester_id: int
    assignee_id: int | None
    group_id: int | None
    created_at: Time
    updated_at: Time


class Article(Record):
    id: int
    url: str
    html_url: str
    title: str
    body: str
    locale: str
    section_id: int
    author_id: int
    draft: bool
    promoted: bool
    label_names: list[str]
    vote_sum: int
    created_at: Time
    updated_at: Time


def _rules(state: dict) -> list:
    """Keys are the records' ids; tickets name users and groups that exist."""
    issues = []
    for name, records in state.items():
        for rid, rec in records.items():
            if str(rec.get("id")) != rid:
                issues.append(Issue(record_path(name, rid) + ".id", f"the id {rec.get('id')!r} differs from its "
                                                                    f"key {rid!r}; make them equal"))
    users, groups = state.get("users", {}), state.get("groups", {})
    for rid, t in state.get("tickets", {}).items():
        for f in ("requester_id", "assignee_id"):
            if t[f] is not None and str(t[f]) not in users:
                issues.append(Issue(record_path("tickets", rid) + f".{f}", f"no user {t[f]}"))
        if t["group_id"] is not None and str(t["group_id"]) not in groups:
            issues.append(Issue(record_path("tickets", rid) + ".group_id", f"no group {t['group_id']}"))
    return issues


SCHEMA = StateSchema(
    records={"tickets": Ticket, "comments": Comment, "audits": Audit, "users": User, "organizations": Organization,
             "groups": Group, "macros": Macro, "views": View, "sla_policies": SlaPolicy,
             "ticket_fields": TicketField, "satisfaction_ratings": Rating, "articles": Article},
    rules=_rules,
)
