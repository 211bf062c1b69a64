"""Halcyon Air's state schema: its records as types, for custom seeds.

The generator produces exactly these records and the tools rely on them.
Money is integer cents; times are UTC ``YYYY-MM-DDTHH:MM``; dates
``YYYY-MM-DD``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path
from . import rules

Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d$")]
Day = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$")]
Cents = Annotated[int, Meta(ge=0, le=100_000_000)]
Money = Annotated[int, Meta(ge=-100_000_000, le=100_000_000)]  # a payment line: negative for a refund
Code = Annotated[str, Meta(pattern=r"^[A-Z]{3}$")]
Cabin = Literal[rules.CABINS]  # type: ignore[valid-type]
Tier = Literal[rules.TIERS]  # type: ignore[valid-type]
Cause = Literal[("", *rules.CAUSES)]  # type: ignore[valid-type]


class Airport(Record):
    id: Code
    name: str
    city: str


class Fare(Record):
    id: str
    name: str
    price_pct: Annotated[int, Meta(ge=1, le=1000)]
    changes_allowed: bool
    change_fee: Cents
    refundable: bool


class CabinCounts(Record):
    economy: Annotated[int, Meta(ge=0, le=1000)]
    business: Annotated[int, Meta(ge=0, le=1000)]


class CabinPrices(Record):
    economy: Cents
    business: Cents


class Flight(Record):
    id: str
    number: Annotated[str, Meta(pattern=r"^HA\d{4}$")]
    origin: Code
    destination: Code
    date: Day
    departs_at: Time
    arrives_at: Time
    status: Literal["scheduled", "delayed", "cancelled", "departed"]
    delay_minutes: Annotated[int, Meta(ge=0, le=24 * 60)]
    cause: Cause
    seats: CabinCounts
    prices: CabinPrices


class Member(Record):
    id: str
    first_name: str
    last_name: str
    email: str
    date_of_birth: Day
    tier: Tier
    member_since: Day
    payment_methods: list[str]
    reservations: list[str]


class PaymentMethod(Record):
    id: str
    member_id: str
    kind: Literal["card", "gift_card", "certificate"]
    label: str
    balance: Cents | None
    issued_for: str
    reservation_id: str
    issued_at: str


class Segment(Record):
    flight_id: str
    number: str
    origin: Code
    destination: Code
    date: Day
    price: Cents


class Passenger(Record):
    first_name: Annotated[str, Meta(min_length=1, max_length=60)]
    last_name: Annotated[str, Meta(min_length=1, max_length=60)]
    date_of_birth: Day


class Payment(Record):
    payment_id: str
    amount: Money


class Event(Record):
    at: Time
    action: str
    amount: Money
    detail: str


class Reservation(Record):
    id: str
    member_id: str
    origin: Code
    destination: Code
    trip: Literal["one_way", "round_trip"]
    cabin: Cabin
    fare: str
    flights: Annotated[list[Segment], Meta(min_length=1)]
    passengers: Annotated[list[Passenger], Meta(min_length=1, max_length=9)]
    bags: Annotated[int, Meta(ge=0, le=45)]
    insurance: bool
    status: Literal["confirmed", "cancelled", "completed"]
    booked_at: Time
    payments: list[Payment]
    history: list[Event]


class Transfer(Record):
    id: str
    member_id: str
    summary: str
    at: str


def rules_of(state: dict):
    """What the tools rely on beyond each record's type."""
    members, methods, flights = state.get("members", {}), state.get("payment_methods", {}), state.get("flights", {})
    fares = state.get("fares", {})
    for rid, m in members.items():
        for pid in m["payment_methods"]:
            if methods.get(pid, {}).get("member_id") != rid:
                yield Issue(f"{record_path('members', rid)}.payment_methods", f"{pid!r} is not a method of {rid}")
        for res in m["reservations"]:
            if state.get("reservations", {}).get(res, {}).get("member_id") != rid:
                yield Issue(f"{record_path('members', rid)}.reservations", f"{res!r} is not a reservation of {rid}")
    for rid, p in methods.items():
        if (p["kind"] == "card") != (p["balance"] is None):
            yield Issue(f"{record_path('payment_methods', rid)}.balance", "a card has no balance; the others do")
    for rid, r in state.get("reservations", {}).items():
        if r["member_id"] not in members:
            yield Issue(f"{record_path('reservations', rid)}.member_id", f"no member {r['member_id']!r}")
        if r["fare"] not in fares:
            yield Issue(f"{record_path('reservations', rid)}.fare", f"no fare {r['fare']!r}")
        for i, s in enumerate(r["flights"]):
            if s["flight_id"] not in flights:
                yield Issue(f"{record_path('reservations', rid)}.flights[{i}]", f"no flight {s['flight_id']!r}")


SCHEMA = StateSchema(
    records={
        "airports": Airport,
        "fares": Fare,
        "flights": Flight,
        "members": Member,
        "payment_methods": PaymentMethod,
        "reservations": Reservation,
        "transfers": Transfer,
    },
    required=("airports", "fares", "flights", "members", "payment_methods", "reservations"),
    rules=rules_of,
)
