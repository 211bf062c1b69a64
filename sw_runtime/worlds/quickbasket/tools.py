"""Quickbasket's tools: what the agent can do in the shop's app.

Every amount is integer cents. Read tools answer copies of records; write
tools check everything first and raise ``Refused`` before their first write,
so a refused call leaves the state as it was.

The tools enforce what the shop enforces (stock, slot capacity, order
status, promo rules, the refund window, age checks at checkout). What only
the policy forbids (substituting without following the rule, refunding a
change of mind, putting wine in an unverified account's cart) the tools
allow: that is what the tasks test.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..tool import Refused, tool
from . import rules
from .state import ACCOUNT_ID, shift

ProductId = Annotated[str, Meta(description="A product id, e.g. p-0123 (from search_products).")]
OrderId = Annotated[str, Meta(description="An order id, e.g. ord-2417 (from list_orders).")]
SlotId = Annotated[str, Meta(description="A delivery slot id, e.g. sl-0514-18 (from list_delivery_slots).")]
Quantity = Annotated[int, Meta(ge=1, le=20, description="How many units (packs, bags, bottles...), 1 to 20.")]
Text = Annotated[str, Meta(max_length=200)]


class SearchArgs(msgspec.Struct, forbid_unknown_fields=True):
    query: Annotated[str | None, Meta(description="Words the product's name, brand or kind must all contain "
                                                  "(case-insensitive), e.g. 'organic milk'. Omit for all.")] = None
    category: Annotated[str | None, Meta(description="Only this category (see list_categories).")] = None
    tag: Annotated[Literal["organic", "gluten-free", "lactose-free", "vegan"] | None,
                   Meta(description="Only products with this dietary tag.")] = None
    in_stock_only: Annotated[bool, Meta(description="Leave out products with stock 0.")] = False
    limit: Annotated[int, Meta(ge=1, le=200, description="At most this many (default 50).")] = 50


class ProductRef(msgspec.Struct, forbid_unknown_fields=True):
    product_id: ProductId


class AddArgs(msgspec.Struct, forbid_unknown_fields=True):
    product_id: ProductId
    quantity: Quantity = 1


class SetQuantityArgs(msgspec.Struct, forbid_unknown_fields=True):
    product_id: ProductId
    quantity: Annotated[int, Meta(ge=0, le=20, description="The new quantity; 0 removes the line.")]


class AddressArgs(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    label: Annotated[str, Meta(min_length=1, max_length=40, description="A short name, e.g. Office.")]
    line1: Annotated[str, Meta(min_length=3, max_length=100, description="Street and number.")]
    line2: Annotated[str, Meta(max_length=100, description="Suite, unit, floor (optional).")] = ""
    city: Annotated[str, Meta(min_length=2, max_length=60, description="City, e.g. San Francisco.")]
    state: Annotated[str, Meta(pattern=r"^[A-Z]{2}$", description="Two-letter state, e.g. CA.")]
    postcode: Annotated[str, Meta(pattern=r"^\d{5}$", description="Five-digit ZIP code.")]
    recipient: Annotated[Annotated[str, Meta(max_length=80)] | None,
                         Meta(description="Who receives it; default the account holder.")] = None
    instructions: Annotated[str, Meta(max_length=200, description="For the driver (optional).")] = ""


class SlotsArgs(msgspec.Struct, forbid_unknown_fields=True):
    date: Annotated[Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$")] | None,
                    Meta(description="Only slots on this date, YYYY-MM-DD. Omit for all.")] = None


class PromoArgs(msgspec.Struct, forbid_unknown_fields=True):
    code: Annotated[str, Meta(min_length=1, max_length=40, description="The promo code, e.g. SPRING10.")]
    slot_id: Annotated[str | None, Meta(description="With a slot, the answer also gives the order total.")] = None


class CheckoutArgs(msgspec.Struct, forbid_unknown_fields=True):
    address_id: Annotated[str, Meta(description="Where to deliver, e.g. ad-01 (from list_addresses).")]
    slot_id: SlotId
    promo_code: Annotated[str | None, Meta(description="At most one promo code; omit for none.")] = None


class OrdersArgs(msgspec.Struct, forbid_unknown_fields=True):
    status: Annotated[Literal["placed", "out_for_delivery", "delivered", "cancelled"] | None,
                      Meta(description="Only orders with this status.")] = None


class OrderRef(msgspec.Struct, forbid_unknown_fields=True):
    order_id: OrderId


class RescheduleArgs(msgspec.Struct, forbid_unknown_fields=True):
    order_id: OrderId
    slot_id: SlotId


class SubstituteArgs(msgspec.Struct, forbid_unknown_fields=True):
    order_id: OrderId
    product_id: Annotated[str, Meta(description="The flagged line's product id.")]
    substitute_id: Annotated[str | None, Meta(description="The product to deliver instead, or null to drop the "
                                                          "line and not be charged for it.")]


class RefundsArgs(msgspec.Struct, forbid_unknown_fields=True):
    order_id: Annotated[str | None, Meta(description="Only refunds of this order.")] = None


class RefundItem(msgspec.Struct, forbid_unknown_fields=True):
    """One product of the order to refund, and how many."""

    product_id: Annotated[str, Meta(description="A product of the order (for a substituted line, the original's "
                                                "or the substitute's id).")]
    quantity: Quantity


class RefundArgs(msgspec.Struct, forbid_unknown_fields=True):
    order_id: OrderId
    items: Annotated[list[RefundItem], Meta(min_length=1, max_length=30, description="What to refund.")]
    reason: Annotated[Literal["damaged", "missing", "expired", "wrong_item", "quality", "changed_mind"],
                      Meta(description="Why: damaged, missing, expired, wrong_item, quality or changed_mind.")]
    note: Annotated[str, Meta(max_length=500, description="Anything the support team should know.")] = ""


# -- helpers ----------------------------------------------------------------------------------------------------


def _product(ctx, pid: str) -> dict:
    p = ctx.store.get("products", pid)
    if p is None:
        raise Refused("not_found", f"No product has the id {pid!r}. Find ids with search_products.")
    return p


def _order(ctx, oid: str) -> dict:
    o = ctx.store.get("orders", oid)
    if o is None:
        raise Refused("not_found", f"No order has the id {oid!r}. Call list_orders to see your orders.")
    return o


def _slot(ctx, sid: str) -> dict:
    s = ctx.store.get("slots", sid)
    if s is None:
        raise Refused("not_found", f"No delivery slot has the id {sid!r}. Call list_delivery_slots.")
    return s


def _view(p: dict) -> dict:
    return {**p, "in_stock": p["stock"] > 0}


def _cart_lines(ctx) -> list:
    return [ln for _, ln in ctx.store.scan("cart")]


def _has_orders(ctx) -> bool:
    return any(o["status"] != "cancelled" for _, o in ctx.store.scan("orders"))


def _promo(ctx, code: str) -> dict:
    p = ctx.store.get("promos", code.strip().upper())
    if p is None:
        raise Refused("promo_invalid", f"{code!r} is not a promo code of this shop. list_promotions shows them.")
    return p


def _placed(o: dict, what: str) -> None:
    if o["status"] != "placed":
        raise Refused("not_changeable", f"Order {o['id']} is {o['status'].replace('_', ' ')}; only a placed order "
                                        f"(not yet packed) can be {what}.")


def _slot_view(s: dict) -> dict:
    return {**s, "available": s["remaining"] > 0}


def _take_slot(ctx, s: dict) -> None:
    if s["remaining"] <= 0:
        raise Refused("slot_full", f"The slot {s['id']} ({s['weekday']} {s['date']} {s['start']}-{s['end']}) is "
                                   "full. Pick another one from list_delivery_slots.")


def _move_capacity(ctx, sid: str, delta: int) -> None:
    s = ctx.store.get("slots", sid)
    if s is not None:
        ctx.store.update("slots", sid, {"remaining": s["remaining"] + delta})


def _summary(o: dict) -> dict:
    return {k: o[k] for k in ("id", "status", "placed_at", "slot", "item_count", "total", "promo_code",
                              "delivered_at")}


# -- catalog and cart ---------------------------------------------------------------------------------------------


@tool(writes=False, pure=True, reads=("account",))
def get_account(ctx, args):
    """The account: name, email, phone, age_verified (whether the customer's age is verified, needed to buy beer
    and wine), payment_method, default_address_id."""
    return ctx.store.get("account", ACCOUNT_ID)


@tool(writes=False, pure=True, reads=("products",))
def list_categories(ctx, args):
    """The catalog's categories, each with how many products it has."""
    counts: dict = {}
    for _, p in ctx.store.scan("products"):
        counts[p["category"]] = counts.get(p["category"], 0) + 1
    return {"categories": [{"name": k, "products": counts[k]} for k in sorted(counts)]}


@tool(writes=False, params=SearchArgs, pure=True, reads=("products",))
def search_products(ctx, args):
    """Search the catalog: id, name, brand, kind (e.g. whole milk), size (e.g. 1 gal), category, price in integer
    cents, stock (units available now; 0 means out of stock), in_stock, tags (organic, gluten-free, lactose-free,
    vegan) and age_restricted (beer and wine). Sorted by name and size."""
    words = (args.query or "").casefold().split()
    found = []
    for _, p in ctx.store.scan("products"):
        text = f"{p['name']} {p['brand']} {p['kind']} {p['size']}".casefold()
        if not all(w in text for w in words):
            continue
        if args.category is not None and p["category"] != args.category.strip().lower():
            continue
        if args.tag is not None and args.tag not in p["tags"]:
            continue
        if args.in_stock_only and p["stock"] <= 0:
            continue
        found.append(_view(p))
    found.sort(key=lambda p: (p["name"], p["size"], p["id"]))
    return {"products": found[:args.limit], "total": len(found)}


@tool(writes=False, params=ProductRef, pure=True, reads=("products",))
def get_product(ctx, args):
    """One product, with its price in integer cents and its stock now."""
    return _view(_product(ctx, args.product_id))


@tool(writes=False, pure=True, reads=("cart", "products"))
def view_cart(ctx, args):
    """The cart: lines (product_id, name, size, category, unit_price and line_total in integer cents, quantity,
    stock_now), subtotal and item_count. Promo codes are applied at checkout."""
    lines = []
    for ln in _cart_lines(ctx):
        p = ctx.store.get("products", ln["product_id"])
        lines.append({**ln, "line_total": ln["unit_price"] * ln["quantity"], "stock_now": p["stock"] if p else 0})
    return {"lines": lines, "subtotal": sum(x["line_total"] for x in lines),
            "item_count": sum(x["quantity"] for x in lines)}


@tool(writes=True, params=AddArgs)
def add_to_cart(ctx, args):
    """Add a product to the cart (or add to its quantity if it is there already). Refused with not_found,
    out_of_stock (stock 0) or not_enough_stock. Answers the cart line."""
    p = _product(ctx, args.product_id)
    line = ctx.store.get("cart", p["id"])
    want = args.quantity + (line["quantity"] if line else 0)
    if p["stock"] <= 0:
        raise Refused("out_of_stock", f"{rules.label(p)} is out of stock. Nothing was added.")
    if p["stock"] < want:
        raise Refused("not_enough_stock", f"Only {p['stock']} of {rules.label(p)} can be ordered now; the cart would "
                                          f"hold {want}. Nothing was added.")
    if line is not None:
        return ctx.store.update("cart", p["id"], {"quantity": want})
    line = {"product_id": p["id"], "name": p["name"], "size": p["size"], "category": p["category"],
            "unit_price": p["price"], "quantity": want, "added_at": ctx.at}
    ctx.store.insert("cart", p["id"], line)
    return line


@tool(writes=True, params=SetQuantityArgs)
def update_cart_item(ctx, args):
    """Set the quantity of a product already in the cart; 0 removes it. Refused with not_in_cart or
    not_enough_stock."""
    line = ctx.store.get("cart", args.product_id)
    if line is None:
        raise Refused("not_in_cart", f"{args.product_id} is not in the cart. view_cart shows what is.")
    if args.quantity == 0:
        ctx.store.remove("cart", args.product_id)
        return {"removed": args.product_id}
    p = _product(ctx, args.product_id)
    if args.quantity > line["quantity"] and p["stock"] < args.quantity:
        raise Refused("not_enough_stock", f"Only {p['stock']} of {rules.label(p)} can be ordered now.")
    return ctx.store.update("cart", args.product_id, {"quantity": args.quantity})


@tool(writes=True, params=ProductRef)
def remove_from_cart(ctx, args):
    """Remove a product from the cart. Refused with not_in_cart."""
    if ctx.store.get("cart", args.product_id) is None:
        raise Refused("not_in_cart", f"{args.product_id} is not in the cart. view_cart shows what is.")
    ctx.store.remove("cart", args.product_id)
    return {"removed": args.product_id}


@tool(writes=False, pure=True, reads=("lists", "products"))
def list_shopping_lists(ctx, args):
    """The customer's saved shopping lists: id, name and items (product_id, quantity, with the product's name,
    size, price in integer cents and stock now). A list is not the cart: add its items with add_to_cart."""
    out = []
    for _, ls in ctx.store.scan("lists"):
        items = []
        for it in ls["items"]:
            p = ctx.store.get("products", it["product_id"]) or {}
            items.append({**it, "name": p.get("name"), "size": p.get("size"), "price": p.get("price"),
                          "stock": p.get("stock", 0)})
        out.append({"id": ls["id"], "name": ls["name"], "items": items})
    return {"lists": out}


# -- addresses, slots, promos, checkout ----------------------------------------------------------------------------


@tool(writes=False, pure=True, reads=("addresses",))
def list_addresses(ctx, args):
    """Saved delivery addresses: id, label, recipient, line1, line2, city, state, postcode, instructions,
    is_default."""
    return {"addresses": [a for _, a in ctx.store.scan("addresses")]}


@tool(writes=True, params=AddressArgs)
def add_address(ctx, args):
    """Save a new delivery address exactly as the customer gave it. Refused with already_exists if an address with
    that label exists. Answers the address with its id."""
    label = args.label.strip()
    for _, a in ctx.store.scan("addresses"):
        if a["label"].casefold() == label.casefold():
            raise Refused("already_exists", f"An address is already labelled {a['label']!r} ({a['id']}).")
    account = ctx.store.get("account", ACCOUNT_ID)
    a = {"id": ctx.new_id("addresses", "ad"), "label": label,
         "recipient": (args.recipient or account["name"]).strip(), "line1": args.line1.strip(),
         "line2": args.line2.strip(), "city": args.city.strip(), "state": args.state, "postcode": args.postcode,
         "instructions": args.instructions.strip(), "is_default": False}
    ctx.store.insert("addresses", a["id"], a)
    return a


@tool(writes=False, params=SlotsArgs, pure=True, reads=("slots",))
def list_delivery_slots(ctx, args):
    """Delivery slots from tomorrow on, in the shop's local time: id, date, weekday, start, end, fee in integer
    cents, remaining (orders it can still take) and available. A slot with remaining 0 is full."""
    found = [_slot_view(s) for _, s in ctx.store.scan("slots") if args.date is None or s["date"] == args.date]
    found.sort(key=lambda s: (s["date"], s["start"]))
    return {"slots": found}


@tool(writes=False, pure=True, reads=("promos",))
def list_promotions(ctx, args):
    """The shop's promo codes and their rules: code, description, kind (percent: value % off; amount: value cents
    off; free_delivery: no delivery fee), value, min_subtotal (cents of eligible items needed), category (only
    those items count, or null), first_order_only, starts, expires. One code per order."""
    return {"promotions": [p for _, p in ctx.store.scan("promos")], "today": rules.TODAY}


@tool(writes=False, params=PromoArgs, pure=True, reads=("promos", "cart", "orders", "slots"))
def check_promo(ctx, args):
    """Whether a promo code applies to the cart as it is now, and what it takes off; with slot_id, also the
    order's subtotal, discount, delivery_fee and total in integer cents. Changes nothing."""
    p = _promo(ctx, args.code)
    lines = _cart_lines(ctx)
    problem = rules.promo_problem(p, lines, _has_orders(ctx))
    out = {"code": p["code"], "applies": problem is None, "reason": problem,
           "discount": rules.discount(p, lines) if problem is None else 0}
    if args.slot_id is not None:
        out["order"] = rules.totals(lines, p if problem is None else None, _slot(ctx, args.slot_id)["fee"])
    return out


@tool(writes=True, params=CheckoutArgs)
def checkout(ctx, args):
    """Place an order with everything in the cart, delivered to a saved address in a delivery slot, with at most
    one promo code. The payment method on file is charged subtotal - discount + delivery_fee (integer cents).
    Refused with cart_empty, not_found, slot_full, out_of_stock, age_verification_required or promo_invalid; a
    refused checkout changes nothing. Answers the new order; the cart is emptied."""
    lines = _cart_lines(ctx)
    if not lines:
        raise Refused("cart_empty", "The cart is empty: add products first.")
    address = ctx.store.get("addresses", args.address_id)
    if address is None:
        raise Refused("not_found", f"No saved address has the id {args.address_id!r}. list_addresses shows them; "
                                   "add_address saves a new one.")
    slot = _slot(ctx, args.slot_id)
    _take_slot(ctx, slot)
    account = ctx.store.get("account", ACCOUNT_ID)
    order_lines = []
    for ln in lines:
        p = _product(ctx, ln["product_id"])
        if p["stock"] < ln["quantity"]:
            raise Refused("out_of_stock", f"{rules.label(p)}: {ln['quantity']} in the cart, {p['stock']} in stock. "
                                          "Change the cart first.")
        if p["age_restricted"] and not account["age_verified"]:
            raise Refused("age_verification_required", f"{rules.label(p)} is age-restricted and this account's age "
                                                       "is not verified.")
        order_lines.append({"product_id": p["id"], "name": p["name"], "size": p["size"], "quantity": ln["quantity"],
                            "unit_price": ln["unit_price"], "line_total": ln["unit_price"] * ln["quantity"],
                            "status": "ok", "substitute": None})
    promo = None
    if args.promo_code is not None:
        promo = _promo(ctx, args.promo_code)
        problem = rules.promo_problem(promo, lines, _has_orders(ctx))
        if problem is not None:
            raise Refused("promo_invalid", f"{problem}. Nothing was ordered.")
    money = rules.totals(lines, promo, slot["fee"])
    order = {
        "id": ctx.new_id("orders", "ord"), "status": "placed", "placed_at": ctx.at,
        "slot": {k: slot[k] for k in ("id", "date", "weekday", "start", "end")},
        "address": {k: address[k] for k in ("id", "label", "recipient", "line1", "line2", "city", "state",
                                            "postcode")},
        "lines": order_lines, **money, "promo_code": promo["code"] if promo else None,
        "item_count": sum(ln["quantity"] for ln in order_lines), "delivered_at": None, "cancelled_at": None,
    }
    ctx.store.insert("orders", order["id"], order)
    _move_capacity(ctx, slot["id"], -1)
    for ln in lines:
        ctx.store.remove("cart", ln["product_id"])
    return order


# -- orders ---------------------------------------------------------------------------------------------------------


@tool(writes=False, params=OrdersArgs, pure=True, reads=("orders",))
def list_orders(ctx, args):
    """The customer's orders, newest first: id, status (placed: not packed yet; out_for_delivery; delivered;
    cancelled), placed_at (UTC), slot (date, weekday, start, end in local time), item_count, total in integer
    cents, promo_code, delivered_at. get_order gives the lines."""
    found = [_summary(o) for _, o in ctx.store.scan("orders") if args.status is None or o["status"] == args.status]
    found.sort(key=lambda o: (o["placed_at"], o["id"]), reverse=True)
    return {"orders": found}


@tool(writes=False, params=OrderRef, pure=True, reads=("orders",))
def get_order(ctx, args):
    """One order in full: lines (product_id, name, size, quantity, unit_price, line_total, status: ok,
    out_of_stock (flagged by the shop, waiting for a decision), substituted (with the substitute delivered) or
    removed), subtotal, discount, delivery_fee, total (integer cents), slot, address."""
    return _order(ctx, args.order_id)


@tool(writes=True, params=OrderRef)
def cancel_order(ctx, args):
    """Cancel a placed order (not yet packed); nothing is charged and its slot is freed. Orders out for delivery or
    delivered cannot be cancelled. Refused with not_found or not_changeable."""
    o = _order(ctx, args.order_id)
    _placed(o, "cancelled")
    o = ctx.store.update("orders", o["id"], {"status": "cancelled", "cancelled_at": ctx.at})
    _move_capacity(ctx, o["slot"]["id"], 1)
    return o


@tool(writes=True, params=RescheduleArgs)
def reschedule_order(ctx, args):
    """Move a placed order to another delivery slot; the new slot's fee replaces the old one (free-delivery codes
    stay free). Refused with not_found, not_changeable or slot_full. Answers the order."""
    o = _order(ctx, args.order_id)
    _placed(o, "rescheduled")
    slot = _slot(ctx, args.slot_id)
    if slot["id"] == o["slot"]["id"]:
        raise Refused("same_slot", f"Order {o['id']} is already in {slot['id']}.")
    _take_slot(ctx, slot)
    old = o["slot"]["id"]
    free = o["promo_code"] is not None and ctx.store.get("promos", o["promo_code"])["kind"] == "free_delivery"
    money = rules.order_totals(o, o["lines"], 0 if free else slot["fee"])
    o = ctx.store.update("orders", o["id"], {"slot": {k: slot[k] for k in ("id", "date", "weekday", "start", "end")},
                                            **money})
    _move_capacity(ctx, old, 1)
    _move_capacity(ctx, slot["id"], -1)
    return o


@tool(writes=True, params=SubstituteArgs)
def choose_substitute(ctx, args):
    """Decide a line the shop flagged out_of_stock on a placed order: substitute_id delivers that product instead
    (same quantity, charged at its own price), null drops the line. The app accepts any product in stock; the
    policy says which one to pick. Refused with not_found, not_changeable, not_flagged or out_of_stock."""
    o = _order(ctx, args.order_id)
    _placed(o, "changed")
    idx = next((i for i, ln in enumerate(o["lines"]) if ln["product_id"] == args.product_id), None)
    if idx is None:
        raise Refused("not_found", f"Order {o['id']} has no line for {args.product_id}.")
    line = o["lines"][idx]
    if line["status"] != "out_of_stock":
        raise Refused("not_flagged", f"The line {args.product_id} of order {o['id']} is {line['status']}; only "
                                     "lines flagged out_of_stock wait for a decision.")
    if args.substitute_id is None:
        new = rules.removed(line)
    else:
        p = _product(ctx, args.substitute_id)
        if p["stock"] < line["quantity"]:
            raise Refused("out_of_stock", f"{rules.label(p)} has {p['stock']} in stock; the line needs "
                                          f"{line['quantity']}.")
        if p["age_restricted"] and not ctx.store.get("account", ACCOUNT_ID)["age_verified"]:
            raise Refused("age_verification_required", f"{rules.label(p)} is age-restricted.")
        new = rules.substituted(line, p)
    lines = list(o["lines"])
    lines[idx] = new
    return ctx.store.update("orders", o["id"], rules.order_totals(o, lines, o["delivery_fee"]))


@tool(writes=False, params=RefundsArgs, pure=True, reads=("refunds",))
def list_refunds(ctx, args):
    """Refunds so far, oldest first: id, order_id, items (product_id, quantity, amount in integer cents), reason,
    amount, status, created_at."""
    where = None if args.order_id is None else {"order_id": args.order_id}
    return {"refunds": ctx.store.select_json("refunds", where, order_by=("created_at", "id"))}


@tool(writes=True, params=RefundArgs)
def request_refund(ctx, args):
    """Refund items of a delivered order to the payment method, within 14 days of delivery: each item at the price
    charged for it (a substitute's own price), up to the quantity delivered minus what was refunded before.
    Approved at once. Refused with not_found, not_delivered, refund_window_closed or too_many."""
    o = _order(ctx, args.order_id)
    if o["status"] != "delivered":
        raise Refused("not_delivered", f"Order {o['id']} is {o['status'].replace('_', ' ')}; only delivered orders "
                                       "can be refunded.")
    if shift(o["delivered_at"][:10], rules.REFUND_DAYS) < rules.TODAY:
        raise Refused("refund_window_closed", f"Order {o['id']} was delivered on {o['delivered_at'][:10]}, more "
                                              f"than {rules.REFUND_DAYS} days ago.")
    done: dict = {}
    for _, r in ctx.store.scan("refunds"):
        if r["order_id"] == o["id"]:
            for it in r["items"]:
                done[it["product_id"]] = done.get(it["product_id"], 0) + it["quantity"]
    items, seen = [], set()
    for want in args.items:
        line = next((ln for ln in o["lines"] if ln["status"] in ("ok", "substituted") and want.product_id in (
            ln["product_id"], (ln["substitute"] or {}).get("product_id"))), None)
        if line is None:
            raise Refused("not_found", f"Order {o['id']} delivered nothing with the id {want.product_id}.")
        pid = line["product_id"]
        if pid in seen:
            raise Refused("invalid_arguments", f"{pid} is listed twice; give each product once.")
        seen.add(pid)
        price = line["substitute"]["unit_price"] if line["status"] == "substituted" else line["unit_price"]
        left = line["quantity"] - done.get(pid, 0)
        if want.quantity > left:
            raise Refused("too_many", f"Only {left} of {line['name']} can still be refunded on order {o['id']}.")
        items.append({"product_id": pid, "quantity": want.quantity, "amount": price * want.quantity})
    refund = {"id": ctx.new_id("refunds", "rf"), "order_id": o["id"], "items": items, "reason": args.reason,
              "note": args.note, "amount": sum(i["amount"] for i in items), "status": "approved",
              "created_at": ctx.at}
    ctx.store.insert("refunds", refund["id"], refund)
    return refund


TOOLS = [
    get_account, list_categories, search_products, get_product, view_cart, add_to_cart, update_cart_item,
    remove_from_cart, list_shopping_lists, list_addresses, add_address, list_delivery_slots, list_promotions,
    check_promo, checkout, list_orders, get_order, cancel_order, reschedule_order, choose_substitute, list_refunds,
    request_refund,
]
