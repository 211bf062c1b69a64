"""Billing's state schema: Stripe's objects as the tools store them.

Every field is required (null where Stripe allows it), amounts are integer
cents, times Unix seconds. Nested objects Stripe documents field by field
(a card, an outcome, evidence) are typed; free-form ones (metadata) are maps
of text. ``rules`` holds what the tools rely on across records: every id a
record names exists.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path
from .state import EVIDENCE_FIELDS

Ts = Annotated[int, Meta(ge=0, description="Unix seconds")]
Cents = Annotated[int, Meta(ge=-100_000_000, le=100_000_000, description="integer cents")]
Usd = Literal["usd"]
Meta_ = dict[str, str]
Obj = dict[str, object]


class Nested(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class Card(Nested):
    brand: str
    last4: Annotated[str, Meta(pattern=r"^\d{4}$")]
    exp_month: Annotated[int, Meta(ge=1, le=12)]
    exp_year: Annotated[int, Meta(ge=2000, le=2100)]
    funding: str
    country: str


class Customer(Record):
    id: str
    object: Literal["customer"]
    name: str | None
    email: str | None
    description: str | None
    created: Ts
    currency: Usd
    balance: Cents
    delinquent: bool
    discount: Obj | None
    invoice_settings: dict[str, str | None]
    metadata: Meta_


class PaymentMethod(Record):
    id: str
    object: Literal["payment_method"]
    type: Literal["card"]
    customer: str
    created: Ts
    card: Card
    billing_details: dict[str, str | None]
    metadata: Meta_


class Product(Record):
    id: str
    object: Literal["product"]
    name: str
    active: bool
    description: str | None
    created: Ts
    metadata: Meta_


class Recurring(Nested):
    interval: Literal["month", "year"]
    interval_count: int


class Price(Record):
    id: str
    object: Literal["price"]
    product: str
    nickname: str
    unit_amount: Cents
    currency: Usd
    active: bool
    type: Literal["one_time", "recurring"]
    recurring: Recurring | None
    lookup_key: str | None
    created: Ts
    metadata: Meta_


class Item(Nested):
    id: str
    object: Literal["subscription_item"]
    price: str
    quantity: Annotated[int, Meta(ge=1)]


class Subscription(Record):
    id: str
    object: Literal["subscription"]
    customer: str
    status: Literal["incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid",
                    "paused"]
    items: list[Item]
    created: Ts
    start_date: Ts
    current_period_start: Ts
    current_period_end: Ts
    billing_cycle_anchor: Ts
    cancel_at_period_end: bool
    cancel_at: Ts | None
    canceled_at: Ts | None
    ended_at: Ts | None
    cancellation_details: dict[str, str | None]
    trial_start: Ts | None
    trial_end: Ts | None
    pause_collection: Obj | None
    discount: Obj | None
    default_payment_method: str | None
    latest_invoice: str | None
    collection_method: Literal["charge_automatically", "send_invoice"]
    currency: Usd
    metadata: Meta_


class Invoice(Record):
    id: str
    object: Literal["invoice"]
    customer: str
    subscription: str | None
    status: Literal["draft", "open", "paid", "void", "uncollectible"]
    number: str
    currency: Usd
    created: Ts
    period_start: Ts
    period_end: Ts
    collection_method: Literal["charge_automatically", "send_invoice"]
    due_date: Ts | None
    attempt_count: int
    attempted: bool
    subtotal: Cents
    total: Cents
    amount_due: Cents
    amount_paid: Cents
    amount_remaining: Cents
    lines: list[Obj]
    charge: str | None
    payment_intent: str | None
    status_transitions: dict[str, Ts | None]
    metadata: Meta_


class InvoiceItem(Record):
    id: str
    object: Literal["invoiceitem"]
    customer: str
    subscription: str | None
    invoice: str | None
    amount: Cents
    currency: Usd
    description: str
    price: str
    quantity: int
    proration: bool
    period: dict[str, Ts]
    created: Ts


class PaymentIntent(Record):
    id: str
    object: Literal["payment_intent"]
    amount: Cents
    currency: Usd
    customer: str
    description: str | None
    created: Ts
    payment_method: str
    invoice: str | None
    latest_charge: str | None
    status: Literal["requires_payment_method", "requires_confirmation", "requires_action", "processing",
                    "requires_capture", "canceled", "succeeded"]
    metadata: Meta_


class Charge(Record):
    id: str
    object: Literal["charge"]
    amount: Cents
    amount_captured: Cents
    amount_refunded: Cents
    refunded: bool
    captured: bool
    paid: bool
    status: Literal["succeeded", "pending", "failed"]
    currency: Usd
    customer: str
    description: str | None
    invoice: str | None
    payment_intent: str
    payment_method: str
    payment_method_details: Obj
    failure_code: str | None
    failure_message: str | None
    outcome: dict[str, str | None]
    disputed: bool
    dispute: str | None
    balance_transaction: str | None
    created: Ts
    metadata: Meta_


class Refund(Record):
    id: str
    object: Literal["refund"]
    amount: Cents
    charge: str
    payment_intent: str
    currency: Usd
    reason: Literal["duplicate", "fraudulent", "requested_by_customer"] | None
    status: Literal["pending", "succeeded", "failed", "canceled"]
    created: Ts
    balance_transaction: str | None
    metadata: Meta_


Evidence = msgspec.defstruct("Evidence", [(f, str | None) for f in EVIDENCE_FIELDS], bases=(Nested,),
                             kw_only=True, forbid_unknown_fields=True)


class EvidenceDetails(Nested):
    due_by: Ts
    has_evidence: bool
    past_due: bool
    submission_count: int


class Dispute(Record):
    id: str
    object: Literal["dispute"]
    amount: Cents
    charge: str
    payment_intent: str
    currency: Usd
    reason: str
    status: Literal["warning_needs_response", "warning_under_review", "warning_closed", "needs_response",
                    "under_review", "won", "lost"]
    created: Ts
    is_charge_refundable: bool
    evidence: Evidence
    evidence_details: EvidenceDetails
    balance_transactions: list[str]
    metadata: Meta_


class Coupon(Record):
    id: str
    object: Literal["coupon"]
    name: str
    percent_off: int | None
    amount_off: Cents | None
    currency: Usd | None
    duration: Literal["once", "repeating", "forever"]
    duration_in_months: int | None
    max_redemptions: int | None
    times_redeemed: int
    redeem_by: Ts | None
    valid: bool
    created: Ts
    metadata: Meta_


class PromotionCode(Record):
    id: str
    object: Literal["promotion_code"]
    code: str
    coupon: str
    active: bool
    customer: str | None
    created: Ts
    expires_at: Ts | None
    max_redemptions: int | None
    times_redeemed: int
    restrictions: Obj
    metadata: Meta_


class BalanceTransaction(Record):
    id: str
    object: Literal["balance_transaction"]
    amount: Cents
    fee: Cents
    net: Cents
    currency: Usd
    type: Literal["charge", "refund", "adjustment", "payout", "payout_failure"]
    reporting_category: str
    source: str
    description: str | None
    created: Ts
    available_on: Ts
    status: Literal["available", "pending"]
    payout: str | None


class Payout(Record):
    id: str
    object: Literal["payout"]
    amount: Cents
    currency: Usd
    created: Ts
    arrival_date: Ts
    status: Literal["paid", "pending", "in_transit", "canceled", "failed"]
    method: str
    type: str
    description: str | None
    failure_code: str | None
    failure_message: str | None
    balance_transaction: str | None
    metadata: Meta_


class Event(Record):
    id: str
    object: Literal["event"]
    type: str
    created: Ts
    data: Obj


class IdempotencyKey(Record):
    id: str
    object: Literal["idempotency_key"]
    request: str
    response: Obj
    created: Ts


RECORDS = {"customers": Customer, "payment_methods": PaymentMethod, "products": Product, "prices": Price,
           "subscriptions": Subscription, "invoices": Invoice, "invoiceitems": InvoiceItem,
           "payment_intents": PaymentIntent, "charges": Charge, "refunds": Refund, "disputes": Dispute,
           "coupons": Coupon, "promotion_codes": PromotionCode, "balance_transactions": BalanceTransaction,
           "payouts": Payout, "events": Event, "idempotency_keys": IdempotencyKey}

# field -> the collection the id it holds must be in
_LINKS = {"customers": {}, "payment_methods": {"customer": "customers"}, "prices": {"product": "products"},
          "subscriptions": {"customer": "customers", "latest_invoice": "invoices"},
          "invoices": {"customer": "customers", "subscription": "subscriptions", "charge": "charges"},
          "invoiceitems": {"customer": "customers", "subscription": "subscriptions", "invoice": "invoices"},
          "payment_intents": {"customer": "customers", "payment_method": "payment_methods"},
          "charges": {"customer": "customers", "payment_intent": "payment_intents",
                      "payment_method": "payment_methods", "dispute": "disputes"},
          "refunds": {"charge": "charges"}, "disputes": {"charge": "charges"},
          "promotion_codes": {"coupon": "coupons"}}


def rules(state: dict):
    for coll, links in _LINKS.items():
        for rid, rec in state.get(coll, {}).items():
            for field, target in links.items():
                value = rec.get(field)
                if value is not None and value not in state.get(target, {}):
                    yield Issue(f"{record_path(coll, rid)}.{field}", f"{value!r} is not in {target}")
    for rid, sub in state.get("subscriptions", {}).items():
        for item in sub["items"]:
            if item["price"] not in state.get("prices", {}):
                yield Issue(f"{record_path('subscriptions', rid)}.items", f"{item['price']!r} is not in prices")


SCHEMA = StateSchema(records=RECORDS, required=("customers", "prices", "products"), rules=rules)
