"""Halcyon Air's rules, in one place: fares, bags, prices, compensation.

The tools apply them, the generator plants states around them, and the
tasks' reference solutions are computed with them, so the three cannot drift
apart. Money is always integer cents; times are UTC, ``YYYY-MM-DDTHH:MM``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache

from ..money import dollars, dollars_bare  # noqa: F401  (the desk writes money so)

NOW = "2026-06-15T14:00"  # Monday 15 June 2026, 14:00 UTC: the simulated now of every episode
TODAY = NOW[:10]
DAY_AGO = "2026-06-14T14:00"  # a reservation booked after this is within the 24-hour rule

CABINS = ("economy", "business")
TIERS = ("regular", "silver", "gold", "platinum")
CAUSES = ("crew", "technical", "weather", "air_traffic_control")
AIRLINE_CAUSES = ("crew", "technical")  # the airline's own; weather and air traffic control are not
REASONS = ("change_of_plans", "airline_cancelled", "health", "family_emergency", "other")
INSURED_REASONS = ("health", "family_emergency")

# The fare classes, stored in the ``fares`` collection as they are here.
FARES = {
    "saver": {"id": "saver", "name": "Saver", "price_pct": 80, "changes_allowed": False, "change_fee": 0,
              "refundable": False},
    "standard": {"id": "standard", "name": "Standard", "price_pct": 100, "changes_allowed": True,
                 "change_fee": 7500, "refundable": False},
    "flex": {"id": "flex", "name": "Flex", "price_pct": 135, "changes_allowed": True, "change_fee": 0,
             "refundable": True},
}
FEE_WAIVED_TIERS = ("gold", "platinum")

# Free checked bags per passenger, by the member's tier and the cabin.
FREE_BAGS = {
    ("regular", "economy"): 0, ("regular", "business"): 2,
    ("silver", "economy"): 1, ("silver", "business"): 2,
    ("gold", "economy"): 2, ("gold", "business"): 3,
    ("platinum", "economy"): 3, ("platinum", "business"): 3,
}
BAG_FEE = 4000  # each checked bag beyond the free allowance
MAX_BAGS_PER_PASSENGER = 5
INSURANCE_FEE = 3000  # per passenger, only when booking
MIN_CONNECTION = 60  # minutes between a leg's arrival and the next one's departure

CANCELLATION_COMPENSATION = 10000  # per passenger, for a flight the airline cancelled
DELAY_COMPENSATION = 5000  # per passenger, for an airline delay of DELAY_THRESHOLD minutes or more
DELAY_THRESHOLD = 180

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


@lru_cache(maxsize=None)
def day_name(date: str) -> str:
    """``Thursday 18 June`` for ``2026-06-18`` (names spelled out: no locale)."""
    d = datetime.fromisoformat(date)
    return f"{WEEKDAYS[d.weekday()]} {d.day} {MONTHS[d.month - 1]}"


@lru_cache(maxsize=None)
def shift_day(date: str, days: int) -> str:
    return (datetime.fromisoformat(date) + timedelta(days=days)).strftime("%Y-%m-%d")


# Times are parsed with fromisoformat (C) rather than strptime: the generator computes thousands.
def add_minutes(at: str, minutes: int) -> str:
    return (datetime.fromisoformat(at) + timedelta(minutes=minutes)).isoformat(timespec="minutes")


def minutes_between(a: str, b: str) -> int:
    return int((datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds() // 60)


# -- prices -------------------------------------------------------------------------------------------------------


def fare_price(flight: dict, cabin: str, fare: dict) -> int:
    """What one passenger pays for ``flight`` in ``cabin`` on ``fare`` today."""
    return flight["prices"][cabin] * fare["price_pct"] // 100


def free_bags(tier: str, cabin: str, passengers: int) -> int:
    return FREE_BAGS[(tier, cabin)] * passengers


def bag_cost(tier: str, cabin: str, passengers: int, bags: int) -> int:
    """What ``bags`` checked bags cost on a reservation (the free ones are free)."""
    return max(0, bags - free_bags(tier, cabin, passengers)) * BAG_FEE


def change_fee(fare: dict, tier: str, passengers: int) -> int:
    return 0 if tier in FEE_WAIVED_TIERS else fare["change_fee"] * passengers


def booking_total(flights: list, cabin: str, fare: dict, tier: str, passengers: int, bags: int,
                  insurance: bool) -> int:
    return (sum(fare_price(f, cabin, fare) for f in flights) * passengers + bag_cost(tier, cabin, passengers, bags)
            + (INSURANCE_FEE * passengers if insurance else 0))


def paid(reservation: dict) -> int:
    """What a reservation has cost its member so far, net of refunds."""
    return sum(p["amount"] for p in reservation["payments"])


def paid_by(reservation: dict) -> dict:
    """payment method id -> what it paid for the reservation, net, in the order they first paid."""
    out: dict = {}
    for p in reservation["payments"]:
        out[p["payment_id"]] = out.get(p["payment_id"], 0) + p["amount"]
    return out


# -- flights ----------------------------------------------------------------------------------------------------------


def departure(flight: dict) -> str:
    """When the flight leaves (or left), counting its delay."""
    return add_minutes(flight["departs_at"], flight["delay_minutes"])


def bookable(flight: dict) -> bool:
    return flight["status"] in ("scheduled", "delayed") and departure(flight) > NOW


def flown(flight: dict) -> bool:
    return flight["status"] == "departed"


# -- compensation ----------------------------------------------------------------------------------------------------


def compensation_eligible(member: dict, reservation: dict) -> bool:
    """Silver, gold and platinum members; a regular member only in business or with insurance."""
    return member["tier"] != "regular" or reservation["cabin"] == "business" or reservation["insurance"]


def compensation(member: dict, reservation: dict, flight: dict) -> int:
    """The certificate the policy gives for ``flight`` of ``reservation`` (0: none)."""
    if not compensation_eligible(member, reservation) or flight["cause"] not in AIRLINE_CAUSES:
        return 0
    pax = len(reservation["passengers"])
    if flight["status"] == "cancelled":
        return CANCELLATION_COMPENSATION * pax
    if flight["delay_minutes"] >= DELAY_THRESHOLD:
        return DELAY_COMPENSATION * pax
    return 0


def itinerary_problem(flights: list, origin: str, destination: str, trip: str) -> str | None:
    """Why ``flights`` are not a ``trip`` from ``origin`` to ``destination`` (None when they are)."""
    if flights[0]["origin"] != origin:
        return f"the first flight leaves from {flights[0]['origin']}, not {origin}"
    for a, b in zip(flights, flights[1:]):
        if a["destination"] != b["origin"]:
            return f"{a['number']} lands at {a['destination']} but {b['number']} leaves from {b['origin']}"
        if minutes_between(a["arrives_at"], b["departs_at"]) < MIN_CONNECTION:
            return f"{b['number']} leaves less than {MIN_CONNECTION} minutes after {a['number']} lands"
    arrivals = [f["destination"] for f in flights]
    if trip == "one_way":
        if arrivals[-1] != destination or destination in arrivals[:-1]:
            return f"a one-way trip must end at {destination}, the first time it gets there"
    elif arrivals[-1] != origin or destination not in arrivals[:-1] or origin in arrivals[:-1]:
        return f"a round trip must go from {origin} to {destination} and back to {origin}"
    return None
