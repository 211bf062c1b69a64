"""Billing's reading tools: Stripe's list, search and retrieve operations, by
the names the ``stripe`` SDK gives them (``Customer.list``, ``Charge.retrieve``…).

Every list takes Stripe's ``limit``, ``starting_after``, ``ending_before`` and
``expand`` and answers a list object newest first; its filters are the API's
(``customer``, ``status``, ``payout``…). All are pure reads of the store.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..tool import tool
from .state import COLLECTIONS
from .api import Cursor, Expand, Id, Limit, error, expand, get, page, view


class ListArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    limit: Limit = 10
    starting_after: Cursor | None = None
    ending_before: Cursor | None = None
    expand: Expand = []


_BASE = set(ListArgs.__struct_fields__)
# What a read may touch: its collection, the objects its view embeds and what expand reaches (nearly everything,
# through ids). Every write records an event, so leaving events out keeps answers cached across writes.
READS = tuple(c for c in COLLECTIONS if c not in ("events", "idempotency_keys"))


def _lister(name: str, collection: str, params: type, url: str, doc: str, keep=None):
    """A list tool: the records whose fields equal every filter given. ``keep``, when given, is
    ``(the filters compared for equality, keep(store, record, args))`` for the filters that are not."""
    filters = [f for f in params.__struct_fields__ if f not in _BASE]
    equal = filters if keep is None else [f for f in filters if f in keep[0]]  # the rest is keep[1]'s

    def run(ctx, args):
        want = {f: getattr(args, f) for f in equal if getattr(args, f) is not None}
        rows = [r for _, r in ctx.store.scan(collection) if all(r.get(k) == v for k, v in want.items())]
        if keep is not None:
            rows = [r for r in rows if keep[1](ctx.store, r, args)]
        return page(ctx.store, rows, args, url)

    run.__doc__ = doc
    reads = READS + ("events",) if collection == "events" else READS
    return tool(writes=False, params=params, name=name, pure=True, reads=reads)(run)


def _getter(name: str, collection: str, what: str, doc: str):
    Args = msgspec.defstruct(name.replace(".", "") + "Args", [
        ("id", Annotated[Id, Meta(description=f"The {what}'s id.")]), ("expand", Expand, [])],
        kw_only=True, forbid_unknown_fields=True)

    def run(ctx, args):
        return expand(ctx.store, view(ctx.store, get(ctx.store, collection, args.id, what)), args.expand)

    run.__doc__ = doc
    return tool(writes=False, params=Args, name=name, pure=True, reads=READS)(run)


def _all_filters(params: type) -> tuple:
    return tuple(f for f in params.__struct_fields__ if f not in _BASE)


# -- customers -----------------------------------------------------------------------------------------------------


class CustomerList(ListArgs, kw_only=True):
    email: Annotated[str, Meta(max_length=512, description="Only the customers with exactly this email "
                                                           "(case-sensitive).")] | None = None


class CustomerSearch(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    query: Annotated[str, Meta(min_length=1, max_length=1000, description=(
        "Stripe's search query language: clauses field:'value' (exact, case-insensitive) or field~'value' "
        "(contains, 3+ characters) on email, name, phone or metadata['key'], and created>N / "
        "created<N; joined by AND or by OR. Example: name~'lee' AND email~'tallyroom'."))]
    limit: Limit = 10
    page: Annotated[str, Meta(max_length=64, description="The next_page cursor of a previous search.")] | None = None
    expand: Expand = []


_CLAUSE = re.compile(r"""\s*(?:(metadata)\[['"]([^'"]+)['"]\]|([a-z_]+))\s*(:|~|>=|<=|>|<)\s*(?:'([^']*)'|"([^"]*)"|(-?\d+))\s*""")


def _clauses(query: str) -> tuple:
    """``(joiner, [(field, op, value)])`` of a search query, or Stripe's 400."""
    parts = re.split(r"\s+(AND|OR)\s+", query.strip())
    joiners = {p for p in parts[1::2]}
    if len(joiners) > 1:
        raise error("parameter_invalid", "A search query cannot mix AND and OR.", "query")
    out = []
    for text in parts[0::2]:
        m = _CLAUSE.fullmatch(text)
        if m is None:
            raise error("parameter_invalid", f"Invalid search query clause: {text!r}. Write field:'value', "
                                             "field~'value' or created>1700000000.", "query")
        meta, key, field, op, v1, v2, num = m.groups()
        field = f"metadata.{key}" if meta else field
        if field not in ("email", "name", "phone", "created") and not meta:  # Stripe's customer search fields
            raise error("parameter_invalid", f"Field '{field}' is not supported for search on customers.", "query")
        value = int(num) if num is not None else (v1 if v1 is not None else v2)
        if op == "~" and len(str(value)) < 3:
            raise error("parameter_invalid", "A ~ (substring) search needs at least 3 characters.", "query")
        out.append((field, op, value))
    return (joiners.pop() if joiners else "AND"), out


def _hit(rec: dict, field: str, op: str, value) -> bool:
    have = rec.get("metadata", {}).get(field[9:]) if field.startswith("metadata.") else rec.get(field)
    if have is None:
        return False
    if field == "created" or op in (">", "<", ">=", "<="):
        if not isinstance(value, int):
            return False
        return {">": have > value, "<": have < value, ">=": have >= value, "<=": have <= value,
                ":": have == value}.get(op, False)
    have, value = str(have).lower(), str(value).lower()
    return value in have if op == "~" else have == value


@tool(writes=False, params=CustomerSearch, name="Customer.search", pure=True, reads=READS)
def customer_search(ctx, args):
    """Search customers (GET /v1/customers/search) with Stripe's query language, e.g. email:'maya@copperleaf.com'
    or name~'lee'. Answers a search_result with data, has_more and next_page."""
    joiner, clauses = _clauses(args.query)
    test = all if joiner == "AND" else any
    rows = [r for _, r in ctx.store.scan("customers") if test(_hit(r, *c) for c in clauses)]
    rows.sort(key=lambda r: (r["created"], r["id"]), reverse=True)
    start = 0
    if args.page is not None:
        ids = [r["id"] for r in rows]
        if args.page not in ids:
            raise error("parameter_invalid", f"Invalid page cursor: {args.page}", "page")
        start = ids.index(args.page)
    chunk = rows[start:start + args.limit]
    more = len(rows) > start + args.limit
    out = {"object": "search_result", "data": [view(ctx.store, r) for r in chunk], "has_more": more,
           "next_page": rows[start + args.limit]["id"] if more else None, "total_count": len(rows),
           "url": "/v1/customers/search"}
    return expand(ctx.store, out, args.expand)


# -- the rest, declared as tables ---------------------------------------------------------------------------------


class PaymentMethodList(ListArgs, kw_only=True):
    customer: Annotated[Id, Meta(description="The customer whose payment methods to list.")] | None = None
    type: Literal["card"] | None = None


class ProductList(ListArgs, kw_only=True):
    active: Annotated[bool, Meta(description="Only active (true) or archived (false) products.")] | None = None


class PriceList(ListArgs, kw_only=True):
    product: Annotated[Id, Meta(description="Only the prices of this product.")] | None = None
    active: Annotated[bool, Meta(description="Only active (true) or archived (false) prices.")] | None = None
    type: Literal["one_time", "recurring"] | None = None
    lookup_keys: Annotated[list[Annotated[str, Meta(max_length=200)]],
                           Meta(max_length=10, description="Only the prices with these lookup keys.")] | None = None


SubStatus = Literal["active", "all", "canceled", "ended", "incomplete", "incomplete_expired", "past_due", "paused",
                    "trialing", "unpaid"]


class SubscriptionList(ListArgs, kw_only=True):
    customer: Annotated[Id, Meta(description="Only this customer's subscriptions.")] | None = None
    price: Annotated[Id, Meta(description="Only subscriptions with an item on this price.")] | None = None
    status: Annotated[SubStatus, Meta(description="Default: every status but canceled; 'all' includes canceled, "
                                                  "'ended' is canceled and incomplete_expired.")] | None = None


def _sub_keep(store, rec, args) -> bool:
    if args.price is not None and all(i["price"] != args.price for i in rec["items"]):
        return False
    if args.status is None:
        return rec["status"] != "canceled"
    if args.status == "all":
        return True
    if args.status == "ended":
        return rec["status"] in ("canceled", "incomplete_expired")
    return rec["status"] == args.status


class InvoiceList(ListArgs, kw_only=True):
    customer: Annotated[Id, Meta(description="Only this customer's invoices.")] | None = None
    subscription: Annotated[Id, Meta(description="Only this subscription's invoices.")] | None = None
    status: Literal["draft", "open", "paid", "uncollectible", "void"] | None = None
    collection_method: Literal["charge_automatically", "send_invoice"] | None = None


class InvoiceItemList(ListArgs, kw_only=True):
    customer: Annotated[Id, Meta(description="Only this customer's invoice items.")] | None = None
    pending: Annotated[bool, Meta(description="true: only items not yet on an invoice.")] | None = None


class ByCustomer(ListArgs, kw_only=True):
    customer: Annotated[Id, Meta(description="Only this customer's objects.")] | None = None


class ChargeList(ByCustomer, kw_only=True):
    payment_intent: Annotated[Id, Meta(description="Only the charges of this payment intent.")] | None = None


class RefundList(ListArgs, kw_only=True):
    charge: Annotated[Id, Meta(description="Only the refunds of this charge.")] | None = None
    payment_intent: Annotated[Id, Meta(description="Only the refunds of this payment intent.")] | None = None


class DisputeList(ListArgs, kw_only=True):
    charge: Annotated[Id, Meta(description="Only the disputes of this charge.")] | None = None
    payment_intent: Annotated[Id, Meta(description="Only the disputes of this payment intent.")] | None = None


class PromotionCodeList(ListArgs, kw_only=True):
    code: Annotated[str, Meta(max_length=100, description="Only the promotion codes with this code "
                                                          "(case-insensitive).")] | None = None
    active: Annotated[bool, Meta(description="Only active (true) or inactive (false) codes.")] | None = None
    coupon: Annotated[str, Meta(max_length=64, description="Only the codes of this coupon.")] | None = None
    customer: Annotated[Id, Meta(description="Only the codes restricted to this customer.")] | None = None


class BalanceTransactionList(ListArgs, kw_only=True):
    payout: Annotated[Id, Meta(description="Only the transactions paid out in this payout (automatic payouts "
                                           "only).")] | None = None
    type: Annotated[str, Meta(max_length=40, description="Only this type: charge, refund, adjustment, payout, "
                                                         "payout_failure…")] | None = None
    source: Annotated[Id, Meta(description="Only the transactions of this source (a charge, refund, dispute or "
                                           "payout id).")] | None = None


class PayoutList(ListArgs, kw_only=True):
    status: Literal["pending", "paid", "failed", "canceled", "in_transit"] | None = None


class EventList(ListArgs, kw_only=True):
    type: Annotated[str, Meta(max_length=100, description="Only events of this type, e.g. charge.refunded; a "
                                                          "trailing * matches a prefix (charge.dispute.*).")] | None = None


def _promo_keep(store, rec, args) -> bool:
    return args.code is None or rec["code"].lower() == args.code.lower()


def _pending_keep(store, rec, args) -> bool:
    return args.pending is None or (rec["invoice"] is None) == args.pending


def _price_keep(store, rec, args) -> bool:
    return args.lookup_keys is None or rec["lookup_key"] in args.lookup_keys


def _event_keep(store, rec, args) -> bool:
    if args.type is None:
        return True
    return rec["type"].startswith(args.type[:-1]) if args.type.endswith("*") else rec["type"] == args.type


def _filters(params: type, *skip: str) -> tuple:
    return tuple(f for f in _all_filters(params) if f not in skip)


LISTS = [
    ("Customer.list", "customers", CustomerList, "/v1/customers", None,
     "List customers (GET /v1/customers), newest first; filter by exact email."),
    ("PaymentMethod.list", "payment_methods", PaymentMethodList, "/v1/payment_methods", None,
     "List a customer's payment methods (GET /v1/payment_methods): cards with brand, last4, exp_month and exp_year."),
    ("Product.list", "products", ProductList, "/v1/products", None, "List products (GET /v1/products)."),
    ("Price.list", "prices", PriceList, "/v1/prices", ((_filters(PriceList, "lookup_keys")), _price_keep),
     "List prices (GET /v1/prices): unit_amount in cents, type one_time or recurring, recurring.interval, active "
     "(archived prices stay on old subscriptions but cannot be added), nickname and lookup_key."),
    ("Subscription.list", "subscriptions", SubscriptionList, "/v1/subscriptions",
     (("customer",), _sub_keep),
     "List subscriptions (GET /v1/subscriptions); by default every status but canceled (status='all' for "
     "every one)."),
    ("Invoice.list", "invoices", InvoiceList, "/v1/invoices", None,
     "List invoices (GET /v1/invoices), newest first; filter by customer, subscription, status or "
     "collection_method."),
    ("InvoiceItem.list", "invoiceitems", InvoiceItemList, "/v1/invoiceitems",
     (("customer",), _pending_keep),
     "List invoice items (GET /v1/invoiceitems): prorations and one-off items; pending=true for those not yet "
     "invoiced."),
    ("PaymentIntent.list", "payment_intents", ByCustomer, "/v1/payment_intents", None,
     "List payment intents (GET /v1/payment_intents), newest first."),
    ("Charge.list", "charges", ChargeList, "/v1/charges", None,
     "List charges (GET /v1/charges), newest first: amount, amount_refunded, status (succeeded or failed), "
     "outcome.decline_code, disputed, invoice, description."),
    ("Refund.list", "refunds", RefundList, "/v1/refunds", None, "List refunds (GET /v1/refunds), newest first."),
    ("Dispute.list", "disputes", DisputeList, "/v1/disputes", None,
     "List disputes (GET /v1/disputes): status, reason, amount, evidence_details.due_by (Unix seconds)."),
    ("Coupon.list", "coupons", ListArgs, "/v1/coupons", None,
     "List coupons (GET /v1/coupons): percent_off or amount_off, duration, redeem_by, max_redemptions, "
     "times_redeemed and valid."),
    ("PromotionCode.list", "promotion_codes", PromotionCodeList, "/v1/promotion_codes",
     (_filters(PromotionCodeList, "code"), _promo_keep),
     "List promotion codes (GET /v1/promotion_codes): the customer-facing code of a coupon, active, expires_at, "
     "max_redemptions and times_redeemed."),
    ("BalanceTransaction.list", "balance_transactions", BalanceTransactionList, "/v1/balance_transactions", None,
     "List balance transactions (GET /v1/balance_transactions): amount, fee and net in cents, type and source; "
     "payout=po_... gives the ones a payout paid out."),
    ("Payout.list", "payouts", PayoutList, "/v1/payouts", None,
     "List payouts to the bank account (GET /v1/payouts), newest first."),
    ("Event.list", "events", EventList, "/v1/events", ((), _event_keep),
     "List events (GET /v1/events), newest first: what happened on the account, e.g. charge.refunded."),
]
GETS = [
    ("Customer.retrieve", "customers", "customer", "Retrieve a customer (GET /v1/customers/{id})."),
    ("Subscription.retrieve", "subscriptions", "subscription",
     "Retrieve a subscription (GET /v1/subscriptions/{id}) with its items and prices."),
    ("Invoice.retrieve", "invoices", "invoice", "Retrieve an invoice (GET /v1/invoices/{id}) with its lines."),
    ("PaymentIntent.retrieve", "payment_intents", "payment_intent",
     "Retrieve a payment intent (GET /v1/payment_intents/{id})."),
    ("Charge.retrieve", "charges", "charge", "Retrieve a charge (GET /v1/charges/{id})."),
    ("Refund.retrieve", "refunds", "refund", "Retrieve a refund (GET /v1/refunds/{id})."),
    ("Dispute.retrieve", "disputes", "dispute", "Retrieve a dispute (GET /v1/disputes/{id}) with its evidence."),
    ("Payout.retrieve", "payouts", "payout", "Retrieve a payout (GET /v1/payouts/{id})."),
]

TOOLS = [_lister(*row[:4], row[5], keep=row[4]) for row in LISTS[:1]] + [customer_search] + [
    _lister(*row[:4], row[5], keep=row[4]) for row in LISTS[1:]] + [_getter(*row) for row in GETS]
