"""Halcyon Air's guarded tools: book, change, cancel, compensate, transfer.

Each checks everything first and raises ``Refused`` before its first write.
Money moves through ``payments.py`` (charges that add up, refunds to the
original method); seats follow the bookings: a booking takes them, a change
or a cancellation gives them back.
"""

from __future__ import annotations

from ..tool import Refused, tool
from . import payments, rules
from .args import (BagsArgs, BookArgs, CancelArgs, CertificateArgs, ChangeCabinArgs, ChangeFlightsArgs,
                   PassengersArgs, TransferArgs)


def _now(ctx) -> str:
    return ctx.at[:16]


def _member(ctx, member_id: str) -> dict:
    m = ctx.store.get("members", member_id)
    if m is None:
        raise Refused("not_found", f"no member {member_id}")
    return m


def _reservation(ctx, rid: str, changing: bool = True) -> dict:
    r = ctx.store.get("reservations", rid.strip().upper()) or ctx.store.get("reservations", rid.strip())
    if r is None:
        raise Refused("not_found", f"no reservation {rid}")
    if changing and r["status"] != "confirmed":
        raise Refused("not_changeable", f"reservation {r['id']} is {r['status']}: only a confirmed one can change")
    return r


def _flights(ctx, ids: list) -> list:
    out = []
    for fid in ids:
        f = ctx.store.get("flights", fid)
        if f is None:
            raise Refused("not_found", f"no flight {fid}; use the id the searches answer, e.g. HA0412-2026-06-18")
        out.append(f)
    if len({f["id"] for f in out}) != len(out):
        raise Refused("invalid_itinerary", "a flight is listed twice")
    return out


def _seats_ok(f: dict, cabin: str, pax: int) -> None:
    if not rules.bookable(f):
        raise Refused("not_bookable", f"{f['number']} on {f['date']} is {f['status']}: it cannot be booked")
    if f["seats"][cabin] < pax:
        raise Refused("no_seats", f"{f['number']} on {f['date']} has {f['seats'][cabin]} {cabin} seats left, "
                                  f"not {pax}")


def _move_seats(ctx, f: dict, cabin: str, n: int) -> None:
    """Take (n > 0) or give back (n < 0) seats on a flight that still flies."""
    if f["status"] in ("scheduled", "delayed"):
        f = ctx.store.get("flights", f["id"])
        ctx.store.update("flights", f["id"], {"seats": {**f["seats"], cabin: f["seats"][cabin] - n}})


def _event(ctx, action: str, amount: int, detail: str) -> dict:
    return {"at": _now(ctx), "action": action, "amount": amount, "detail": detail}


def _segment(f: dict, price: int) -> dict:
    return {"flight_id": f["id"], "number": f["number"], "origin": f["origin"], "destination": f["destination"],
            "date": f["date"], "price": price}


@tool(writes=True, params=BookArgs, pure=True, preview="would_book")
def book_reservation(ctx, args):
    """Book a trip for a member: every flight in order, one cabin and fare for all, the passengers, checked bags
    and insurance, paid now. The total is each flight's price for the cabin and fare times the passengers, plus
    bags beyond the free allowance ($40.00 each) and insurance ($30.00 per passenger); the payments must add up
    to it exactly (the refusal says the amount due). Refused with not_found, invalid_itinerary, not_bookable,
    no_seats, amount_mismatch or insufficient_balance; a refused call changes nothing."""
    m = _member(ctx, args.member_id)
    flights = _flights(ctx, args.flights)
    problem = rules.itinerary_problem(flights, args.origin, args.destination, args.trip_type)
    if problem:
        raise Refused("invalid_itinerary", problem)
    pax = len(args.passengers)
    for f in flights:
        _seats_ok(f, args.cabin, pax)
    if args.bags > rules.MAX_BAGS_PER_PASSENGER * pax:
        raise Refused("too_many_bags", f"at most {rules.MAX_BAGS_PER_PASSENGER} checked bags per passenger")
    fare = ctx.store.get("fares", args.fare)
    total = rules.booking_total(flights, args.cabin, fare, m["tier"], pax, args.bags, args.insurance)
    if total <= 0:
        raise Refused("amount_mismatch", "this booking costs nothing")
    methods = payments.check(ctx, m, args.payments, total)
    rid = ctx.new_id("reservations", "HA")
    for f in flights:
        _move_seats(ctx, f, args.cabin, pax)
    r = {"id": rid, "member_id": m["id"], "origin": args.origin, "destination": args.destination,
         "trip": args.trip_type, "cabin": args.cabin, "fare": args.fare,
         "flights": [_segment(f, rules.fare_price(f, args.cabin, fare)) for f in flights],
         "passengers": [{"first_name": p.first_name, "last_name": p.last_name, "date_of_birth": p.date_of_birth}
                        for p in args.passengers],
         "bags": args.bags, "insurance": args.insurance, "status": "confirmed", "booked_at": _now(ctx),
         "payments": payments.charge(ctx, methods, args.payments),
         "history": [_event(ctx, "booked", total, f"{pax} passenger(s), {args.cabin}, {fare['name']}")]}
    ctx.store.insert("reservations", rid, r)
    ctx.store.update("members", m["id"], {"reservations": [*m["reservations"], rid]})
    return {**r, "paid": total}


@tool(writes=True, params=ChangeFlightsArgs, pure=True, preview="would_change_flights")
def change_flights(ctx, args):
    """Change the flights of a confirmed reservation, keeping its origin, destination, trip type, cabin, fare and
    passengers: list every flight after the change. A flight kept keeps its price; for the new ones the member
    pays today's price less what the replaced ones cost, times the passengers, plus the fare's change fee per
    passenger (waived for gold and platinum members); a negative difference goes back to the original payment
    method. When a replaced flight was cancelled by us, the change is free. The system does not check whether
    the fare allows changes: the policy says which do. Refused with not_found, not_changeable, flown,
    invalid_itinerary, not_bookable, no_seats, amount_mismatch or insufficient_balance."""
    r = _reservation(ctx, args.reservation_id)
    m = _member(ctx, r["member_id"])
    flights = _flights(ctx, args.flights)
    problem = rules.itinerary_problem(flights, r["origin"], r["destination"], r["trip"])
    if problem:
        raise Refused("invalid_itinerary", problem)
    new_ids = [f["id"] for f in flights]
    removed = [s for s in r["flights"] if s["flight_id"] not in new_ids]
    kept = {s["flight_id"]: s for s in r["flights"] if s["flight_id"] in new_ids}
    added = [f for f in flights if f["id"] not in kept]
    if not added and not removed:
        raise Refused("invalid_itinerary", "these are the reservation's flights already")
    gone = [ctx.store.get("flights", s["flight_id"]) for s in removed]
    for f in gone:
        if rules.flown(f):
            raise Refused("flown", f"{f['number']} on {f['date']} has departed: a flown flight cannot be changed")
    pax = len(r["passengers"])
    for f in added:
        _seats_ok(f, r["cabin"], pax)
    fare = ctx.store.get("fares", r["fare"])
    prices = {f["id"]: rules.fare_price(f, r["cabin"], fare) for f in added}
    free = any(f["status"] == "cancelled" for f in gone)
    due = 0 if free else ((sum(prices.values()) - sum(s["price"] for s in removed)) * pax
                          + rules.change_fee(fare, m["tier"], pax))
    lines = payments.settle(ctx, r, m, due, args.payments)
    for f in gone:
        _move_seats(ctx, f, r["cabin"], -pax)
    for f in added:
        _move_seats(ctx, f, r["cabin"], pax)
    segments = [kept[f["id"]] if f["id"] in kept else _segment(f, prices[f["id"]]) for f in flights]
    detail = f"{', '.join(s['number'] + ' ' + s['date'] for s in removed)} -> " + ", ".join(
        f["number"] + " " + f["date"] for f in added)
    out = ctx.store.update("reservations", r["id"], {
        "flights": segments, "payments": [*r["payments"], *lines],
        "history": [*r["history"], _event(ctx, "flights_changed", due, detail)]})
    return {**out, "paid": rules.paid(out), "charged": due}


@tool(writes=True, params=ChangeCabinArgs, pure=True, preview="would_change_cabin")
def change_cabin(ctx, args):
    """Move every passenger of a confirmed reservation to another cabin on all its flights. The difference
    between today's price in the new cabin and what each flight cost, times the passengers, is charged to the
    payments (or, when negative, refunded to the original payment method). The system does not check whether the
    fare allows it: the policy says. Refused with not_found, not_changeable, flown, not_bookable, no_seats,
    amount_mismatch or insufficient_balance."""
    r = _reservation(ctx, args.reservation_id)
    m = _member(ctx, r["member_id"])
    if args.cabin == r["cabin"]:
        raise Refused("invalid_request", f"reservation {r['id']} is in {r['cabin']} already")
    flights = [ctx.store.get("flights", s["flight_id"]) for s in r["flights"]]
    pax = len(r["passengers"])
    for f in flights:
        if rules.flown(f):
            raise Refused("flown", f"{f['number']} on {f['date']} has departed: the cabin cannot change now")
        _seats_ok(f, args.cabin, pax)
    fare = ctx.store.get("fares", r["fare"])
    prices = [rules.fare_price(f, args.cabin, fare) for f in flights]
    due = (sum(prices) - sum(s["price"] for s in r["flights"])) * pax
    lines = payments.settle(ctx, r, m, due, args.payments)
    for f in flights:
        _move_seats(ctx, f, r["cabin"], -pax)
        _move_seats(ctx, f, args.cabin, pax)
    out = ctx.store.update("reservations", r["id"], {
        "cabin": args.cabin, "flights": [{**s, "price": p} for s, p in zip(r["flights"], prices)],
        "payments": [*r["payments"], *lines],
        "history": [*r["history"], _event(ctx, "cabin_changed", due, f"{r['cabin']} -> {args.cabin}")]})
    return {**out, "paid": rules.paid(out), "charged": due}


@tool(writes=True, params=PassengersArgs, pure=True, preview="would_update_passengers")
def update_passengers(ctx, args):
    """Correct the passengers' names or dates of birth on a confirmed reservation: list every passenger after
    the change, as many as before. Refused with not_found, not_changeable or passenger_count."""
    r = _reservation(ctx, args.reservation_id)
    if len(args.passengers) != len(r["passengers"]):
        raise Refused("passenger_count", f"reservation {r['id']} has {len(r['passengers'])} passenger(s); their "
                                         "number cannot change (book a new reservation for another traveller)")
    people = [{"first_name": p.first_name, "last_name": p.last_name, "date_of_birth": p.date_of_birth}
              for p in args.passengers]
    return ctx.store.update("reservations", r["id"], {
        "passengers": people, "history": [*r["history"], _event(ctx, "passengers_updated", 0, "")]})


@tool(writes=True, params=BagsArgs, pure=True, preview="would_update_bags")
def update_bags(ctx, args):
    """Set the number of checked bags of a confirmed reservation (never fewer than now). Each passenger has a
    free allowance by the member's tier and the cabin (the policy's table); every bag beyond it costs $40.00,
    and the payments must add up to the new bags' cost exactly (the refusal says the amount due). Refused with
    not_found, not_changeable, flown, bags_cannot_decrease, too_many_bags, amount_mismatch or
    insufficient_balance."""
    r = _reservation(ctx, args.reservation_id)
    m = _member(ctx, r["member_id"])
    pax = len(r["passengers"])
    if args.bags < r["bags"]:
        raise Refused("bags_cannot_decrease", f"reservation {r['id']} has {r['bags']} bags; bags cannot be removed")
    if args.bags > rules.MAX_BAGS_PER_PASSENGER * pax:
        raise Refused("too_many_bags", f"at most {rules.MAX_BAGS_PER_PASSENGER} checked bags per passenger")
    if all(rules.flown(ctx.store.get("flights", s["flight_id"])) for s in r["flights"]):
        raise Refused("flown", f"every flight of {r['id']} has departed")
    due = (rules.bag_cost(m["tier"], r["cabin"], pax, args.bags)
           - rules.bag_cost(m["tier"], r["cabin"], pax, r["bags"]))
    lines = payments.settle(ctx, r, m, due, args.payments)
    out = ctx.store.update("reservations", r["id"], {
        "bags": args.bags, "payments": [*r["payments"], *lines],
        "history": [*r["history"], _event(ctx, "bags_changed", due, f"{r['bags']} -> {args.bags}")]})
    return {**out, "paid": rules.paid(out), "charged": due}


@tool(writes=True, params=CancelArgs, pure=True, preview="would_cancel")
def cancel_reservation(ctx, args):
    """Cancel a confirmed reservation none of whose flights has departed, and refund everything it cost to the
    payment methods that paid (gift cards and certificates get their balance back). The system refunds in full
    whatever the fare: the policy says when a cancellation is allowed. Refused with not_found, not_changeable
    or flown."""
    r = _reservation(ctx, args.reservation_id)
    flights = [ctx.store.get("flights", s["flight_id"]) for s in r["flights"]]
    for f in flights:
        if rules.flown(f):
            raise Refused("flown", f"{f['number']} on {f['date']} has departed: a trip that has begun cannot be "
                                   "cancelled here (transfer to a human agent)")
    refunds = []
    for pid, amount in rules.paid_by(r).items():
        if amount > 0:
            payments.credit(ctx, pid, amount)
            refunds.append({"payment_id": pid, "amount": -amount})
    for f in flights:
        _move_seats(ctx, f, r["cabin"], -len(r["passengers"]))
    total = -sum(p["amount"] for p in refunds)
    out = ctx.store.update("reservations", r["id"], {
        "status": "cancelled", "payments": [*r["payments"], *refunds],
        "history": [*r["history"], _event(ctx, "cancelled", -total, f"reason: {args.reason}")]})
    return {**out, "paid": rules.paid(out), "refunded": total}


@tool(writes=True, params=CertificateArgs, pure=True, preview="would_issue_certificate")
def issue_certificate(ctx, args):
    """Give a member a travel certificate (a payment method with a balance, for future bookings) as compensation
    for a delayed or cancelled flight of their reservation (or one it was moved off). The system does not check
    the amount or whether one was given before: the policy says who gets what. Refused with not_found."""
    m = _member(ctx, args.member_id)
    r = _reservation(ctx, args.reservation_id, changing=False)
    if r["member_id"] != m["id"]:
        raise Refused("not_found", f"{m['id']} has no reservation {r['id']}")
    replaced = any(h["action"] == "flights_changed" and f"{args.flight_id[:6]} {args.flight_id[7:]}" in h["detail"]
                   for h in r["history"])  # a cancelled flight the member was moved off still counts
    if args.flight_id not in [s["flight_id"] for s in r["flights"]] and not replaced:
        raise Refused("not_found", f"reservation {r['id']} has no flight {args.flight_id}")
    pid = ctx.new_id("payment_methods", "pm")
    cert = {"id": pid, "member_id": m["id"], "kind": "certificate", "label": "Travel certificate",
            "balance": args.amount, "issued_for": args.flight_id, "reservation_id": r["id"], "issued_at": _now(ctx)}
    ctx.store.insert("payment_methods", pid, cert)
    ctx.store.update("members", m["id"], {"payment_methods": [*m["payment_methods"], pid]})
    return cert


@tool(writes=True, params=TransferArgs, pure=True, preview="would_transfer")
def transfer_to_human_agent(ctx, args):
    """Hand the member over to a human agent, with a summary of what they want and why you could not do it.
    Use it only when the policy says to. Refused with not_found."""
    m = _member(ctx, args.member_id)
    tid = ctx.new_id("transfers", "tr")
    t = {"id": tid, "member_id": m["id"], "summary": args.summary.strip(), "at": _now(ctx)}
    ctx.store.insert("transfers", tid, t)
    return {**t, "message": "A human agent will take over the conversation."}


WRITES = [book_reservation, change_flights, change_cabin, update_passengers, update_bags, cancel_reservation,
          issue_certificate, transfer_to_human_agent]
