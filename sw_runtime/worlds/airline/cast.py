"""What Halcyon Air's tasks are about, found in a start state by content.

``view(store)`` reads the state once; its helpers answer the questions the
tasks ask of it (a member's live trips, the flights of a route on a day, the
certificates given for a flight). A task lists the records that fit its
situation and picks one with a generator seeded by the state's digest, so
which member and trip play the part varies with the seed, and a background
record that fits is as good as a planted one. ``pick`` says what a custom
state lacks when nothing fits.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from . import rules
from .network import city

FUTURE_DAYS = tuple(rules.shift_day("2026-06-16", n) for n in range(6))  # 16 to 21 June


@dataclass(frozen=True)
class View:
    members: dict
    methods: dict
    reservations: dict
    flights: dict
    fares: dict
    by_leg: dict  # (origin, destination, date) -> flights by departure

    def flight(self, segment: dict) -> dict:
        return self.flights[segment["flight_id"]]

    def legs(self, origin: str, dest: str, date: str) -> list:
        return self.by_leg.get((origin, dest, date), [])

    def owner(self, r: dict) -> dict:
        return self.members[r["member_id"]]

    def of(self, m: dict) -> list:
        return [self.reservations[rid] for rid in m["reservations"]]

    def live(self, r: dict) -> bool:
        """Confirmed, and none of its flights has left."""
        return r["status"] == "confirmed" and not any(rules.flown(self.flight(s)) for s in r["flights"])

    def flying(self, r: dict) -> bool:
        """Live, and every flight can still be booked (none cancelled)."""
        return self.live(r) and all(rules.bookable(self.flight(s)) for s in r["flights"])

    def methods_of(self, m: dict, kind: str) -> list:
        return [self.methods[p] for p in m["payment_methods"] if self.methods[p]["kind"] == kind]

    def card(self, m: dict) -> dict:
        return self.methods_of(m, "card")[0]

    def compensated(self, m: dict, flight_id: str) -> bool:
        return any(p["issued_for"] == flight_id for p in self.methods_of(m, "certificate"))

    def fare(self, r: dict) -> dict:
        return self.fares[r["fare"]]


def view(store) -> View:
    flights = dict(store.scan("flights"))
    by_leg: dict = {}
    for f in sorted(flights.values(), key=lambda f: (f["departs_at"], f["id"])):
        by_leg.setdefault((f["origin"], f["destination"], f["date"]), []).append(f)
    return View(members=dict(store.scan("members")), methods=dict(store.scan("payment_methods")),
                reservations=dict(store.scan("reservations")), flights=flights, fares=dict(store.scan("fares")),
                by_leg=by_leg)


def rng_for(store, task_id: str) -> random.Random:
    # A str seed is hashed with SHA-512 by random.Random, never with hash().
    return random.Random(f"airline/{task_id}/{store.digest()}")


def pick(rng: random.Random, items: list, what: str):
    if not items:
        raise ValueError(f"airline state: no {what}")
    return rng.choice(items)


def one_leg(r: dict) -> bool:
    """A one-way trip on one direct flight."""
    return r["trip"] == "one_way" and len(r["flights"]) == 1


def name(m: dict) -> str:
    return f"{m['first_name']} {m['last_name']}"


def hello(m: dict) -> str:
    return f"Hi, this is {name(m)}, member {m['id']}."


def facts(m: dict, **extra) -> dict:
    """The simulated member's answers: who they are, a yes to a confirmation, and the task's own facts."""
    return {"member, id, number, account, who are you, name": f"I'm {name(m)}, member id {m['id']}.",
            "confirm, go ahead, proceed, shall i, should i, okay, do you want, would you like, is that right":
                "Yes, please go ahead.",
            **extra}


def persona(m: dict) -> str:
    return f"{name(m)}, a {m['tier']} member of Halcyon Air, who answers briefly and politely."


def where_to(r: dict) -> str:
    return city(r["destination"])


def time_of(at: str) -> str:
    return at[11:16]
