"""Billing: the Stripe account of Tallyroom, a small SaaS, as a Stripe twin.

Customers with cards, products and prices (one-off and recurring, live and
archived), subscriptions with items, trials, pauses and cancellations,
invoices in every status with their payment intents, charges (succeeded and
declined, with decline codes), refunds, disputes with evidence and deadlines,
coupons and promotion codes, balance transactions, payouts and events. Money
is integer cents with a currency; times are Unix seconds. Tools are Stripe's
operations by the ``stripe`` SDK's names (``Customer.search``,
``Subscription.modify``, ``Refund.create``, ``Invoice.void_invoice``…) with
Stripe's parameters, list objects and errors; a run also serves them at
Stripe's own paths (``{tools_url}/api.stripe.com/v1/customers``…) with
form-encoded bodies, so the official SDK runs against it unchanged.

- ``clock.py``, ``rules.py``: time, money, prorations, declines, the policy's numbers
- ``state.py``, ``plant.py``, ``seed_people.py``: the seeded account
- ``schema.py``: the records as types
- ``api.py``: Stripe's list objects, pagination, expand and errors
- ``reads.py``, ``writes.py``, ``subscriptions.py``, ``idempotency.py``: the tools
- ``cast.py``: the records the tasks are about, found by content
- ``tasks.py``, ``tasks_money.py``, ``tasks_plans.py``: bl-01 to bl-26
- ``policy.md``: the finance team's rules
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="billing",
    version="1.0.0",
    title="Billing",
    description=("A Stripe account twin for a small SaaS: customers, cards, prices, subscriptions with prorations, "
                 "invoices, charges, refunds, disputes, coupons, payouts and events, as Stripe's API operations."),
)

__all__ = ["WORLD"]
