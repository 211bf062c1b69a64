"""The office's state schema: its records as types, for custom seeds.

The generator (``state.py``) produces exactly these records and the tools
rely on them. Mail is stored as plain fields (the tools encode the Gmail
shapes); a Slack message's id is its ``ts``; a calendar event lives on
``calendarId`` (its organizer's calendar). Times are RFC 3339 strings.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from ..state_schema import Issue, Record, StateSchema, record_path
from . import clock
from .office import ASSISTANT, ASSISTANT_EMAIL

Ts = Annotated[str, Meta(pattern=r"^\d{10}\.\d{6}$", description="Slack ts, e.g. 1793001621.000000")]
Stamp = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")]


class When(Record):
    date: str | UnsetType = UNSET
    dateTime: str | UnsetType = UNSET
    timeZone: str | UnsetType = UNSET


class Guest(Record):
    email: str
    responseStatus: Literal["needsAction", "accepted", "declined", "tentative"]


class Who(Record):
    email: str


class Event(Record):
    id: Annotated[str, Meta(pattern=r"^[0-9a-v]{5,1024}$")]
    kind: Literal["calendar#event"]
    calendarId: str
    status: Literal["confirmed", "tentative", "cancelled"]
    summary: str
    description: str
    location: str
    start: When
    end: When
    attendees: list[Guest]
    organizer: Who
    creator: Who
    transparency: Literal["opaque", "transparent"]
    created: Stamp
    updated: Stamp


class SlackMessage(Record):
    ts: Ts
    type: Literal["message"]
    channelId: str
    user: str
    text: str
    thread_ts: Ts | None


class Mail(Record):
    id: str
    threadId: str
    labelIds: list[str]
    # "from" is a Python keyword: the field is named from_ and stored as "from".
    from_: str = msgspec.field(name="from")
    to: str
    cc: str
    subject: str
    date: str
    internalDate: Annotated[str, Meta(pattern=r"^\d+$")]
    messageId: str
    inReplyTo: str | None
    body: str
    historyId: str


class Draft(Record):
    id: str
    messageId: str
    threadId: str
    to: str
    cc: str
    subject: str
    body: str
    inReplyTo: str | None
    created: Stamp


class Label(Record):
    id: str
    name: str
    type: Literal["system", "user"]
    messageListVisibility: Literal["show", "hide"]
    labelListVisibility: Literal["labelShow", "labelShowIfUnread", "labelHide"]


class Topic(Record):
    value: str
    creator: str
    last_set: int


class Channel(Record):
    id: str
    name: str
    is_channel: bool
    is_private: bool
    is_archived: bool
    created: int
    creator: str
    topic: Topic
    purpose: Topic
    members: list[str]


class Profile(Record):
    title: str
    real_name: str
    display_name: str
    email: str
    phone: str


class User(Record):
    id: str
    team_id: str
    name: str
    real_name: str
    deleted: bool
    is_bot: bool
    is_admin: bool
    tz: str
    tz_offset: int
    profile: Profile


class CalendarEntry(Record):
    id: str
    kind: Literal["calendar#calendarListEntry"]
    summary: str
    description: str
    timeZone: str
    accessRole: Literal["owner", "writer", "reader", "freeBusyReader"]
    primary: bool


def _when_issue(at: str, when: dict):
    has_date, has_time = "date" in when, "dateTime" in when
    if has_date == has_time:
        return Issue(at, "give exactly one of date (all-day) or dateTime")
    try:
        clock.parse_date(when["date"]) if has_date else clock.parse(when["dateTime"])
    except ValueError as e:
        return Issue(at, str(e))
    return None


def rules(state: dict):
    """What the tools rely on beyond each record's type."""
    cals = state.get("calendars", {})
    if ASSISTANT_EMAIL not in cals or not cals[ASSISTANT_EMAIL]["primary"]:
        yield Issue(record_path("calendars", ASSISTANT_EMAIL), "the assistant's primary calendar is missing")
    if ASSISTANT.uid not in state.get("users", {}):
        yield Issue(record_path("users", ASSISTANT.uid), "the assistant's Slack user U_ASSIST is missing")
    labels = state.get("labels", {})
    for rid, m in state.get("messages", {}).items():
        for lid in m["labelIds"]:
            if lid not in labels:
                yield Issue(f"{record_path('messages', rid)}.labelIds", f"unknown label {lid!r}")
    channels = state.get("channels", {})
    for rid, m in state.get("slack_messages", {}).items():
        if m["ts"] != rid:
            yield Issue(f"{record_path('slack_messages', rid)}.ts", "a message's key is its ts; make them equal")
        if m["channelId"] not in channels:
            yield Issue(f"{record_path('slack_messages', rid)}.channelId", f"unknown channel {m['channelId']!r}")
    for rid, ev in state.get("events", {}).items():
        for end in ("start", "end"):
            issue = _when_issue(f"{record_path('events', rid)}.{end}", ev[end])
            if issue is not None:
                yield issue


SCHEMA = StateSchema(
    records={
        "events": Event,
        "slack_messages": SlackMessage,
        "messages": Mail,
        "drafts": Draft,
        "labels": Label,
        "channels": Channel,
        "users": User,
        "calendars": CalendarEntry,
    },
    required=("calendars", "labels", "channels", "users"),
    rules=rules,
)
