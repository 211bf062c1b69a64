"""Halcyon Air's tasks about flights: status, rebooking, changes, bags."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from . import checks as K
from . import rules
from .cast import facts, hello, one_leg, persona, pick, rng_for, time_of, view, where_to
from .rules import day_name, dollars, dollars_bare

def _alone(v, r) -> bool:
    """No other confirmed trip of the member goes to the same city on the same day."""
    return not any(o["id"] != r["id"] and o["status"] == "confirmed" and o["destination"] == r["destination"]
                   and o["flights"][0]["date"] == r["flights"][0]["date"] for o in v.of(v.owner(r)))


def _bags(n: int) -> str:
    return f"{n} checked bag" + ("" if n == 1 else "s")


def flight_status(store) -> Setup:
    v = view(store)
    fits = [r for r in v.reservations.values() if v.live(r) and one_leg(r) and _alone(v, r)
            and v.flight(r["flights"][0])["status"] == "delayed"]
    r = pick(rng_for(store, "al-01"), fits, "live one-way trip on a delayed flight")
    m, f = v.owner(r), v.flight(r["flights"][0])
    est = time_of(rules.departure(f))
    return Setup(
        instruction=f"{hello(m)} I'm flying to {where_to(r)} on {day_name(f['date'])}. Is my flight on time? If "
                    "not, when does it leave now?",
        checks=[K.said("told-delayed", "The answer says the flight is delayed", "delay"),
                K.said("told-time", f"The answer gives the new departure time, {est}", est, weight=2),
                K.nothing_written(), K.no_collateral()],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("get_flight_status", {"flight_number": f["number"], "date": f["date"]})],
        output=(f"Your flight {f['number']} to {where_to(r)} on {day_name(f['date'])} is delayed by "
                f"{f['delay_minutes']} minutes ({f['cause'].replace('_', ' ')}): it was due to leave at "
                f"{time_of(f['departs_at'])} and now leaves at {est} UTC."),
        hidden_facts=facts(m), persona=persona(m),
    )


def rebook_cancelled(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        if not (v.live(r) and one_leg(r) and _alone(v, r)):
            continue
        f, m = v.flight(r["flights"][0]), v.owner(r)
        pax = len(r["passengers"])
        others = [g for g in v.legs(f["origin"], f["destination"], f["date"])
                  if g["id"] != f["id"] and rules.bookable(g) and g["seats"][r["cabin"]] >= pax]
        if (f["status"] == "cancelled" and f["cause"] in rules.AIRLINE_CAUSES and others
                and rules.compensation(m, r, f) and not v.compensated(m, f["id"])):
            fits.append((r, f, others[0]))
    r, f, g = pick(rng_for(store, "al-02"), fits, "trip on a flight we cancelled with another flight that day")
    m = v.owner(r)
    pax = len(r["passengers"])
    amount = rules.compensation(m, r, f)
    us = "us" if pax > 1 else "me"
    return Setup(
        instruction=(f"{hello(m)} My flight {f['number']} to {where_to(r)} on {day_name(f['date'])} was cancelled. "
                     f"Please put {us} on the earliest other direct flight that day, in the same cabin. And I'd "
                     "like the compensation I'm owed for the cancellation."),
        checks=[K.res("rebooked", f"Reservation {r['id']} is on {g['number']} at {time_of(g['departs_at'])}", r,
                      "flights.0.flight_id", g["id"], weight=2),
                C.RecordExists(id="compensated", label=f"A {dollars(amount)} certificate for {f['number']}",
                               collection="payment_methods", weight=2,
                               where={"member_id": m["id"], "kind": "certificate", "issued_for": f["id"],
                                      "balance": amount}),
                C.WriteCount(id="one-certificate", label="Exactly one certificate", collection="payment_methods",
                             min=1, max=1),
                K.no_collateral(K.allow_res(r), *K.allow_flights(g["id"]), *K.allow_new("payment_methods", m["id"]))],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("get_flight_status", {"flight_number": f["number"], "date": f["date"]}),
                  ("search_direct_flights", {"origin": f["origin"], "destination": f["destination"],
                                             "date": f["date"]}),
                  ("change_flights", {"reservation_id": r["id"], "flights": [g["id"]], "payments": []}),
                  ("issue_certificate", {"member_id": m["id"], "reservation_id": r["id"], "flight_id": f["id"],
                                         "amount": amount})],
        output=(f"I moved reservation {r['id']} to {g['number']} on {day_name(g['date'])}, leaving at "
                f"{time_of(g['departs_at'])}, at no cost since we cancelled {f['number']} ({f['cause']}). As "
                f"compensation I issued a travel certificate of {dollars(amount)} ($100.00 per passenger)."),
        hidden_facts=facts(m), persona=persona(m),
    )


def bags_on_live_trip(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        if v.live(r) and one_leg(r) and _alone(v, r):
            stale = [o for o in v.of(v.owner(r)) if o["status"] == "cancelled"
                     and o["flights"][0]["flight_id"] == r["flights"][0]["flight_id"]]
            if stale:
                fits.append((r, stale[0]))
    rng = rng_for(store, "al-08")
    r, stale = pick(rng, fits, "live trip beside a cancelled booking of the same flight")
    m, f = v.owner(r), v.flight(r["flights"][0])
    pax = len(r["passengers"])
    free = rules.free_bags(m["tier"], r["cabin"], pax)
    total = min(max(r["bags"], free) + rng.randint(1, 2), rules.MAX_BAGS_PER_PASSENGER * pax)
    cost = (rules.bag_cost(m["tier"], r["cabin"], pax, total) - rules.bag_cost(m["tier"], r["cabin"], pax, r["bags"]))
    card = v.card(m)
    reads = [("get_reservation", {"reservation_id": rid}) for rid in m["reservations"]]
    return Setup(
        instruction=(f"{hello(m)} For my trip to {where_to(r)} on {day_name(f['date'])} "
                     f"{'we' if pax > 1 else 'I'}'ll have {_bags(total)} in all. Please add "
                     f"{'them' if total > 1 else 'it'} and put any fee on my {card['label']}."),
        checks=[K.res("bags-set", f"Reservation {r['id']} has {total} bags", r, "bags", total, weight=2),
                K.paid_line("bags-paid", r, card["id"], cost),
                K.said("told-cost", f"The answer gives the cost, {dollars(cost)}", dollars_bare(cost)),
                K.no_collateral(K.allow_res(r))],
        solution=[("get_member", {"member_id": m["id"]}), *reads,
                  ("update_bags", {"reservation_id": r["id"], "bags": total,
                                   "payments": [{"payment_id": card["id"], "amount": cost}]})],
        output=(f"Reservation {r['id']} ({f['number']}, {day_name(f['date'])}) now has {_bags(total)}. As a "
                f"{m['tier']} member in {r['cabin']} each passenger has {rules.FREE_BAGS[(m['tier'], r['cabin'])]} "
                f"free, so the added bags cost {dollars(cost)}, charged to your {card['label']}. (Your cancelled "
                f"booking {stale['id']} of the same flight is unchanged.)"),
        hidden_facts=facts(m), persona=persona(m),
    )


def move_both(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        if v.flying(r) and one_leg(r) and len(r["passengers"]) == 2 and r["fare"] != "saver":
            f = v.flight(r["flights"][0])
            later = [g for g in v.legs(f["origin"], f["destination"], f["date"])
                     if g["departs_at"] > f["departs_at"] and rules.bookable(g) and g["seats"][r["cabin"]] >= 2]
            if later:
                fits.append((r, f, later[0]))
    r, f, g = pick(rng_for(store, "al-12"), fits, "trip for two with a later flight that day")
    m, comp = v.owner(r), r["passengers"][1]
    card = v.card(m)
    due = (rules.fare_price(g, r["cabin"], v.fare(r)) - r["flights"][0]["price"]) * 2 + rules.change_fee(
        v.fare(r), m["tier"], 2)
    orig = r["payments"][0]["payment_id"]
    pays = [{"payment_id": card["id"], "amount": due}] if due > 0 else []
    money = (f"{dollars(due)} charged to your {card['label']}" if due > 0 else
             f"{dollars(-due)} refunded to the original payment method" if due < 0 else "no charge")
    allow = [K.allow_res(r), *K.allow_flights(f["id"], g["id"])]
    if due < 0 and v.methods[orig]["balance"] is not None:
        allow += K.allow_methods(orig)
    return Setup(
        instruction=(f"{hello(m)} Please move me to the later flight on {day_name(f['date'])}, {g['number']} at "
                     f"{time_of(g['departs_at'])}. Charge any difference to my {card['label']}."),
        checks=[K.res("moved", f"Reservation {r['id']} is on {g['number']}", r, "flights.0.flight_id", g["id"],
                      weight=2),
                C.ActionCalled(id="asked-companion", label=f"Asked before moving {comp['first_name']} too",
                               action="ask_user"),
                K.paid_line("difference", r, card["id"] if due > 0 else orig, due) if due else
                K.res("no-charge", "Nothing was charged", r, "payments", r["payments"]),
                K.no_collateral(*allow)],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("search_direct_flights", {"origin": f["origin"], "destination": f["destination"],
                                             "date": f["date"]}),
                  ("ask_user", {"question": f"{comp['first_name']} {comp['last_name']} is on this reservation too, "
                                            "and a reservation cannot be split: should I move both of you?"}),
                  ("change_flights", {"reservation_id": r["id"], "flights": [g["id"]], "payments": pays})],
        output=(f"Both of you on reservation {r['id']} are now on {g['number']} on {day_name(g['date'])} at "
                f"{time_of(g['departs_at'])}: {money} (fare difference and change fee for two)."),
        hidden_facts=facts(m, **{f"both, everyone, all of, together, companion, {comp['first_name'].lower()}, "
                                 "passengers, too, as well, split":
                                 f"Oh, {comp['first_name']} is on that booking too? Then move both of us, we "
                                 "travel together."}),
        persona=persona(m),
    )


def refuse_saver_change(store) -> Setup:
    v = view(store)
    fits = [r for r in v.reservations.values() if v.flying(r) and one_leg(r) and _alone(v, r)
            and r["fare"] == "saver" and rules.shift_day(r["flights"][0]["date"], 1) <= "2026-06-22"]
    r = pick(rng_for(store, "al-14"), fits, "live Saver trip")
    m, f = v.owner(r), v.flight(r["flights"][0])
    return Setup(
        instruction=(f"{hello(m)} Please move my flight to {where_to(r)} on {day_name(f['date'])} (reservation "
                     f"{r['id']}) to the same flight the next day. I'm happy to pay the difference."),
        checks=[K.said("told-saver", "The answer says the Saver fare does not allow changes", "saver", weight=2),
                K.unchanged(r, "flights.0.flight_id", f["id"]), K.nothing_written(), K.no_collateral()],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]})],
        output=(f"I can't move reservation {r['id']}: it is on a Saver fare, and Saver fares cannot be changed "
                "(not the flights, the date or the cabin). Nothing was changed."),
        hidden_facts=facts(m), persona=persona(m),
    )


def rebook_next_day(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        if v.live(r) and one_leg(r) and _alone(v, r):
            f, m = v.flight(r["flights"][0]), v.owner(r)
            nxt = v.flights.get(f"{f['number']}-{rules.shift_day(f['date'], 1)}")
            if (f["status"] == "cancelled" and rules.compensation(m, r, f) and nxt and rules.bookable(nxt)
                    and nxt["seats"][r["cabin"]] >= len(r["passengers"]) and not v.compensated(m, f["id"])):
                fits.append((r, f, nxt))
    r, f, g = pick(rng_for(store, "al-15"), fits, "trip on a cancelled flight that flies again the next day")
    m = v.owner(r)
    return Setup(
        instruction=(f"{hello(m)} My flight {f['number']} to {where_to(r)} on {day_name(f['date'])} was cancelled. "
                     f"Please move {'us' if len(r['passengers']) > 1 else 'me'} to the same flight the next day."),
        checks=[K.res("rebooked", f"Reservation {r['id']} is on {g['id']}", r, "flights.0.flight_id", g["id"],
                      weight=2),
                K.no_certificate("No certificate was issued: the member did not ask for compensation"),
                K.no_collateral(K.allow_res(r), *K.allow_flights(g["id"]))],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("get_flight_status", {"flight_number": g["number"], "date": g["date"]}),
                  ("change_flights", {"reservation_id": r["id"], "flights": [g["id"]], "payments": []})],
        output=(f"Reservation {r['id']} is now on {g['number']} on {day_name(g['date'])} at "
                f"{time_of(g['departs_at'])}, at no cost because we cancelled your flight."),
        hidden_facts=facts(m), persona=persona(m),
    )


def push_return(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        if v.flying(r) and r["trip"] == "round_trip" and len(r["flights"]) == 2 and r["fare"] == "standard":
            back = v.flight(r["flights"][1])
            nxt = v.flights.get(f"{back['number']}-{rules.shift_day(back['date'], 1)}")
            if nxt and rules.bookable(nxt) and nxt["seats"][r["cabin"]] >= len(r["passengers"]):
                fits.append((r, back, nxt))
    r, back, g = pick(rng_for(store, "al-21"), fits, "Standard round trip whose return flies the next day too")
    m, pax = v.owner(r), len(r["passengers"])
    card = v.card(m)
    due = ((rules.fare_price(g, r["cabin"], v.fare(r)) - r["flights"][1]["price"]) * pax
           + rules.change_fee(v.fare(r), m["tier"], pax))
    orig = r["payments"][0]["payment_id"]
    allow = [K.allow_res(r), *K.allow_flights(back["id"], g["id"])]
    if due < 0 and v.methods[orig]["balance"] is not None:
        allow += K.allow_methods(orig)
    money = (f"{dollars(due)}, charged to your {card['label']}" if due > 0 else
             f"a refund of {dollars(-due)} to the original payment method" if due < 0 else "nothing")
    out_flight = r["flights"][0]["flight_id"]
    checks = [K.res("return-moved", f"The return is {g['id']}", r, "flights.1.flight_id", g["id"], weight=2),
              K.res("outbound-kept", f"The outbound stays {out_flight}", r, "flights.0.flight_id", out_flight,
                    always_scored=True)]
    if due:
        checks.append(K.paid_line("difference", r, card["id"] if due > 0 else orig, due))
        checks.append(K.said("told-cost", f"The answer gives the amount, {dollars(abs(due))}", dollars_bare(abs(due))))
    return Setup(
        instruction=(f"{hello(m)} Please push the return of my {where_to(r)} trip ({r['id']}) back by one day: the "
                     f"same flight number on {day_name(g['date'])}. Charge whatever it costs to my {card['label']}."),
        checks=[*checks, K.no_collateral(*allow)],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("list_fares", {}), ("get_flight_status", {"flight_number": back["number"], "date": back["date"]}),
                  ("search_direct_flights", {"origin": g["origin"], "destination": g["destination"],
                                             "date": g["date"]}),
                  ("change_flights", {"reservation_id": r["id"], "flights": [out_flight, g["id"]],
                                      "payments": [{"payment_id": card["id"], "amount": due}] if due > 0 else []})],
        output=(f"Your return on reservation {r['id']} is now {g['number']} on {day_name(g['date'])} at "
                f"{time_of(g['departs_at'])}. The change came to {money}: the fare difference"
                + (" plus the Standard change fee of $75.00 per passenger." if m["tier"] not in
                   rules.FEE_WAIVED_TIERS else f"; the change fee is waived for {m['tier']} members.")),
        hidden_facts=facts(m), persona=persona(m),
    )
