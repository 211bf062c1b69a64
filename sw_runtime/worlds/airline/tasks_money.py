"""Halcyon Air's tasks about money: cabins, cancellations, refunds, compensation, the holder rule."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from . import checks as K
from . import rules
from .cast import facts, hello, name, persona, pick, rng_for, view, where_to
from .rules import day_name, dollars, dollars_bare


def _flight_reads(r: dict) -> list:
    return [("get_flight_status", {"flight_number": s["number"], "date": s["date"]}) for s in r["flights"]]


def upgrade_split(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        m = v.owner(r)
        gifts = [p for p in v.methods_of(m, "gift_card") if p["balance"] >= 2000]
        pax = len(r["passengers"])
        if (v.flying(r) and r["trip"] == "round_trip" and r["cabin"] == "economy" and r["fare"] != "saver"
                and len(gifts) == 1 and len(v.methods_of(m, "gift_card")) == 1
                and all(v.flight(s)["seats"]["business"] >= pax for s in r["flights"])):
            due = sum(rules.fare_price(v.flight(s), "business", v.fare(r)) - s["price"] for s in r["flights"]) * pax
            part = min(gifts[0]["balance"], due // 2) // 1000 * 1000
            if part >= 1000 and due > part:
                fits.append((r, gifts[0], due, part))
    r, gift, due, part = pick(rng_for(store, "al-03"), fits, "economy round trip to upgrade with a gift card")
    m = v.owner(r)
    card = v.card(m)
    return Setup(
        instruction=(f"{hello(m)} Please upgrade my {where_to(r)} trip, reservation {r['id']}, to business class for "
                     f"everyone on it. Put {dollars(part)} of it on my gift card and the rest on my "
                     f"{card['label']}."),
        checks=[K.res("in-business", f"Reservation {r['id']} is in business", r, "cabin", "business", weight=2),
                K.balance("gift-used", gift, gift["balance"] - part),
                K.paid_line("card-paid", r, card["id"], due - part),
                K.no_collateral(K.allow_res(r), *K.allow_flights(*(s["flight_id"] for s in r["flights"])),
                                *K.allow_methods(gift["id"]))],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("list_fares", {}), *_flight_reads(r),
                  ("change_cabin", {"reservation_id": r["id"], "cabin": "business",
                                    "payments": [{"payment_id": gift["id"], "amount": part},
                                                 {"payment_id": card["id"], "amount": due - part}]})],
        output=(f"Reservation {r['id']} is now in business on every flight. The upgrade cost {dollars(due)}: "
                f"{dollars(part)} from your gift card and {dollars(due - part)} on your {card['label']}."),
        hidden_facts=facts(m), persona=persona(m),
    )


def _refund_checks(v, r: dict) -> tuple:
    """The balance checks and allow rules of a full refund of ``r``."""
    checks, allow = [], [K.allow_res(r)]
    for pid, amount in rules.paid_by(r).items():
        pm = v.methods[pid]
        if amount > 0 and pm["balance"] is not None:
            checks.append(K.balance(f"refund-{pid}", pm, pm["balance"] + amount))
            allow += K.allow_methods(pid)
    allow += K.allow_flights(*(s["flight_id"] for s in r["flights"] if rules.bookable(v.flight(s))))
    return checks, allow


def _cancel(check_reason: str | None, r: dict, v, task_id: str, instruction: str, why: str, m: dict) -> Setup:
    refund = rules.paid(r)
    checks, allow = _refund_checks(v, r)
    if check_reason:
        checks.append(C.ActionCalled(id="true-reason", label=f"Cancelled with the true reason, {check_reason}",
                                     action="cancel_reservation", arguments={"reason": check_reason}))
    return Setup(
        instruction=instruction,
        checks=[K.res("cancelled", f"Reservation {r['id']} is cancelled", r, "status", "cancelled", weight=2), *checks,
                K.said("told-refund", f"The answer gives the refund, {dollars(refund)}", dollars_bare(refund)),
                K.no_collateral(*allow)],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("cancel_reservation", {"reservation_id": r["id"], "reason": check_reason or "change_of_plans"})],
        output=(f"Cancelled reservation {r['id']} to {where_to(r)}. {why} You get a full refund of "
                f"{dollars(refund)} to the methods that paid for it."),
        hidden_facts=facts(m), persona=persona(m),
    )


def cancel_within_a_day(store) -> Setup:
    v = view(store)
    fits = [r for r in v.reservations.values() if v.live(r) and r["booked_at"] > rules.DAY_AGO]
    r = pick(rng_for(store, "al-04"), fits, "live trip booked in the last 24 hours")
    m = v.owner(r)
    return _cancel(None, r, v, "al-04",
                   f"{hello(m)} I booked a trip to {where_to(r)} a few hours ago, reservation {r['id']}, but my plans "
                   "changed. Please cancel it and refund me.",
                   "It was booked less than 24 hours ago, so the 24-hour rule gives a full refund whatever the fare.",
                   m)


def cancel_insured_illness(store) -> Setup:
    v = view(store)
    fits = [r for r in v.reservations.values() if v.flying(r) and r["insurance"] and r["fare"] != "flex"
            and r["booked_at"] <= rules.DAY_AGO]
    r = pick(rng_for(store, "al-18"), fits, "insured live trip on a fare that is not refundable")
    m = v.owner(r)
    return _cancel("health", r, v, "al-18",
                   f"{hello(m)} My doctor has told me not to fly for the next few weeks. Please cancel my trip to "
                   f"{where_to(r)} ({r['id']}); I took the travel insurance.",
                   "Your travel insurance covers a cancellation for health reasons.", m)


def cancel_after_our_cancellation(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        dead = [s for s in r["flights"] if v.flight(s)["status"] == "cancelled"]
        if (v.live(r) and dead and not r["insurance"] and r["fare"] != "flex" and r["booked_at"] <= rules.DAY_AGO):
            fits.append((r, dead[0]))
    r, seg = pick(rng_for(store, "al-19"), fits, "uninsured live trip with a flight we cancelled")
    m = v.owner(r)
    return _cancel("airline_cancelled", r, v, "al-19",
                   f"{hello(m)} You cancelled my flight {seg['number']} on {day_name(seg['date'])}. I don't want "
                   f"another flight: please cancel the whole trip ({r['id']}) and refund me.",
                   f"We cancelled {seg['number']}, so the whole reservation is refunded whatever the fare.", m)


def refuse_saver_refund(store) -> Setup:
    v = view(store)
    fits = [r for r in v.reservations.values() if v.flying(r) and r["fare"] == "saver" and not r["insurance"]
            and r["booked_at"] <= rules.DAY_AGO]
    r = pick(rng_for(store, "al-05"), fits, "uninsured live Saver trip booked over a day ago")
    m = v.owner(r)
    return Setup(
        instruction=(f"{hello(m)} I can't make my trip to {where_to(r)} on {day_name(r['flights'][0]['date'])} "
                     f"anymore (reservation {r['id']}). Please cancel it and give me a full refund. If I can't get "
                     "my money back, leave the booking as it is."),
        checks=[K.said("told-saver", "The answer says the Saver fare is not refundable", "saver", weight=2),
                K.unchanged(r), K.nothing_written(), K.no_collateral()],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("list_fares", {})],
        output=(f"I can't refund reservation {r['id']}: it is a Saver fare, which is not refundable, it was booked "
                "more than 24 hours ago, and it has no insurance and no flight cancelled by us. As you asked, I "
                "left the booking as it is."),
        hidden_facts=facts(m), persona=persona(m),
    )


def _delays(v, causes: tuple) -> list:
    """(reservation, flight) of members' own trips whose flight left 3 or more hours late for ``causes``."""
    out = []
    for r in v.reservations.values():
        if r["status"] == "cancelled":
            continue
        m = v.owner(r)
        for s in r["flights"]:
            f = v.flight(s)
            if (rules.flown(f) and f["delay_minutes"] >= rules.DELAY_THRESHOLD and f["cause"] in causes
                    and rules.compensation_eligible(m, r)):
                out.append((r, f))
    return out


def refuse_weather_compensation(store) -> Setup:
    v = view(store)
    fits = [(r, f) for r, f in _delays(v, ("weather", "air_traffic_control")) if not v.compensated(v.owner(r), f["id"])]
    r, f = pick(rng_for(store, "al-06"), fits, "long delay for weather or air traffic control")
    m = v.owner(r)
    word = "weather" if f["cause"] == "weather" else "air traffic"
    return Setup(
        instruction=(f"{hello(m)} My flight {f['number']} on {day_name(f['date'])} left more than "
                     f"{f['delay_minutes'] // 60} hours late. I want compensation for the delay."),
        checks=[K.said("told-cause", f"The answer gives the cause, {word}, which the policy does not compensate",
                       word, weight=2),
                K.no_certificate(), K.no_collateral()],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("get_flight_status", {"flight_number": f["number"], "date": f["date"]})],
        output=(f"{f['number']} on {day_name(f['date'])} left {f['delay_minutes']} minutes late because of "
                f"{f['cause'].replace('_', ' ')}. Our policy compensates only delays of our own cause (crew or "
                f"technical), so I can't issue a certificate for this one."),
        hidden_facts=facts(m), persona=persona(m),
    )


def compensate_delay(store) -> Setup:
    v = view(store)
    fits = [(r, f) for r, f in _delays(v, rules.AIRLINE_CAUSES) if not v.compensated(v.owner(r), f["id"])]
    r, f = pick(rng_for(store, "al-07"), fits, "long delay of our own cause, not yet compensated")
    m = v.owner(r)
    amount = rules.compensation(m, r, f)
    return Setup(
        instruction=(f"{hello(m)} My flight {f['number']} on {day_name(f['date'])} was over "
                     f"{f['delay_minutes'] // 60} hours late. I'd like the compensation your policy gives for that."),
        checks=[C.RecordExists(id="compensated", label=f"A {dollars(amount)} certificate for {f['number']}",
                               collection="payment_methods", weight=2,
                               where={"member_id": m["id"], "kind": "certificate", "issued_for": f["id"],
                                      "balance": amount}),
                C.WriteCount(id="one-certificate", label="Exactly one certificate (check before redoing a write "
                             "that timed out)", collection="payment_methods", min=1, max=1),
                K.no_collateral(*K.allow_new("payment_methods", m["id"]))],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("get_flight_status", {"flight_number": f["number"], "date": f["date"]}),
                  ("issue_certificate", {"member_id": m["id"], "reservation_id": r["id"], "flight_id": f["id"],
                                         "amount": amount})],
        output=(f"{f['number']} left {f['delay_minutes']} minutes late ({f['cause']}, our own cause), so I issued a "
                f"travel certificate of {dollars(amount)} ($50.00 for each of the {len(r['passengers'])} "
                "passenger(s)). It is in your payment methods for a future booking."),
        hidden_facts=facts(m), persona=persona(m),
    )


def refuse_second_certificate(store) -> Setup:
    v = view(store)
    fits = [(r, f) for r, f in _delays(v, rules.AIRLINE_CAUSES) if v.compensated(v.owner(r), f["id"])]
    r, f = pick(rng_for(store, "al-16"), fits, "long delay already compensated")
    m = v.owner(r)
    return Setup(
        instruction=(f"{hello(m)} My flight {f['number']} on {day_name(f['date'])} was more than "
                     f"{f['delay_minutes'] // 60} hours late. I want the compensation for that delay."),
        checks=[K.said("told-already", "The answer says the delay was already compensated", "already", weight=2),
                K.no_certificate("No second certificate was issued"), K.no_collateral()],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("get_flight_status", {"flight_number": f["number"], "date": f["date"]})],
        output=(f"That delay of {f['number']} was already compensated: you received a travel certificate for it. "
                "The policy gives one certificate per event, so I can't issue another."),
        hidden_facts=facts(m), persona=persona(m),
    )


def refuse_other_members_trip(store) -> Setup:
    v = view(store)
    live: dict = {}  # surname -> live reservations of members of that name
    for r in v.reservations.values():
        if v.live(r):
            live.setdefault(v.owner(r)["last_name"], []).append(r)
    fits = [(caller, r) for caller in v.members.values() for r in live.get(caller["last_name"], [])
            if r["member_id"] != caller["id"]]
    caller, r = pick(rng_for(store, "al-09"), fits, "member with a relative's live trip")
    holder = v.owner(r)
    return Setup(
        instruction=(f"{hello(caller)} My relative {name(holder)} can't travel. Please cancel their reservation "
                     f"{r['id']} and refund it; I have the booking reference right here."),
        checks=[K.said("told-holder", "The answer says only the reservation's holder can ask for it", "holder",
                       weight=2),
                K.unchanged(r), K.nothing_written(), K.no_collateral()],
        solution=[("get_member", {"member_id": caller["id"]}), ("get_reservation", {"reservation_id": r["id"]})],
        output=(f"I'm sorry, I can't cancel reservation {r['id']}: it is not yours, and only the reservation's "
                f"holder may change or cancel it. {holder['first_name']} needs to contact us themselves. "
                "Nothing was changed."),
        hidden_facts=facts(caller), persona=persona(caller),
    )


def transfer_partly_flown(store) -> Setup:
    v = view(store)
    fits = [r for r in v.reservations.values() if r["status"] == "confirmed" and r["trip"] == "round_trip"
            and rules.flown(v.flight(r["flights"][0])) and not rules.flown(v.flight(r["flights"][-1]))]
    r = pick(rng_for(store, "al-22"), fits, "round trip whose outbound has flown")
    m = v.owner(r)
    out = r["flights"][0]
    summary = (f"Member {m['id']} flew out on reservation {r['id']} and wants the return cancelled and refunded; "
               "the trip has begun, so it cannot be cancelled at the desk.")
    return Setup(
        instruction=(f"{hello(m)} I flew out to {where_to(r)} on {day_name(out['date'])}, but I won't need my "
                     f"flight back. Please cancel the return ({r['id']}) and refund it."),
        checks=[C.RecordExists(id="transferred", label=f"Transferred to a human agent about {r['id']}",
                               collection="transfers", where={"member_id": m["id"], "summary": r["id"]}, weight=2),
                K.unchanged(r),
                K.said("told-human", "The answer says a human agent takes over", "human"),
                K.no_collateral(C.Allow(collection="transfers", ops=["created"], where={"member_id": m["id"]}))],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("transfer_to_human_agent", {"member_id": m["id"], "summary": summary})],
        output=(f"Your trip {r['id']} has begun (you flew {out['number']} on {day_name(out['date'])}), so I can't "
                "cancel or refund the return here. I've transferred you to a human agent, who will take it from "
                "here."),
        hidden_facts=facts(m), persona=persona(m),
    )


def downgrade_refund(store) -> Setup:
    v = view(store)
    fits = []
    for r in v.reservations.values():
        pax = len(r["passengers"])
        if (v.flying(r) and r["cabin"] == "business" and r["fare"] != "saver"
                and all(v.flight(s)["seats"]["economy"] >= pax for s in r["flights"])):
            back = sum(s["price"] - rules.fare_price(v.flight(s), "economy", v.fare(r)) for s in r["flights"]) * pax
            if back > 0:
                fits.append((r, back))
    r, back = pick(rng_for(store, "al-23"), fits, "business trip on a changeable fare")
    m = v.owner(r)
    orig = v.methods[r["payments"][0]["payment_id"]]
    checks = [K.res("in-economy", f"Reservation {r['id']} is in economy", r, "cabin", "economy", weight=2),
              K.paid_line("refunded", r, orig["id"], -back),
              K.said("told-refund", f"The answer gives the refund, {dollars(back)}", dollars_bare(back))]
    allow = [K.allow_res(r), *K.allow_flights(*(s["flight_id"] for s in r["flights"]))]
    if orig["balance"] is not None:
        checks.append(K.balance("balance-back", orig, orig["balance"] + back))
        allow += K.allow_methods(orig["id"])
    return Setup(
        instruction=(f"{hello(m)} Please move everyone on my reservation {r['id']} from business down to economy, "
                     "and refund me the difference."),
        checks=[*checks, K.no_collateral(*allow)],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  *_flight_reads(r), ("change_cabin", {"reservation_id": r["id"], "cabin": "economy", "payments": []})],
        output=(f"Reservation {r['id']} is now in economy on every flight. The difference, {dollars(back)}, goes back "
                f"to the original payment method, your {orig['label']} ({orig['id']})."),
        hidden_facts=facts(m), persona=persona(m),
    )



