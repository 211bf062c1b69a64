"""Quickbasket's state schema: its records as types, for custom seeds.

The generator produces exactly these records and the tools rely on them.
Money is integer cents; times are UTC ``YYYY-MM-DDTHH:MM:SS.mmmZ``; slot
dates and times are the shop's local ``YYYY-MM-DD`` and ``HH:MM``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path
from .catalog import CATEGORIES, TAGS
from .state import ACCOUNT_ID

Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")]
Day = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$")]
Clock = Annotated[str, Meta(pattern=r"^\d\d:\d\d$")]
Cents = Annotated[int, Meta(ge=0, le=100_000_000)]
Count = Annotated[int, Meta(ge=0, le=100_000)]
Category = Literal[CATEGORIES]  # type: ignore[valid-type]
Tag = Literal[TAGS]  # type: ignore[valid-type]


class Account(Record):
    id: str
    name: str
    email: str
    phone: str
    member_since: Day
    age_verified: bool
    payment_method: str
    default_address_id: str


class Address(Record):
    id: str
    label: str
    recipient: str
    line1: str
    line2: str
    city: str
    state: Annotated[str, Meta(pattern=r"^[A-Z]{2}$")]
    postcode: Annotated[str, Meta(pattern=r"^\d{5}$")]
    instructions: str
    is_default: bool


class Product(Record):
    id: str
    kind: str
    category: Category
    size: str
    brand: str
    name: str
    tags: list[Tag]
    price: Annotated[int, Meta(gt=0, le=100_000_000)]
    stock: Count
    age_restricted: bool


class CartLine(Record):
    product_id: str
    name: str
    size: str
    category: Category
    unit_price: Cents
    quantity: Annotated[int, Meta(ge=1, le=100)]
    added_at: Time


class ListItem(Record):
    product_id: str
    quantity: Annotated[int, Meta(ge=1, le=100)]


class ShoppingList(Record):
    id: str
    name: str
    items: list[ListItem]


class Substitute(Record):
    product_id: str
    name: str
    size: str
    unit_price: Cents
    line_total: Cents


class OrderLine(Record):
    product_id: str
    name: str
    size: str
    quantity: Annotated[int, Meta(ge=1, le=100)]
    unit_price: Cents
    line_total: Cents
    status: Literal["ok", "out_of_stock", "substituted", "removed"]
    substitute: Substitute | None


class SlotRef(Record):
    id: str
    date: Day
    weekday: str
    start: Clock
    end: Clock


class AddressRef(Record):
    id: str
    label: str
    recipient: str
    line1: str
    line2: str
    city: str
    state: str
    postcode: str


class Order(Record):
    id: str
    status: Literal["placed", "out_for_delivery", "delivered", "cancelled"]
    placed_at: Time
    slot: SlotRef
    address: AddressRef
    lines: list[OrderLine]
    subtotal: Cents
    discount: Cents
    promo_code: str | None
    delivery_fee: Cents
    total: Cents
    item_count: Count
    delivered_at: Time | None
    cancelled_at: Time | None


class Slot(Record):
    id: str
    date: Day
    weekday: str
    start: Clock
    end: Clock
    fee: Cents
    remaining: Count


class Promo(Record):
    code: str
    description: str
    kind: Literal["percent", "amount", "free_delivery"]
    value: Annotated[int, Meta(ge=0, le=10_000_000)]
    min_subtotal: Cents
    category: Category | None
    first_order_only: bool
    starts: Day
    expires: Day
    active: bool


class RefundItem(Record):
    product_id: str
    quantity: Annotated[int, Meta(ge=1, le=100)]
    amount: Cents


class Refund(Record):
    id: str
    order_id: str
    items: list[RefundItem]
    reason: Literal["damaged", "missing", "expired", "wrong_item", "quality", "changed_mind"]
    note: str
    amount: Cents
    status: Literal["approved", "pending", "rejected"]
    created_at: Time


def rules(state: dict):
    """What the tools rely on beyond each record's type."""
    if ACCOUNT_ID not in state.get("account", {}):
        yield Issue(record_path("account", ACCOUNT_ID), f"the account record {ACCOUNT_ID!r} is missing")
    products = state.get("products", {})
    for rid, line in state.get("cart", {}).items():
        if line["product_id"] != rid:
            yield Issue(f"{record_path('cart', rid)}.product_id", "a cart line's key is its product id")
        if rid not in products:
            yield Issue(record_path("cart", rid), f"no product {rid!r}")
    for rid, promo in state.get("promos", {}).items():
        if promo["code"] != rid:
            yield Issue(f"{record_path('promos', rid)}.code", "a promo's key is its code")
    for rid, ls in state.get("lists", {}).items():
        for i, it in enumerate(ls["items"]):
            if it["product_id"] not in products:
                yield Issue(f"{record_path('lists', rid)}.items[{i}]", f"no product {it['product_id']!r}")


SCHEMA = StateSchema(
    records={
        "account": Account,
        "addresses": Address,
        "products": Product,
        "cart": CartLine,
        "lists": ShoppingList,
        "orders": Order,
        "slots": Slot,
        "promos": Promo,
        "refunds": Refund,
    },
    required=("account", "products", "slots", "promos"),
    rules=rules,
)
