"""The seeded start state of the office: ``generate(seed)``.

Collections (exactly those of reference 001): ``events`` (calendar events),
``slack_messages`` (by ts), ``messages`` (mail, by id), ``drafts``,
``labels``, ``channels``, ``users`` (Slack) and ``calendars`` (the calendar
list the assistant sees, by calendar id: an email).

The quickstart's facts hold on every seed: twelve mails with the offsite
thread and the venue's mail, fifteen Slack users in four channels, the six
leaders' calendars from 9 to 24 November 2026 with Friday 13 November the
only working day from the 12th to the 14th when all six are free, and the
simulated now, Monday 26 October 2026 08:00 UTC. What the seed varies is
listed in ``seed_calendar``, ``seed_mail`` and ``seed_chat``.

Records are stored in the world's own terms (mail bodies as text, attendees
as plain lists); the tools render them in the real APIs' shapes.
"""

from __future__ import annotations

import random

from . import seed_calendar, seed_chat, seed_mail
from .clock import EPOCH, TZ
from .office import ASSISTANT_EMAIL, LEADERS, ROOMS

COLLECTIONS = ("events", "slack_messages", "messages", "drafts", "labels", "channels", "users", "calendars")

__all__ = ["COLLECTIONS", "EPOCH", "generate", "facts"]


def _calendars() -> dict:
    out = {ASSISTANT_EMAIL: {"id": ASSISTANT_EMAIL, "kind": "calendar#calendarListEntry",
                             "summary": ASSISTANT_EMAIL, "description": "The assistant's own calendar",
                             "timeZone": TZ, "accessRole": "owner", "primary": True}}
    for p in LEADERS:
        out[p.email] = {"id": p.email, "kind": "calendar#calendarListEntry", "summary": p.name,
                        "description": p.title, "timeZone": TZ, "accessRole": "writer", "primary": False}
    for r in ROOMS:
        out[r.email] = {"id": r.email, "kind": "calendar#calendarListEntry",
                        "summary": f"Meeting room {r.name} ({r.capacity} people)",
                        "description": f"Book it by inviting {r.email} to the event.",
                        "timeZone": TZ, "accessRole": "reader", "primary": False}
    return out


def facts(seed: int) -> dict:
    """Everything one seed decided, records and choices alike."""
    rng = random.Random(f"offsite-planning/{seed}")
    cal = seed_calendar.build(rng)
    mail = seed_mail.build(rng, cal)
    chat, chat_facts = seed_chat.messages(rng)
    return {"calendar": cal, "mail": mail, "chat": chat_facts, "users": seed_chat.users(rng),
            "slack_messages": chat}


def generate(seed: int) -> dict:
    """The start state for ``seed``: ``{collection: {id: record}}``."""
    f = facts(seed)
    return {
        "events": {ev["id"]: ev for ev in f["calendar"]["events"]},
        "slack_messages": f["slack_messages"],
        "messages": f["mail"]["messages"],
        "drafts": f["mail"]["drafts"],
        "labels": f["mail"]["labels"],
        "channels": seed_chat.channels(),
        "users": f["users"],
        "calendars": _calendars(),
    }
