"""Offsite planning: Nordlys Analytics AS, an office with mail, chat and
calendars (reference 001).

A 14-person software company in Oslo. The agent is its operations assistant,
with its own Gmail mailbox, Slack user (``U_ASSIST``) and calendar, and it
manages the six leaders' calendars. Tools copy the real APIs' method names,
parameters and answers (``gmail.messages.list``, ``slack.chat.postMessage``,
``calendar.freebusy.query``...). Simulated now is Monday 26 October 2026,
08:00 UTC; Erik and Mari answer the assistant's offsite post in #leadership.

- ``office.py``: the people, channels and rooms (the same on every seed)
- ``clock.py``: Oslo time, RFC 3339, Slack ts
- ``state.py`` with ``seed_calendar.py``, ``seed_mail.py``, ``seed_chat.py``: the seeded state
- ``schema.py``: the records as types, for custom seeds
- ``gmail.py``, ``slack.py``, ``gcal.py``: the tools; ``busy.py``: who is free when
- ``reactions.py``: the colleagues who answer
- ``cast.py`` and ``tasks.py``: what the tasks are about, and the tasks
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package
from . import gcal, gmail, slack

WORLD = from_package(
    __name__,
    name="offsite-planning",
    version="1.0.0",
    title="Offsite planning",
    description=(
        "Nordlys Analytics AS is a 14-person software company in Oslo working in English. The agent is its ops "
        "assistant, with its own mailbox, Slack user and calendar. The seed holds twelve mails (the three-message "
        "\"Q4 offsite\" thread and nine unrelated ones), fifteen Slack users in four channels with about thirty "
        "messages of office chatter, and Google Calendar entries for the six leaders from 9 to 24 November 2026. "
        "Simulated now is Monday 26 October 2026, 08:00 UTC."
    ),
    tools=gmail.TOOLS + slack.TOOLS + gcal.TOOLS,  # three modules, one per real API
)

__all__ = ["WORLD"]
