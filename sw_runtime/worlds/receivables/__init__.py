"""Receivables: an accounts-receivable team's world, after reference 004's sandbox run.

Customers with contacts and payment terms; invoices with line items, due
dates, statuses and payments; a mailbox; Slack; tasks; registered webhooks.
Its twelve tools carry 004's names and classes (five safe, seven guarded),
and in a sandbox episode the guarded ones answer 004's ``would_*`` previews.
Episodes may start from 004's triggers (``invoice``, ``email_received``,
``cron``).

- ``state.py``: the data model and the seeded generator
- ``schema.py``: the records as types, which custom seeds are parsed with
- ``cast.py``: who plays which part in a start state
- ``tools.py``: the twelve tools
- ``triggers.py``: the three triggers
- ``tasks.py``: ar-01 to ar-15
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="receivables",
    version="1.0.0",
    title="Receivables",
    description=("Accounts receivable: customers, invoices and payments, a mailbox, Slack, tasks and webhooks. "
                 "Tools are classed safe or guarded; a sandbox episode previews guarded calls. Amounts are "
                 "integer cents."),
)

__all__ = ["WORLD"]
