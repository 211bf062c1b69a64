"""The shop's rules, in one place: money, substitutes, promo codes, totals.

The tools apply them, the generator plants states around them, and the tasks'
reference solutions are computed with them, so the three cannot drift apart.
Money is always integer cents.
"""

from __future__ import annotations

from ..money import dollars, dollars_bare  # noqa: F401  (the shop writes money so)

TODAY = "2026-05-12"  # Tuesday, in the shop's time zone (America/Los_Angeles)
REFUND_DAYS = 14  # refunds are possible this many days after delivery
SUBSTITUTE_MARKUP = 10  # percent: a substitute may cost at most this much more


def label(p: dict) -> str:
    """``Clover Hill Organic Whole Milk (1 gal)``."""
    return f"{p['name']} ({p['size']})"


# -- substitutes ---------------------------------------------------------------------------------------------------


def may_substitute(original: dict, candidate: dict, quantity: int) -> bool:
    """The policy's test for replacing ``original`` by ``candidate``: same kind
    and size, every dietary tag of the original, in stock for the quantity, at
    most 10% dearer, and not age-restricted."""
    return (
        candidate["id"] != original["id"]
        and candidate["kind"] == original["kind"]
        and candidate["size"] == original["size"]
        and set(original["tags"]) <= set(candidate["tags"])
        and candidate["stock"] >= quantity
        and candidate["price"] * 100 <= original["price"] * (100 + SUBSTITUTE_MARKUP)
        and not candidate["age_restricted"]
    )


def substitute_for(products, original: dict, quantity: int = 1):
    """The product the policy picks for an out-of-stock ``original``: among
    the allowed ones the cheapest, then the same brand, then the lowest id;
    None when none is allowed."""
    allowed = [p for p in products if may_substitute(original, p, quantity)]
    if not allowed:
        return None
    return min(allowed, key=lambda p: (p["price"], p["brand"] != original["brand"], p["id"]))


# -- promo codes ---------------------------------------------------------------------------------------------------


def eligible_subtotal(promo: dict, lines: list) -> int:
    """The part of the cart a promo counts: every line, or its category's."""
    return sum(ln["unit_price"] * ln["quantity"] for ln in lines
               if promo["category"] is None or ln["category"] == promo["category"])


def promo_problem(promo: dict, lines: list, has_orders: bool, today: str = TODAY) -> str | None:
    """Why ``promo`` does not apply to a cart (``None`` when it does)."""
    if not promo["active"] or today < promo["starts"]:
        return f"{promo['code']} is not active"
    if today > promo["expires"]:
        return f"{promo['code']} expired on {promo['expires']}"
    if promo["first_order_only"] and has_orders:
        return f"{promo['code']} is for a first order only, and this account has ordered before"
    base = eligible_subtotal(promo, lines)
    if base < promo["min_subtotal"]:
        where = f"{promo['category']} items" if promo["category"] else "the items"
        return f"{promo['code']} needs {dollars(promo['min_subtotal'])} of {where}; the cart has {dollars(base)}"
    return None


def discount(promo: dict | None, lines: list) -> int:
    """Cents off the items (a free-delivery code takes the fee instead)."""
    if promo is None or promo["kind"] == "free_delivery":
        return 0
    base = eligible_subtotal(promo, lines)
    if promo["kind"] == "percent":
        return base * promo["value"] // 100
    return min(promo["value"], base)


def totals(lines: list, promo: dict | None, slot_fee: int) -> dict:
    """``subtotal, discount, delivery_fee, total`` of a cart checked out with
    ``promo`` into a slot costing ``slot_fee``."""
    subtotal = sum(ln["unit_price"] * ln["quantity"] for ln in lines)
    off = discount(promo, lines)
    fee = 0 if promo is not None and promo["kind"] == "free_delivery" else slot_fee
    return {"subtotal": subtotal, "discount": off, "delivery_fee": fee, "total": subtotal - off + fee}


# -- orders ----------------------------------------------------------------------------------------------------------


def line_charge(line: dict) -> int:
    """What a line of an order costs now."""
    if line["status"] == "removed":
        return 0
    if line["status"] == "substituted":
        return line["substitute"]["line_total"]
    return line["line_total"]


def order_totals(order: dict, lines: list, delivery_fee: int) -> dict:
    """An order's money after a change to its lines or its slot (the promo
    discount it was placed with is kept, capped at the new subtotal)."""
    subtotal = sum(line_charge(ln) for ln in lines)
    off = min(order["discount"], subtotal)
    return {"lines": lines, "subtotal": subtotal, "discount": off, "delivery_fee": delivery_fee,
            "total": subtotal - off + delivery_fee,
            "item_count": sum(ln["quantity"] for ln in lines if ln["status"] != "removed")}


def substituted(line: dict, product: dict) -> dict:
    """An order line after the shopper puts ``product`` in its place, at the
    substitute's own price."""
    return {**line, "status": "substituted",
            "substitute": {"product_id": product["id"], "name": product["name"], "size": product["size"],
                           "unit_price": product["price"], "line_total": product["price"] * line["quantity"]}}


def removed(line: dict) -> dict:
    return {**line, "status": "removed"}
