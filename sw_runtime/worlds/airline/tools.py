"""Halcyon Air's tools: what the travel desk's agent can do.

Seven safe reads and eight guarded writes (``writes.py``). Every amount is
integer cents. The tools enforce what the booking system enforces (seats,
connections, balances, a trip already flown, amounts that add up); what
only the policy forbids (changing a Saver fare, cancelling a fare that is
not refundable, compensation for weather, another member's reservation) the
tools allow: that is what the tasks test.
"""

from __future__ import annotations

from ..tool import Refused, tool
from . import network, rules
from .args import MemberRef, NoArgs, ReservationRef, SearchArgs, StatusArgs
from .writes import WRITES


def fare_table(flight: dict, fares) -> dict:
    """cabin -> fare -> what one passenger pays today."""
    return {cabin: {fid: rules.fare_price(flight, cabin, fare) for fid, fare in fares} for cabin in rules.CABINS}


def flight_view(flight: dict, fares) -> dict:
    out = {k: flight[k] for k in ("id", "number", "origin", "destination", "date", "departs_at", "arrives_at",
                                  "status", "delay_minutes", "cause")}
    out["estimated_departure"] = rules.departure(flight)
    out["estimated_arrival"] = rules.add_minutes(flight["arrives_at"], flight["delay_minutes"])
    out["available_seats"] = dict(flight["seats"])
    out["prices"] = fare_table(flight, fares) if rules.bookable(flight) else None
    return out


def _fares(ctx) -> list:
    return ctx.store.scan("fares")


def _airport(ctx, code: str) -> None:
    if ctx.store.get("airports", code) is None:
        raise Refused("not_found", f"no airport {code}; list_airports gives the codes")


def _legs(ctx, origin, dest, date) -> list:
    return ctx.store.select("flights", {"origin": origin, "destination": dest, "date": date})


@tool(writes=False, params=NoArgs, pure=True, reads=("airports",))
def list_airports(ctx, args):
    """The airports Halcyon Air flies to: code, name, city."""
    return {"airports": ctx.store.select_json("airports")}  # id order, as scan; no dict per airport


@tool(writes=False, params=NoArgs, pure=True, reads=("fares",))
def list_fares(ctx, args):
    """The fare classes and their rules: price_pct (the share of the flight's base price this fare costs),
    changes_allowed, change_fee (cents per passenger) and refundable. Bags, insurance and compensation are in the
    policy."""
    return {"fares": [f for _, f in _fares(ctx)]}


@tool(writes=False, params=SearchArgs, pure=True, reads=("airports", "fares", "flights"))
def search_direct_flights(ctx, args):
    """Direct flights from origin to destination leaving on date, by departure time: each with its id, status
    (scheduled, delayed, cancelled or departed), delay, available seats per cabin and, when it can still be
    booked, today's price per passenger for each cabin and fare, in cents."""
    _airport(ctx, args.origin)
    _airport(ctx, args.destination)
    fares = _fares(ctx)
    flights = sorted(_legs(ctx, args.origin, args.destination, args.date), key=lambda f: f["departs_at"])
    return {"flights": [flight_view(f, fares) for f in flights]}


@tool(writes=False, params=SearchArgs, pure=True, reads=("airports", "fares", "flights"))
def search_onestop_flights(ctx, args):
    """Trips with one stop from origin to destination, the first flight leaving on date and the second 1 to 6
    hours after it lands, by arrival: only flights that can still be booked. Each trip gives both flights and,
    per cabin and fare, the price per passenger of both together."""
    _airport(ctx, args.origin)
    _airport(ctx, args.destination)
    fares = _fares(ctx)
    trips = []
    for hub in network.HUBS:
        if hub in (args.origin, args.destination):
            continue
        for first in _legs(ctx, args.origin, hub, args.date):
            for day in (args.date, rules.shift_day(args.date, 1)):
                for second in _legs(ctx, hub, args.destination, day):
                    gap = rules.minutes_between(first["arrives_at"], second["departs_at"])
                    if rules.MIN_CONNECTION <= gap <= 360 and rules.bookable(first) and rules.bookable(second):
                        a, b = fare_table(first, fares), fare_table(second, fares)
                        trips.append({"flights": [flight_view(first, fares), flight_view(second, fares)],
                                      "departs_at": first["departs_at"], "arrives_at": second["arrives_at"],
                                      "prices": {c: {k: a[c][k] + b[c][k] for k in a[c]} for c in a}})
    trips.sort(key=lambda t: (t["arrives_at"], t["departs_at"]))
    return {"trips": trips}


@tool(writes=False, params=StatusArgs, pure=True, reads=("fares", "flights"))
def get_flight_status(ctx, args):
    """One flight by number and date: its status, the cause of a delay or cancellation (crew, technical,
    weather or air_traffic_control), its scheduled and estimated times (UTC), seats and today's prices."""
    f = ctx.store.get("flights", f"{args.flight_number}-{args.date}")
    if f is None:
        raise Refused("not_found", f"{args.flight_number} does not fly on {args.date}")
    return flight_view(f, _fares(ctx))


@tool(writes=False, params=MemberRef, pure=True, reads=("members", "payment_methods"))
def get_member(ctx, args):
    """A member's profile: name, date of birth, tier (regular, silver, gold, platinum), payment methods (cards;
    gift cards and travel certificates with their balances in cents) and the ids of their reservations."""
    m = ctx.store.get("members", args.member_id)
    if m is None:
        raise Refused("not_found", f"no member {args.member_id}")
    methods = [ctx.store.get("payment_methods", p) for p in m["payment_methods"]]
    return {**m, "payment_methods": [{k: p[k] for k in ("id", "kind", "label", "balance", "issued_for")}
                                     for p in methods]}


@tool(writes=False, params=ReservationRef, pure=True, reads=("reservations",))
def get_reservation(ctx, args):
    """A reservation: its member, trip, cabin, fare, flights (each with the price paid per passenger),
    passengers, bags, insurance, status (confirmed, cancelled or completed), when it was booked, its payments
    (refunds are negative) and its history."""
    r = ctx.store.get("reservations", args.reservation_id.strip().upper()) or ctx.store.get(
        "reservations", args.reservation_id.strip())
    if r is None:
        raise Refused("not_found", f"no reservation {args.reservation_id}")
    return {**r, "paid": rules.paid(r)}


TOOLS = [list_airports, list_fares, search_direct_flights, search_onestop_flights, get_flight_status, get_member,
         get_reservation, *WRITES]
