"""Airline: Halcyon Air's travel desk, where a long policy decides most answers.

A loyalty member asks the desk's agent to find, book, change or cancel
flights, fix passengers, add bags, or compensate a disruption. The booking
system lets the agent do more than the policy allows (change a Saver fare,
refund a fare that is not refundable, compensate a weather delay, touch
another member's reservation), so most mistakes are broken rules rather
than wrong calls, as in tau2-bench's airline domain; the data, policy and
code are our own.

- ``network.py``: airports, routes, names (the same on every seed)
- ``state.py`` and ``plants.py``: the seeded generator and the situations the
  tasks need; ``schema.py``: its records as types
- ``rules.py``: fares, bags, prices, itineraries, compensation
- ``args.py``, ``tools.py``, ``writes.py`` and ``payments.py``: the 7 safe and
  8 guarded tools, and how money moves
- ``cast.py``, ``checks.py`` and ``tasks*.py`` (trips, passengers, money,
  bookings): what the tasks are about, and al-01 to al-25
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="airline",
    version="1.0.0",
    title="Halcyon Air travel desk",
    description=(
        "An airline's travel desk under a long contact-centre policy: search direct and one-stop flights, book "
        "with split payments, bags and insurance, change flights or cabin, cancel under fare, insurance and "
        "24-hour rules, compensate disruptions of the airline's own cause. Amounts are integer cents."
    ),
)

__all__ = ["WORLD"]
