"""Coinpurse's state schema: the records its tools read and write, as types.

The generator (``state.py``) produces exactly these records and the tools
(``tools.py``) rely on them; a custom seed must match them too. Every field is
required (use null where a field allows it), so a valid seed is stored as
given. Amounts are integer cents; times are ``YYYY-MM-DDTHH:MM:SS.mmmZ``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path
from .state import ACCOUNT_ID

Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$",
                           description="UTC time, e.g. 2026-03-05T18:00:00.000Z")]
Handle = Annotated[str, Meta(pattern=r"^@[a-z0-9][a-z0-9_-]{2,29}$",
                             description="@ then 3 to 30 lowercase letters, digits, - or _")]
Name = Annotated[str, Meta(min_length=1, max_length=80)]
Note = Annotated[str, Meta(min_length=1, max_length=140)]
Cents = Annotated[int, Meta(gt=0, le=100_000_000, description="integer cents")]
Balance = Annotated[int, Meta(ge=0, le=100_000_000_000, description="integer cents")]
Status = Literal["pending", "paid", "declined"]


class Account(Record):
    id: str
    name: Name
    handle: Handle
    currency: Literal["USD"]
    balance: Balance
    daily_limit: Balance
    sent_today: Balance
    limit_resets_at: Time


class Contact(Record):
    id: str
    name: Name
    handle: Handle
    verified: bool
    blocked: bool
    added_at: Time


class Request(Record):
    """A payment request someone sent the user."""

    id: str
    name: Name
    handle: str  # a requester need not be a contact, nor have a well-formed handle
    amount: Cents
    note: Note
    status: Status
    created_at: Time
    resolved_at: Time | None
    transaction_id: str | None


class Transaction(Record):
    id: str
    type: Literal["payment", "card", "transfer"]
    direction: Literal["in", "out"]
    amount: Cents
    counterparty: Name
    handle: str | None
    contact_id: str | None
    note: Note
    request_id: str | None
    created_at: Time


class Outgoing(Record):
    """A request for money the user sent to a contact."""

    id: str
    contact_id: str
    name: Name
    handle: Handle
    amount: Cents
    note: Note
    status: Status
    created_at: Time
    resolved_at: Time | None


def rules(state: dict):
    """What the tools rely on beyond each record's type."""
    account = state.get("account", {})
    if ACCOUNT_ID not in account:
        yield Issue(record_path("account", ACCOUNT_ID), f"the account record {ACCOUNT_ID!r} is missing; "
                                                        "every coinpurse state has exactly one")
    for rid in account:
        if rid != ACCOUNT_ID:
            yield Issue(record_path("account", rid), f"the account collection holds one record, {ACCOUNT_ID!r}")
    seen: dict = {}
    for rid, contact in state.get("contacts", {}).items():
        first = seen.setdefault(contact["handle"], rid)
        if first != rid:
            yield Issue(f"{record_path('contacts', rid)}.handle",
                        f"{contact['handle']} is already the handle of contact {first}; a handle identifies one person")


SCHEMA = StateSchema(
    records={
        "account": Account,
        "contacts": Contact,
        "requests": Request,
        "transactions": Transaction,
        "outgoing": Outgoing,
    },
    required=("account",),
    rules=rules,
)
