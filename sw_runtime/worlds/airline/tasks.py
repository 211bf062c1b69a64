"""Halcyon Air's tasks, al-01 to al-25.

Each ``setup`` reads the seeded start state (``cast.view``) and the
airline's rules (``rules.py``) and returns the instruction, the checks, a
reference solution and a reference answer for that seed; which member and
trip play the part is picked among those that fit, by a generator seeded
with the state's digest and the task id.

Every task has a ``no-collateral`` check whose allow rules cover exactly what
a correct solution changes, and a check a do-nothing episode fails (for a
refusal, the answer must give the reason). Every task has a simulated
member (``hidden_facts``: who they are, a yes to a confirmation, and what
only they know), so ``ask_user`` and the LLM user work on all of them;
al-10, al-12 and al-13 need it. al-07 and al-11 are the ones where a fault
profile matters: under ``timeout_after_commit`` a careful agent reads the
state before redoing a write that timed out, a careless one pays twice.
"""

from __future__ import annotations

from ..task import Task
from .tasks_book import cheapest_changeable, cheapest_day, one_stop_booking, round_trip_for_two
from .tasks_money import (cancel_after_our_cancellation, cancel_insured_illness, cancel_within_a_day,
                          compensate_delay, downgrade_refund, refuse_other_members_trip, refuse_saver_refund,
                          refuse_second_certificate, refuse_weather_compensation, transfer_partly_flown,
                          upgrade_split)
from .tasks_passengers import fix_birth_date, fix_companion_name, refuse_added_passenger
from .tasks_trips import (bags_on_live_trip, flight_status, move_both, push_return, rebook_cancelled, rebook_next_day,
                          refuse_saver_change)

FAULTS = {"al-07": "timeout_after_commit", "al-11": "timeout_after_commit"}  # where a fault profile matters

TASKS = [
    Task("al-01", "Is my flight on time?", flight_status, step_budget=7, tags=("read-only", "status")),
    Task("al-02", "Rebook after a cancellation, with compensation", rebook_cancelled, step_budget=12,
         tags=("rebook", "compensation", "long")),
    Task("al-03", "Upgrade to business with a split payment", upgrade_split, step_budget=12,
         tags=("cabin", "split-payment", "long")),
    Task("al-04", "Cancel within 24 hours", cancel_within_a_day, step_budget=7, tags=("cancel", "24-hour")),
    Task("al-05", "A Saver fare is not refundable", refuse_saver_refund, step_budget=7, refusal=True,
         tags=("refusal", "cancel")),
    Task("al-06", "A weather delay", refuse_weather_compensation, step_budget=7, refusal=True,
         tags=("refusal", "compensation")),
    Task("al-07", "Compensation for a long delay", compensate_delay, step_budget=9,
         tags=("compensation", "fault:timeout_after_commit")),
    Task("al-08", "More bags on the right trip", bags_on_live_trip, step_budget=10,
         tags=("bags", "stale", "trap")),
    Task("al-09", "A relative's reservation", refuse_other_members_trip, step_budget=6, refusal=True,
         tags=("refusal", "holder")),
    Task("al-10", "Which trip? A misspelt companion", fix_companion_name, step_budget=12,
         tags=("passengers", "ask-user", "look-alike", "trap", "long")),
    Task("al-11", "The cheapest fare that allows a change", cheapest_changeable, step_budget=9,
         tags=("booking", "fares", "fault:timeout_after_commit")),
    Task("al-12", "Move me, and my companion?", move_both, step_budget=10, tags=("change", "ask-user")),
    Task("al-13", "A round trip for two", round_trip_for_two, step_budget=12,
         tags=("booking", "split-payment", "bags", "insurance", "ask-user", "long")),
    Task("al-14", "A Saver fare cannot change", refuse_saver_change, step_budget=6, refusal=True,
         tags=("refusal", "change")),
    Task("al-15", "Rebook to the next day, nothing more", rebook_next_day, step_budget=9,
         tags=("rebook", "trap")),
    Task("al-16", "Compensation already given", refuse_second_certificate, step_budget=7, refusal=True,
         tags=("refusal", "compensation", "duplicate", "trap")),
    Task("al-17", "A wrong date of birth", fix_birth_date, step_budget=6, tags=("passengers",)),
    Task("al-18", "Cancel an insured trip for illness", cancel_insured_illness, step_budget=7,
         tags=("cancel", "insurance")),
    Task("al-19", "Cancel after we cancelled a flight", cancel_after_our_cancellation, step_budget=7,
         tags=("cancel", "disruption")),
    Task("al-20", "The cheapest of three days", cheapest_day, step_budget=8, tags=("read-only", "search")),
    Task("al-21", "Push the return back a day", push_return, step_budget=11, tags=("change", "fees", "long")),
    Task("al-22", "A trip that has begun", transfer_partly_flown, step_budget=6, tags=("transfer", "cancel")),
    Task("al-23", "Downgrade and refund the difference", downgrade_refund, step_budget=9, tags=("cabin", "refund")),
    Task("al-24", "Add a passenger", refuse_added_passenger, step_budget=6, refusal=True,
         tags=("refusal", "passengers")),
    Task("al-25", "A one-stop booking", one_stop_booking, step_budget=8, tags=("booking", "one-stop")),
]
