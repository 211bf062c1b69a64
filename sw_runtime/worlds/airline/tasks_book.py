"""Halcyon Air's tasks about finding and booking flights."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from . import checks as K
from . import network, rules
from .cast import FUTURE_DAYS, facts, hello, persona, pick, rng_for, time_of, view
from .network import SONS, city
from .rules import day_name, dollars, dollars_bare

LEGS = tuple((a, b) for x, y, _m, _p in network.ROUTES for a, b in ((x, y), (y, x)))


def _open(f: dict, cabin: str = "economy", seats: int = 1) -> bool:
    return rules.bookable(f) and f["seats"][cabin] >= seats


def _me(m: dict) -> dict:
    return {"first_name": m["first_name"], "last_name": m["last_name"], "date_of_birth": m["date_of_birth"]}


def _booked(m: dict, flights: list, weight: float = 2.0, **fields) -> C.RecordExists:
    where = {"member_id": m["id"], "status": "confirmed", **fields}
    where.update({f"flights.{i}.flight_id": f["id"] for i, f in enumerate(flights)})
    return C.RecordExists(id="booked", label="Booked " + ", ".join(f["id"] for f in flights) + " for the member",
                          collection="reservations", where=where, weight=weight)


def _one_booking() -> C.WriteCount:
    return C.WriteCount(id="one-booking", label="Exactly one reservation was made (check before redoing a write that "
                        "timed out)", collection="reservations", min=1, max=1)


def _allow_booking(m: dict, flights: list, *methods: str) -> C.NoCollateral:
    return K.no_collateral(*K.allow_new("reservations", m["id"]), *K.allow_flights(*(f["id"] for f in flights)),
                           *K.allow_methods(*methods))


def cheapest_changeable(store) -> Setup:
    v = view(store)
    rng = rng_for(store, "al-11")
    std = v.fares["standard"]
    fits = []
    for o, d in LEGS:
        for date in FUTURE_DAYS:
            open_ = [f for f in v.legs(o, d, date) if _open(f)]
            prices = sorted(rules.fare_price(f, "economy", std) for f in open_)
            if len(open_) >= 2 and prices[0] < prices[1]:
                fits.append(min(open_, key=lambda f: rules.fare_price(f, "economy", std)))
    f = pick(rng, fits, "day with two direct flights of different prices")
    m = pick(rng, [m for m in v.members.values() if len(v.methods_of(m, "card")) == 1], "member with one card")
    card = v.card(m)
    price = rules.fare_price(f, "economy", std)
    return Setup(
        instruction=(f"{hello(m)} Please book me a one-way economy ticket from {city(f['origin'])} to "
                     f"{city(f['destination'])} on {day_name(f['date'])}, on a direct flight: the cheapest ticket "
                     f"that still lets me change the flight later. Just me, no checked bags, no insurance. Put it on "
                     f"my {card['label']}."),
        checks=[_booked(m, [f], fare="standard", cabin="economy", bags=0, insurance=False,
                        **{"payments.0.payment_id": card["id"]}),
                _one_booking(), _allow_booking(m, [f])],
        solution=[("get_member", {"member_id": m["id"]}), ("list_fares", {}),
                  ("search_direct_flights", {"origin": f["origin"], "destination": f["destination"],
                                             "date": f["date"]}),
                  ("book_reservation", {"member_id": m["id"], "origin": f["origin"], "destination": f["destination"],
                                        "trip_type": "one_way", "flights": [f["id"]], "cabin": "economy",
                                        "fare": "standard", "passengers": [_me(m)], "bags": 0, "insurance": False,
                                        "payments": [{"payment_id": card["id"], "amount": price}]})],
        output=(f"Booked {f['number']} on {day_name(f['date'])} at {time_of(f['departs_at'])}, economy Standard, "
                f"for {dollars(price)} on your {card['label']}. Saver would be cheaper but never allows a change; "
                "Standard allows one for a $75.00 fee."),
        hidden_facts=facts(m), persona=persona(m),
    )


def round_trip_for_two(store) -> Setup:
    v = view(store)
    rng = rng_for(store, "al-13")
    fits = [m for m in v.members.values() if len([p for p in v.methods_of(m, "certificate") if p["balance"]]) == 1
            and len(v.methods_of(m, "certificate")) == 1]
    m = pick(rng, fits, "member with one travel certificate")
    cert = v.methods_of(m, "certificate")[0]
    trips = []
    for o, d in LEGS:
        for date in FUTURE_DAYS[:4]:
            back_date = rules.shift_day(date, 2)
            out = [f for f in v.legs(o, d, date) if _open(f, seats=2)]
            back = [f for f in v.legs(d, o, back_date) if _open(f, seats=2)]
            if out and back:
                trips.append((out[0], back[0]))
    out, back = pick(rng, trips, "route with seats out and back")
    son = {"first_name": rng.choice(SONS), "last_name": m["last_name"],
           "date_of_birth": f"{rng.randint(2008, 2016)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"}
    std = v.fares["standard"]
    total = rules.booking_total([out, back], "economy", std, m["tier"], 2, 2, True)
    part = min(cert["balance"], total)
    card = v.card(m)
    pays = [{"payment_id": cert["id"], "amount": part}] + (
        [{"payment_id": card["id"], "amount": total - part}] if total > part else [])
    return Setup(
        instruction=(f"{hello(m)} Please book a round trip from {city(out['origin'])} to {city(out['destination'])} "
                     f"for me and my son {son['first_name']}: out on {day_name(out['date'])}, back on "
                     f"{day_name(back['date'])}, the earliest direct flight each day, economy Standard. One checked "
                     f"bag each, and add travel insurance. Use my travel certificate first and put the rest on my "
                     f"{card['label']}."),
        checks=[_booked(m, [out, back], trip="round_trip", fare="standard", cabin="economy", bags=2, insurance=True),
                C.FieldContains(id="son-named", label=f"{son['first_name']} travels, born {son['date_of_birth']}",
                                collection="reservations", field="passengers", value=son,
                                where={"member_id": m["id"], "flights.0.flight_id": out["id"]}),
                K.balance("certificate-used", cert, cert["balance"] - part),
                _one_booking(), _allow_booking(m, [out, back], cert["id"])],
        solution=[("get_member", {"member_id": m["id"]}), ("list_fares", {}),
                  ("search_direct_flights", {"origin": out["origin"], "destination": out["destination"],
                                             "date": out["date"]}),
                  ("search_direct_flights", {"origin": back["origin"], "destination": back["destination"],
                                             "date": back["date"]}),
                  ("ask_user", {"question": f"What is {son['first_name']}'s date of birth, as on his ID?"}),
                  ("book_reservation", {"member_id": m["id"], "origin": out["origin"],
                                        "destination": out["destination"], "trip_type": "round_trip",
                                        "flights": [out["id"], back["id"]], "cabin": "economy", "fare": "standard",
                                        "passengers": [_me(m), son], "bags": 2, "insurance": True,
                                        "payments": pays})],
        output=(f"Booked the round trip for you and {son['first_name']}: {out['number']} on {day_name(out['date'])} at "
                f"{time_of(out['departs_at'])} and {back['number']} on {day_name(back['date'])} at "
                f"{time_of(back['departs_at'])}, economy Standard, 2 checked bags, insurance. Total {dollars(total)}: "
                f"{dollars(part)} from your travel certificate" + (
                    f" and {dollars(total - part)} on your {card['label']}." if total > part else ".")),
        hidden_facts=facts(m, **{"birth, born, dob, age, birthday, old":
                                 f"{son['first_name']}'s date of birth is {son['date_of_birth']}.",
                                 "last name, surname, family name": f"{son['first_name']} {son['last_name']}."}),
        persona=persona(m),
    )


def cheapest_day(store) -> Setup:
    v = view(store)
    rng = rng_for(store, "al-20")
    saver = v.fares["saver"]
    fits = []
    for o, d in LEGS:
        for i in range(len(FUTURE_DAYS) - 2):
            days = FUTURE_DAYS[i:i + 3]
            open_ = [f for date in days for f in v.legs(o, d, date) if _open(f)]
            prices = sorted(rules.fare_price(f, "economy", saver) for f in open_)
            if len(prices) >= 3 and prices[0] < prices[1]:
                fits.append((days, min(open_, key=lambda f: rules.fare_price(f, "economy", saver))))
    days, f = pick(rng, fits, "route with a cheapest flight over three days")
    m = rng.choice(sorted(v.members.values(), key=lambda m: m["id"]))
    price = rules.fare_price(f, "economy", saver)
    return Setup(
        instruction=(f"{hello(m)} I'm flexible: I want to fly from {city(f['origin'])} to {city(f['destination'])} "
                     f"on {day_name(days[0])}, {day_name(days[1])} or {day_name(days[2])}, direct, economy Saver. "
                     "Which flight is cheapest, and how much is it? Just tell me, don't book anything."),
        checks=[K.said("told-flight", f"The answer names {f['number']}", f["number"], weight=2),
                K.said("told-price", f"The answer gives its price, {dollars(price)}", dollars_bare(price), weight=2),
                K.nothing_written(), K.no_collateral()],
        solution=[("search_direct_flights", {"origin": f["origin"], "destination": f["destination"], "date": d})
                  for d in days],
        output=(f"The cheapest is {f['number']} on {day_name(f['date'])} at {time_of(f['departs_at'])}: "
                f"{dollars(price)} in economy Saver. I haven't booked anything."),
        hidden_facts=facts(m), persona=persona(m),
    )


def one_stop_booking(store) -> Setup:
    v = view(store)
    rng = rng_for(store, "al-25")
    fits = [m for m in v.members.values() if len(v.methods_of(m, "gift_card")) == 1
            and v.methods_of(m, "gift_card")[0]["balance"] > 0]
    m = pick(rng, fits, "member with a gift card")
    gift, card = v.methods_of(m, "gift_card")[0], v.card(m)
    trips = []
    for o in sorted(network.AIRPORTS):
        for d in sorted(network.AIRPORTS):
            if o == d or network.direct(o, d) or o in network.HUBS or d in network.HUBS:
                continue
            for date in FUTURE_DAYS[:5]:
                options = []
                for hub in network.HUBS:
                    for a in v.legs(o, hub, date):
                        for day in (date, rules.shift_day(date, 1)):
                            for b in v.legs(hub, d, day):
                                gap = rules.minutes_between(a["arrives_at"], b["departs_at"])
                                if rules.MIN_CONNECTION <= gap <= 360 and _open(a) and _open(b):
                                    options.append((b["arrives_at"], a["departs_at"], a, b))
                options.sort(key=lambda t: (t[0], t[1]))
                if options and (len(options) == 1 or options[0][0] < options[1][0]):
                    trips.append(options[0][2:])
    a, b = pick(rng, trips, "one-stop trip")
    flex = v.fares["flex"]
    total = rules.fare_price(a, "economy", flex) + rules.fare_price(b, "economy", flex)
    part = min(gift["balance"], total)
    pays = [{"payment_id": gift["id"], "amount": part}] + (
        [{"payment_id": card["id"], "amount": total - part}] if total > part else [])
    return Setup(
        instruction=(f"{hello(m)} Book me a one-way trip from {city(a['origin'])} to {city(b['destination'])} on "
                     f"{day_name(a['date'])}, economy Flex, on the connection that gets me there earliest. Just me, "
                     f"no bags, no insurance. Use up my gift card first and put the rest on my {card['label']}."),
        checks=[_booked(m, [a, b], fare="flex", cabin="economy", trip="one_way"),
                K.balance("gift-used", gift, gift["balance"] - part),
                _one_booking(), _allow_booking(m, [a, b], gift["id"])],
        solution=[("get_member", {"member_id": m["id"]}),
                  ("search_direct_flights", {"origin": a["origin"], "destination": b["destination"],
                                             "date": a["date"]}),
                  ("search_onestop_flights", {"origin": a["origin"], "destination": b["destination"],
                                              "date": a["date"]}),
                  ("book_reservation", {"member_id": m["id"], "origin": a["origin"], "destination": b["destination"],
                                        "trip_type": "one_way", "flights": [a["id"], b["id"]], "cabin": "economy",
                                        "fare": "flex", "passengers": [_me(m)], "bags": 0, "insurance": False,
                                        "payments": pays})],
        output=(f"Booked {a['number']} at {time_of(a['departs_at'])} to {city(a['destination'])} and {b['number']} on "
                f"to {city(b['destination'])}, arriving {time_of(b['arrives_at'])}: economy Flex, {dollars(total)}, "
                f"{dollars(part)} from your gift card" + (
                    f" and {dollars(total - part)} on your {card['label']}." if total > part else ".")),
        hidden_facts=facts(m), persona=persona(m),
    )
