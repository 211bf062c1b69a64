"""The situations Halcyon Air's tasks are about, planted on every seed.

Each planter makes a member (tier, cards and names from the seed) and the
trips a task needs: a flight the airline cancelled with a later one that
day, a weather delay and a crew delay of over three hours, a stale cancelled
booking beside the live one, two trips to the same city with a misspelt
companion, a certificate already given for a delay, a trip half flown...
The flights a planter relies on are claimed, so no other planter changes
them. Tasks still find what they need by content (``cast.py``), so a
background record that happens to fit is as good as a planted one.
"""

from __future__ import annotations

from . import rules
from .network import MISSPELT, ROUTES

FUTURE = tuple(rules.shift_day("2026-06-16", n) for n in range(5))  # 16 to 20 June: a later day still flies
PAST = ("2026-06-12", "2026-06-13", "2026-06-14")
LEGS = tuple((a, b) for x, y, _m, _p in ROUTES for a, b in ((x, y), (y, x)))


def _free(b, f, cabin="economy", seats=1) -> bool:
    return f["id"] not in b.claimed and f["status"] == "scheduled" and f["seats"][cabin] >= seats


def _claim(b, *flights) -> None:
    b.claimed.update(f["id"] for f in flights)


def _leg(b, dates=FUTURE, cabin="economy", seats=1, pairs=LEGS, then=False):
    """A free direct flight, claimed (one is made to fly, with seats, when none is free); ``then``: one whose
    number the next day is not claimed either (for ``_next_day``)."""
    flights = [f for o, d in pairs for date in dates for f in b.legs(o, d, date)
               if not then or _after(f)["id"] not in b.claimed]
    return _take(b, flights, cabin, seats)


def _take(b, flights: list, cabin: str, seats: int):
    options = [f for f in flights if _free(b, f, cabin, seats)]
    if options:
        f = b.rng.choice(options)
    else:
        f = b.rng.choice([f for f in flights if f["id"] not in b.claimed])
        b.set_flight(f, status="scheduled", delay_minutes=0, cause="")
        _seats(f, cabin, seats + b.rng.randint(0, 6))
    _claim(b, f)
    return f


def _pair(b, cabin="economy", seats=1):
    """Two free flights of one route on one future day, the earlier and a later one, claimed."""
    options = [(fs[0], fs[1]) for o, d in LEGS for date in FUTURE for fs in [b.legs(o, d, date)]
               if len(fs) >= 2 and _free(b, fs[0], cabin, seats) and _free(b, fs[1], cabin, seats)]
    first, later = b.rng.choice(options)
    _claim(b, first, later)
    return first, later


def _after(f) -> dict:
    return {"id": f"{f['number']}-{rules.shift_day(f['date'], 1)}"}


def _next_day(b, f, cabin="economy", seats=1):
    """The same flight number the next day (not claimed: ``_leg(then=True)``), flying with seats, claimed."""
    nxt = b.flights[_after(f)["id"]]
    if not _free(b, nxt, cabin, seats):  # make it fly, with seats (nothing else relies on it: unclaimed)
        b.set_flight(nxt, status="scheduled", delay_minutes=0, cause="")
        _seats(nxt, cabin, seats + b.rng.randint(0, 6))
    _claim(b, nxt)
    return nxt


def _round(b, dates, gap, cabin="economy", seats=1, then=False, flown=False):
    """An outbound flight and a free flight back ``gap`` days later, claimed: the outbound free too, or, with
    ``flown``, one that has departed; ``then``: the return's number the next day is not claimed."""
    def out_ok(f):
        return f["id"] not in b.claimed and f["status"] == "departed" if flown else _free(b, f, cabin, seats)

    pairs = []
    for o, d in LEGS:
        for date in dates:
            for f in b.legs(o, d, date):
                if out_ok(f):
                    pairs += [(f, g) for n in range(gap[0], gap[1] + 1) for g in b.legs(d, o, rules.shift_day(date, n))
                              if g["date"] <= "2026-06-21" and _free(b, g, cabin, seats)
                              and not (then and _after(g)["id"] in b.claimed)]
    out, back = b.rng.choice(pairs)
    _claim(b, out, back)
    return out, back


def _delay(b, cause: str):
    """A flight of the last three days that left three or more hours late, claimed."""
    f = b.rng.choice([f for o, d in LEGS for date in PAST for f in b.legs(o, d, date)
                      if f["id"] not in b.claimed and f["status"] != "cancelled"])
    b.set_flight(f, status="departed", delay_minutes=b.rng.randrange(rules.DELAY_THRESHOLD, 330, 5), cause=cause)
    _claim(b, f)
    return f


def _eligible(b) -> str:
    return b.rng.choice(("silver", "gold", "platinum"))


def _seats(f, cabin, n) -> None:
    f["seats"][cabin] = max(f["seats"][cabin], n)


def plant(b) -> None:
    rng = b.rng
    pax2 = lambda: rng.choice((1, 2))  # noqa: E731

    # al-10 (first, while the route has free flights on both days): two trips to one city on different
    # days, the same companion misspelt on both.
    m = b.member()
    right, wrong = rng.choice(MISSPELT)
    first = _leg(b, dates=FUTURE[:2], seats=2)
    again = _leg(b, dates=FUTURE[3:], seats=2, pairs=[(first["origin"], first["destination"])])
    companion = {"first_name": wrong, "last_name": m["last_name"], "date_of_birth": b.dob(1950, 2015)}
    b.names.add((right, m["last_name"]))
    for f in (first, again):
        b.reserve(m, [f], "economy", rng.choice(sorted(rules.FARES)), [b.passengers(m, 0)[0], dict(companion)])
    for _ in range(2):
        b.background_trip(m, avoid=first["destination"])

    # al-01: a trip on a flight that is now delayed.
    m = b.member()
    f = _leg(b)
    b.set_flight(f, delay_minutes=rng.randrange(40, 170, 5), cause=rng.choice(rules.CAUSES))
    b.reserve(m, [f], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, 0))
    b.background_trip(m, avoid=f["destination"])

    # al-02: the airline cancelled the first flight of the day; a later one has seats.
    m = b.member(tier=_eligible(b))
    n = pax2()
    first, later = _pair(b, seats=n)
    b.set_flight(first, status="cancelled", cause=rng.choice(rules.AIRLINE_CAUSES))
    b.reserve(m, [first], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, n - 1), bags=n)

    # al-03: an economy round trip with business seats left; a gift card and a card.
    m = b.member(gift=True)
    n = pax2()
    out, back = _round(b, FUTURE[:3], (1, 3), cabin="business", seats=n)
    b.reserve(m, [out, back], "economy", rng.choice(("standard", "flex")), b.passengers(m, n - 1),
              trip="round_trip", destination=out["destination"])

    # al-04: booked a few hours ago, on a Saver fare.
    m = b.member(gift=rng.random() < 0.5)
    b.reserve(m, [_leg(b)], "economy", "saver", b.passengers(m, rng.choice((0, 1))),
              booked_at=rules.add_minutes(rules.NOW, -rng.randrange(45, 60 * 20, 5)), pay="gift")

    # al-05 and al-14: Saver trips booked weeks ago, without insurance.
    for _ in range(2):
        m = b.member()
        f = _leg(b, dates=FUTURE[:4], then=True)
        _next_day(b, f)
        b.reserve(m, [f], rng.choice(("economy", "business")), "saver", b.passengers(m, 0))

    # al-06 and al-07: a weather delay and a crew or technical delay of three hours or more.
    for cause in ("weather", rng.choice(rules.AIRLINE_CAUSES)):
        m = b.member(tier=_eligible(b))
        b.reserve(m, [_delay(b, cause)], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, pax2() - 1))

    # al-08: the live trip to a city, and a stale cancelled booking of the same flight.
    m = b.member()
    n = pax2()
    f = _leg(b, seats=n)
    b.reserve(m, [f], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, n - 1), cancelled=True,
              booked_at=rules.add_minutes(rules.DAY_AGO, -60 * 24 * 20))
    b.reserve(m, [f], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, n - 1), bags=rng.randint(0, 1))
    b.background_trip(m, avoid=f["destination"])

    # al-09: two members with one surname, one of them holding a Flex trip.
    holder = b.member()
    b.reserve(holder, [_leg(b)], "economy", "flex", b.passengers(holder, 0))
    b.member(last=holder["last_name"])

    # al-11 (any member with one card) and al-12: two travellers on a changeable fare, a later flight that day.
    b.member(cards=1)
    m = b.member(cards=1)
    first, later = _pair(b, seats=2)
    b.reserve(m, [first], "economy", rng.choice(("standard", "flex")), b.passengers(m, 1))

    # al-13: a member with a travel certificate; al-25: one with a gift card.
    b.member(certificate=True)
    b.member(gift=True)

    # al-15: the airline cancelled the flight; the same number flies the next day.
    m = b.member(tier=_eligible(b))
    n = pax2()
    f = _leg(b, dates=FUTURE[:4], seats=n, then=True)
    _next_day(b, f, seats=n)
    b.set_flight(f, status="cancelled", cause=rng.choice(rules.AIRLINE_CAUSES))
    b.reserve(m, [f], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, n - 1))

    # al-16: a crew delay already compensated with a certificate.
    m = b.member(tier=_eligible(b))
    f = _delay(b, rng.choice(rules.AIRLINE_CAUSES))
    r = b.reserve(m, [f], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, 0))
    b.method(m, "certificate", "Travel certificate", balance=rules.DELAY_COMPENSATION, flight_id=f["id"],
             reservation_id=r["id"], issued_at=rules.add_minutes(rules.departure(f), 300))

    # al-17 and al-24: trips with companions, and one alone.
    m = b.member()
    b.reserve(m, [_leg(b, seats=2)], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, 1))
    m = b.member()
    b.reserve(m, [_leg(b)], rng.choice(rules.CABINS), rng.choice(sorted(rules.FARES)), b.passengers(m, 0))

    # al-18: an insured trip on a fare that is not refundable.
    m = b.member()
    b.reserve(m, [_leg(b)], "economy", rng.choice(("saver", "standard")), b.passengers(m, rng.choice((0, 1))),
              insurance=True, pay="gift" if b.kind_of(m, "gift_card") else "card")

    # al-19: the airline cancelled a flight of an uninsured Saver or Standard trip.
    m = b.member()
    f = _leg(b)
    b.set_flight(f, status="cancelled", cause=rng.choice(rules.AIRLINE_CAUSES))
    b.reserve(m, [f], "economy", rng.choice(("saver", "standard")), b.passengers(m, 0))

    # al-21: a Standard round trip whose return flight number flies the next day too.
    m = b.member()
    n = pax2()
    out, back = _round(b, FUTURE[:2], (1, 2), seats=n, then=True)
    _next_day(b, back, seats=n)
    b.reserve(m, [out, back], "economy", "standard", b.passengers(m, n - 1), trip="round_trip",
              destination=out["destination"])

    # al-22: a round trip whose outbound has flown.
    m = b.member()
    out, back = _round(b, PAST[1:], (3, 5), flown=True)
    b.reserve(m, [out, back], "economy", rng.choice(sorted(rules.FARES)), b.passengers(m, 0), trip="round_trip",
              destination=out["destination"])

    # al-23: a business trip on a changeable fare, paid first by a gift card or a card.
    m = b.member(gift=rng.random() < 0.5)
    n = pax2()
    f = _leg(b, cabin="business", seats=n)
    _seats(f, "economy", n)
    b.reserve(m, [f], "business", rng.choice(("standard", "flex")), b.passengers(m, n - 1), pay="gift")
