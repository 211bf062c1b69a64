"""How money moves at Halcyon Air's desk: charges that add up, refunds to the original method.

A write that costs something takes ``payments`` (``[{payment_id, amount}]``):
``check`` makes sure they pay exactly what is due, from the member's own
methods, within a gift card's or certificate's balance, before anything is
written; ``charge`` takes the balances. A change that costs less gives the
difference back to the reservation's original (first) payment method
(``refund``); ``settle`` does whichever a change needs.
"""

from __future__ import annotations

from ..tool import Refused
from . import rules


def check(ctx, member: dict, payments: list, due: int) -> list:
    """The methods of ``payments`` after checking they pay exactly ``due`` (cents)."""
    total = sum(p.amount for p in payments)
    if due <= 0 and payments:
        raise Refused("amount_mismatch", f"nothing is due ({rules.dollars(due)}); pass payments: []")
    if due > 0 and total != due:
        raise Refused("amount_mismatch", f"the payments add up to {rules.dollars(total)} but "
                                         f"{rules.dollars(due)} is due ({due} cents)")
    methods = []
    for p in payments:
        pm = ctx.store.get("payment_methods", p.payment_id)
        if pm is None or pm["member_id"] != member["id"]:
            raise Refused("not_found", f"{member['id']} has no payment method {p.payment_id}")
        if pm["balance"] is not None and pm["balance"] < p.amount:
            raise Refused("insufficient_balance", f"{pm['label']} {pm['id']} has {rules.dollars(pm['balance'])}, "
                                                  f"less than {rules.dollars(p.amount)}")
        methods.append(pm)
    if len({pm["id"] for pm in methods}) != len(methods):
        raise Refused("amount_mismatch", "a payment method is listed twice")
    return methods


def charge(ctx, methods: list, payments: list) -> list:
    for pm, p in zip(methods, payments):
        if pm["balance"] is not None:
            ctx.store.update("payment_methods", pm["id"], {"balance": pm["balance"] - p.amount})
    return [{"payment_id": p.payment_id, "amount": p.amount} for p in payments]


def credit(ctx, payment_id: str, amount: int) -> None:
    pm = ctx.store.get("payment_methods", payment_id)
    if pm is not None and pm["balance"] is not None:
        ctx.store.update("payment_methods", payment_id, {"balance": pm["balance"] + amount})


def refund(ctx, r: dict, amount: int) -> list:
    """``amount`` back to the reservation's original (first) payment method."""
    original = r["payments"][0]["payment_id"]
    credit(ctx, original, amount)
    return [{"payment_id": original, "amount": -amount}]


def settle(ctx, r: dict, member: dict, due: int, payments: list) -> list:
    """Checks and moves what a change costs: the new payment lines."""
    methods = check(ctx, member, payments, due)
    if due > 0:
        return charge(ctx, methods, payments)
    return refund(ctx, r, -due) if due < 0 else []
