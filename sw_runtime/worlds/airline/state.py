"""Halcyon Air's seeded start state.

``generate(seed)`` builds the airline's network for 12 to 22 June 2026:
about 450 flights by number and date, each scheduled, delayed, cancelled or
departed, with seats and prices per cabin that vary by date; the three fare
classes; about 55 members of every tier with their cards, gift cards and
travel certificates; and about 150 reservations (confirmed, cancelled and
completed), one-way and round trips, direct and with a stop, with their
passengers, bags, insurance, payments and history.

Background members and trips come first from the seed; then ``plants.py``
adds the situations the tasks are about (a flight the airline cancelled, a
weather delay, a stale cancelled booking beside the live one, two trips to
the same city, a certificate already given for a delay...). Ids are drawn
from shuffled pools, so an id never says which part a record plays, and
nothing in the state names a role: tasks find their records by content.
Only ``random.Random(seed)`` is used.
"""

from __future__ import annotations

import random

from . import network, rules
from .network import AIRPORTS, CARD_BRANDS, FIRST_NAMES, LAST_NAMES, ROUTES

COLLECTIONS = ("airports", "fares", "flights", "members", "payment_methods", "reservations", "transfers")
EPOCH = rules.NOW + ":00.000Z"  # step 0 is the simulated now
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # record locators leave out I and O
BACKGROUND_MEMBERS = 30


class Builder:
    """The state being built, and the helpers that keep it consistent."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.flights: dict = {}
        self.by_leg: dict = {}  # (origin, destination, date) -> [flight ids by departure]
        self.members: dict = {}
        self.methods: dict = {}
        self.reservations: dict = {}
        self.claimed: set = set()  # flights a planted situation depends on: nothing else changes them
        self.names: set = set()
        self._member_ids = iter(rng.sample(range(1000, 10000), 200))
        self._method_ids = iter(rng.sample(range(1000, 10000), 400))
        self._numbers = iter(rng.sample(range(100, 10000), 200))

    # -- flights ------------------------------------------------------------------------------------------------

    def build_network(self) -> None:
        rng = self.rng
        for a, b, minutes, base in ROUTES:
            for origin, dest in ((a, b), (b, a)):
                if rng.random() < 0.6:
                    times = [rng.randrange(6 * 60, 10 * 60, 5), rng.randrange(14 * 60, 19 * 60, 5)]
                else:
                    times = [rng.randrange(7 * 60, 18 * 60, 5)]
                for t in times:
                    self._fly(f"HA{next(self._numbers):04d}", origin, dest, t, minutes, base)
        for key in self.by_leg:
            self.by_leg[key].sort(key=lambda fid: self.flights[fid]["departs_at"])

    def _fly(self, number, origin, dest, minute_of_day, minutes, base) -> None:
        rng = self.rng
        for n in range(network.DAYS):
            date = rules.shift_day(network.FIRST_DAY, n)
            departs = f"{date}T{minute_of_day // 60:02d}:{minute_of_day % 60:02d}"
            weekend = rules.day_name(date).split()[0] in ("Friday", "Saturday", "Sunday")
            economy = rng.randint(base * (110 if weekend else 85) // 500, base * (135 if weekend else 115) // 500)
            economy *= 500
            business = economy * rng.randint(22, 30) // 10 // 500 * 500
            status, delay, cause = "scheduled", 0, ""
            roll = rng.random()
            if roll < 0.04:
                status, cause = "cancelled", rng.choice(rules.CAUSES)
            elif roll < 0.16:
                delay, cause = rng.randrange(15, 300, 5), rng.choice(rules.CAUSES)
            f = {"id": f"{number}-{date}", "number": number, "origin": origin, "destination": dest, "date": date,
                 "departs_at": departs, "arrives_at": rules.add_minutes(departs, minutes), "status": status,
                 "delay_minutes": delay, "cause": cause,
                 "seats": {"economy": rng.choice((0, rng.randint(1, 8), rng.randint(9, 60), rng.randint(9, 60))),
                           "business": rng.choice((0, rng.randint(1, 4), rng.randint(4, 12)))},
                 "prices": {"economy": economy, "business": business}}
            self.settle(f)
            self.flights[f["id"]] = f
            self.by_leg.setdefault((origin, dest, date), []).append(f["id"])

    @staticmethod
    def settle(f: dict) -> None:
        """A flight's status from its times: one that has left by now has departed."""
        if f["status"] != "cancelled":
            if rules.departure(f) <= rules.NOW:
                f["status"] = "departed"
            else:
                f["status"] = "delayed" if f["delay_minutes"] else "scheduled"
        if f["status"] in ("scheduled",) or (f["status"] == "departed" and not f["delay_minutes"]):
            f["cause"] = ""

    def legs(self, origin, dest, date) -> list:
        return [self.flights[fid] for fid in self.by_leg.get((origin, dest, date), [])]

    def set_flight(self, f: dict, **fields) -> None:
        f.update(fields)
        self.settle(f)

    def connections(self, origin, dest, date) -> list:
        """[(first leg, second leg)] via a hub, the second leaving 1 to 6 hours after the first lands."""
        out = []
        for hub in network.HUBS:
            if hub in (origin, dest):
                continue
            for first in self.legs(origin, hub, date):
                for day in (date, rules.shift_day(date, 1)):
                    for second in self.legs(hub, dest, day):
                        gap = rules.minutes_between(first["arrives_at"], second["departs_at"])
                        if rules.MIN_CONNECTION <= gap <= 360:
                            out.append((first, second))
        return out

    # -- members and payment methods -------------------------------------------------------------------------------

    def name(self, last: str | None = None) -> tuple:
        while True:
            first = self.rng.choice(FIRST_NAMES)
            surname = last or self.rng.choice(LAST_NAMES)
            if (first, surname) not in self.names:
                self.names.add((first, surname))
                return first, surname

    def dob(self, lo=1950, hi=2004) -> str:
        return f"{self.rng.randint(lo, hi)}-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}"

    def member(self, tier: str | None = None, last: str | None = None, cards: int = 1, gift: bool = False,
               certificate: bool = False) -> dict:
        rng = self.rng
        first, surname = self.name(last)
        m = {"id": f"mb-{next(self._member_ids)}", "first_name": first, "last_name": surname,
             "email": f"{first.lower()}.{surname.lower()}{rng.randint(1, 99)}@example.com",
             "date_of_birth": self.dob(), "tier": tier or rng.choice(rules.TIERS),
             "member_since": f"{rng.randint(2012, 2025)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
             "payment_methods": [], "reservations": []}
        self.members[m["id"]] = m
        brand = rng.choice(CARD_BRANDS)
        for _ in range(cards):
            last4 = f"{rng.randint(0, 9999):04d}"
            self.method(m, "card", f"{brand} ending in {last4}")
            brand = rng.choice(CARD_BRANDS)
        if gift:
            self.method(m, "gift_card", "Gift card", balance=rng.randrange(5000, 40000, 500))
        if certificate:
            self.method(m, "certificate", "Travel certificate", balance=rng.randrange(5000, 30000, 2500))
        return m

    def method(self, m: dict, kind: str, label: str, balance: int | None = None, flight_id: str = "",
               reservation_id: str = "", issued_at: str = "") -> dict:
        p = {"id": f"pm-{next(self._method_ids)}", "member_id": m["id"], "kind": kind, "label": label,
             "balance": balance, "issued_for": flight_id, "reservation_id": reservation_id, "issued_at": issued_at}
        self.methods[p["id"]] = p
        m["payment_methods"].append(p["id"])
        return p

    def card(self, m: dict) -> dict:
        return next(self.methods[p] for p in m["payment_methods"] if self.methods[p]["kind"] == "card")

    def kind_of(self, m: dict, kind: str) -> dict | None:
        return next((self.methods[p] for p in m["payment_methods"] if self.methods[p]["kind"] == kind), None)

    # -- reservations -------------------------------------------------------------------------------------------

    def locator(self) -> str:
        while True:
            rid = "".join(self.rng.choice(LETTERS + "23456789") for _ in range(6))
            if rid not in self.reservations and not rid.isdigit():
                return rid

    def passengers(self, m: dict, extra: int) -> list:
        out = [{"first_name": m["first_name"], "last_name": m["last_name"], "date_of_birth": m["date_of_birth"]}]
        for _ in range(extra):
            first, last = self.name(m["last_name"] if self.rng.random() < 0.6 else None)
            out.append({"first_name": first, "last_name": last, "date_of_birth": self.dob(1950, 2020)})
        return out

    def reserve(self, m: dict, legs: list, cabin: str, fare: str, passengers: list, *, trip: str = "one_way",
                bags: int = 0, insurance: bool = False, booked_at: str | None = None, cancelled: bool = False,
                pay: str = "card", destination: str | None = None) -> dict:
        """A reservation of ``legs`` for ``passengers``, paid at booking as ``pay`` says
        (``card``, ``gift``: the gift card first, ``certificate``: the certificate first).
        A round trip names its ``destination``, where it turns back."""
        rng = self.rng
        first = min(f["departs_at"] for f in legs)
        if booked_at is None:
            booked_at = rules.add_minutes(min(first, rules.DAY_AGO), -rng.randrange(60 * 24, 60 * 24 * 40, 7))
        segments = [{"flight_id": f["id"], "number": f["number"], "origin": f["origin"],
                     "destination": f["destination"], "date": f["date"],
                     "price": rules.fare_price(f, cabin, rules.FARES[fare]) * rng.randint(92, 108) // 10000 * 100}
                    for f in legs]
        pax = len(passengers)
        total = (sum(s["price"] for s in segments) * pax + rules.bag_cost(m["tier"], cabin, pax, bags)
                 + (rules.INSURANCE_FEE * pax if insurance else 0))
        payments = []
        first_method = self.kind_of(m, {"gift": "gift_card", "certificate": "certificate"}.get(pay, "card"))
        if pay != "card" and first_method is not None:
            part = min(total, rng.randrange(5000, 20000, 500))
            payments.append({"payment_id": first_method["id"], "amount": part})
            total -= part
        if total:
            payments.append({"payment_id": self.card(m)["id"], "amount": total})
        origin = legs[0]["origin"]
        dest = destination or legs[-1]["destination"]
        history = [{"at": booked_at, "action": "booked", "amount": rules.paid({"payments": payments}),
                    "detail": f"{pax} passenger(s), {cabin}, {rules.FARES[fare]['name']}"}]
        r = {"id": self.locator(), "member_id": m["id"], "origin": origin, "destination": dest, "trip": trip,
             "cabin": cabin, "fare": fare, "flights": segments, "passengers": passengers, "bags": bags,
             "insurance": insurance, "status": "confirmed", "booked_at": booked_at, "payments": payments,
             "history": history}
        if cancelled:
            at = rules.add_minutes(booked_at, rng.randrange(60, 60 * 24 * 5, 7))
            refund = [{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in payments]
            r.update(status="cancelled", payments=payments + refund,
                     history=history + [{"at": min(at, rules.add_minutes(rules.NOW, -90)), "action": "cancelled",
                                         "amount": -rules.paid({"payments": payments}),
                                         "detail": "reason: change_of_plans"}])
        elif all(self.flights[s["flight_id"]]["status"] in ("departed", "cancelled") for s in segments) and any(
                self.flights[s["flight_id"]]["status"] == "departed" for s in segments):
            r["status"] = "completed"
        self.reservations[r["id"]] = r
        m["reservations"].append(r["id"])
        return r

    def background_trip(self, m: dict, avoid: str = "") -> None:
        """A random trip of ``m``'s (none to ``avoid``, where a planted trip of theirs goes)."""
        rng = self.rng
        codes = sorted(AIRPORTS)
        origin = rng.choice(codes)
        dest = rng.choice([c for c in codes if c not in (origin, avoid)])
        day = rng.randrange(network.DAYS - 1)
        date = rules.shift_day(network.FIRST_DAY, day)
        out = self._itinerary(origin, dest, date)
        if not out:
            return
        legs, trip = list(out), "one_way"
        if rng.random() < 0.5:
            back_date = rules.shift_day(date, rng.randint(1, 4))
            back = self._itinerary(dest, origin, back_date)
            if back and back_date <= rules.shift_day(network.FIRST_DAY, network.DAYS - 1):
                legs, trip = legs + list(back), "round_trip"
        pax = rng.choice((1, 1, 1, 2, 2, 3))
        self.reserve(m, legs, rng.choice(("economy", "economy", "economy", "business")),
                     rng.choice(sorted(rules.FARES)), self.passengers(m, pax - 1), trip=trip,
                     bags=rng.randint(0, pax * 2), insurance=rng.random() < 0.3, cancelled=rng.random() < 0.12,
                     pay=rng.choice(("card", "card", "gift", "certificate")), destination=dest)

    def _itinerary(self, origin, dest, date) -> tuple:
        if network.direct(origin, dest):
            options = self.legs(origin, dest, date)
            return (self.rng.choice(options),) if options else ()
        options = self.connections(origin, dest, date)
        return self.rng.choice(options) if options else ()

    def state(self) -> dict:
        return {
            "airports": {code: {"id": code, "name": n, "city": c} for code, (n, c) in AIRPORTS.items()},
            "fares": {k: dict(v) for k, v in rules.FARES.items()},
            "flights": self.flights,
            "members": self.members,
            "payment_methods": self.methods,
            "reservations": self.reservations,
            "transfers": {},
        }


def generate(seed: int) -> dict:
    from .plants import plant  # the planted situations build on the background

    b = Builder(random.Random(seed))
    b.build_network()
    plant(b)
    for _ in range(BACKGROUND_MEMBERS):
        m = b.member(cards=b.rng.choice((1, 1, 2)), gift=b.rng.random() < 0.4, certificate=b.rng.random() < 0.2)
        for _ in range(b.rng.randint(1, 4)):
            b.background_trip(m)
    return b.state()
