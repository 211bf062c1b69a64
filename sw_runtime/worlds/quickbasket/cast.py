"""What quickbasket's tasks are about, found in a start state by content.

``cast(store)`` finds the last delivery and its eggs, yogurt and cheddar, the
order out for delivery, Thursday's and Saturday's orders and the line the
shop flagged, the saved lists, the cart and the slots. The generator
(``state.generate``) makes each of them unique; nothing in the state names a
role.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from ..task import only
from .state import ACCOUNT_ID, SATURDAY, TACOS, THURSDAY, WEEKLY


@dataclass(frozen=True)
class Cast:
    account: dict
    products: list
    by_id: dict
    cart: list  # cart lines
    last: dict  # the most recent delivered order
    eggs: dict  # its lines: eggs, yogurt, cheddar ...
    yogurt: dict
    cheddar: dict
    gone: dict  # ... and the one whose product is out of stock now
    on_the_way: dict  # the order out for delivery
    thursday: dict  # placed, for Thursday, with a flagged line
    flagged: dict
    saturday: dict  # placed, for Saturday
    weekly: dict  # the "Weekly basics" list
    tacos: dict
    orders: list
    refunds: list
    slots: list


_one = partial(only, world="quickbasket")


def cast(store) -> Cast:
    products = [p for _, p in store.scan("products")]
    by_id = {p["id"]: p for p in products}
    orders = [o for _, o in store.scan("orders")]
    delivered = sorted((o for o in orders if o["status"] == "delivered"), key=lambda o: (o["delivered_at"], o["id"]))
    last = delivered[-1]

    def line_of(order, kind):
        return _one([ln for ln in order["lines"] if by_id[ln["product_id"]]["kind"] == kind], f"{kind} line")

    placed = [o for o in orders if o["status"] == "placed"]
    thursday = _one([o for o in placed if o["slot"]["date"] == THURSDAY], "Thursday order")
    lists = {ls["name"]: ls for _, ls in store.scan("lists")}
    return Cast(
        account=store.get("account", ACCOUNT_ID),
        products=products,
        by_id=by_id,
        cart=[ln for _, ln in store.scan("cart")],
        last=last,
        eggs=line_of(last, "large eggs"),
        yogurt=line_of(last, "greek yogurt"),
        cheddar=line_of(last, "cheddar"),
        gone=_one([ln for ln in last["lines"] if by_id[ln["product_id"]]["stock"] < ln["quantity"]],
                  "sold-out line of the last delivery"),
        on_the_way=_one([o for o in orders if o["status"] == "out_for_delivery"], "order out for delivery"),
        thursday=thursday,
        flagged=_one([ln for ln in thursday["lines"] if ln["status"] == "out_of_stock"], "flagged line"),
        saturday=_one([o for o in placed if o["slot"]["date"] == SATURDAY], "Saturday order"),
        weekly=lists[WEEKLY],
        tacos=lists[TACOS],
        orders=orders,
        refunds=[r for _, r in store.scan("refunds")],
        slots=sorted((s for _, s in store.scan("slots")), key=lambda s: (s["date"], s["start"])),
    )
