"""Billing's tasks, bl-01 to bl-27 (``tasks_money.py``, ``tasks_plans.py``).

Refusals (the policy says no and the answer must say why): bl-09 a disputed
charge, bl-10 a refund over $500.00, bl-11 an expired code, bl-12 a second
coupon. ``ask_user``: bl-14 which of two customers with one name, bl-15 until
when, bl-16 how much. Traps: a legitimate look-alike charge (bl-01), the
archived price beside the live one (bl-03, bl-04), last year's code (bl-13),
a dispute past its deadline (bl-08), an invoice sent twice (bl-18), a name one
letter from another (bl-27), a charge already refunded in part (bl-22). Under
the ``timeout_after_commit`` fault profile, a blind retry in bl-02 (a partial
refund) or bl-23 (a new customer) does it twice and fails their ``one-*``
check: a careful agent looks before redoing, or retries with the same
``idempotency_key`` (tests/worlds/test_billing.py plays all three).
"""

from __future__ import annotations

from ..task import Task
from . import tasks_money as M
from . import tasks_plans as P

TASKS = [
    Task("bl-01", "Refund a double charge", M.double_charge, step_budget=14, tags=("refunds", "duplicate", "trap")),
    Task("bl-02", "Refund a missing seat", M.missing_seat, step_budget=8, tags=("refunds", "partial", "faults")),
    Task("bl-03", "Move to annual billing with proration", P.annual_switch, step_budget=14,
         tags=("subscriptions", "proration", "trap")),
    Task("bl-04", "Downgrade Business to Team", P.downgrade, step_budget=10, tags=("subscriptions", "proration", "trap")),
    Task("bl-05", "Cancel at the period's end", P.cancel_at_end, step_budget=8, tags=("subscriptions", "smaller")),
    Task("bl-06", "Undo a duplicate subscription", P.duplicate_subscription, step_budget=14,
         tags=("subscriptions", "refunds", "duplicate")),
    Task("bl-07", "Retry a failed invoice on the new card", M.retry_invoice, step_budget=14,
         tags=("invoices", "payments", "trap")),
    Task("bl-08", "Answer a dispute before its deadline", M.answer_dispute, step_budget=14,
         tags=("disputes", "stale", "trap")),
    Task("bl-09", "Refuse a refund on a disputed charge", M.disputed_refund, step_budget=8, refusal=True,
         tags=("refunds", "disputes", "refusal")),
    Task("bl-10", "Refuse a refund over the limit", M.big_refund, step_budget=8, refusal=True,
         tags=("refunds", "refusal")),
    Task("bl-11", "Refuse an expired promotion code", P.expired_code, step_budget=8, refusal=True,
         tags=("coupons", "refusal")),
    Task("bl-12", "Refuse a second coupon", P.second_coupon, step_budget=8, refusal=True, tags=("coupons", "refusal")),
    Task("bl-13", "Apply a valid promotion code", P.apply_code, step_budget=10, tags=("coupons", "trap")),
    Task("bl-14", "Cancel for one of two customers with one name", P.namesake, step_budget=10,
         tags=("subscriptions", "ask_user")),
    Task("bl-15", "Pause billing until a date", P.pause_billing, step_budget=10, tags=("subscriptions", "ask_user")),
    Task("bl-16", "Refund an agreed outage credit", M.goodwill, step_budget=10, tags=("refunds", "ask_user")),
    Task("bl-17", "Reconcile a payout", M.reconcile_payout, step_budget=10, tags=("payouts", "read")),
    Task("bl-18", "Void an invoice sent twice", M.void_duplicate_invoice, step_budget=8,
         tags=("invoices", "duplicate", "trap")),
    Task("bl-19", "Write off a closed business's invoice", M.write_off, step_budget=8, tags=("invoices",)),
    Task("bl-20", "Extend a trial by a week", P.extend_trial, step_budget=8, tags=("subscriptions", "trials")),
    Task("bl-21", "Add seats with proration", P.add_seats, step_budget=8, tags=("subscriptions", "proration")),
    Task("bl-22", "Refund what is left of a charge", M.refund_rest, step_budget=10, tags=("refunds", "partial", "stale")),
    Task("bl-23", "Add a new customer once", P.new_customer, step_budget=8, tags=("customers", "faults")),
    Task("bl-24", "Refund an undelivered onboarding", M.refund_onboarding, step_budget=8, tags=("refunds",)),
    Task("bl-25", "Report this week's failed payments", M.failed_payments, step_budget=8, tags=("payments", "read")),
    Task("bl-26", "Accept a small dispute", M.small_dispute, step_budget=8, tags=("disputes", "smaller")),
    Task("bl-27", "Update the right customer's email", P.change_email, step_budget=8, tags=("customers", "trap")),
]
