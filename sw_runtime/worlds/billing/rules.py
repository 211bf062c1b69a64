"""The rules the tools enforce and the tasks compute with, in one place.

The tasks' reference solutions and checks are computed from the seeded state
the same way the tools compute them (a proration, a card's decline, the fee
on a charge), so the two never disagree.
"""

from __future__ import annotations

from .clock import NOW

REFUND_LIMIT = 50_000  # cents: refunds over $500.00 need a manager (policy, not Stripe)
SMALL_DISPUTE = 2_000  # cents: disputes under $20.00 are accepted, not fought (policy)
OPEN_DISPUTE = ("warning_needs_response", "needs_response", "warning_under_review", "under_review")
QUALIFYING = ("duplicate subscription", "fraud", "business closed", "deceased")

# Stripe's test cards: these last four decline (4000000000009995 and 4000000000000002).
DECLINES = {"9995": ("insufficient_funds", "Your card has insufficient funds."),
            "0002": ("generic_decline", "Your card was declined.")}


def month_index(year: int, month: int) -> int:
    return year * 12 + month - 1


def decline(pm: dict, now: int = NOW) -> tuple | None:
    """``(decline_code, message)`` when a charge on this card fails, else None."""
    from .clock import when

    card = pm["card"]
    t = when(now)
    if month_index(card["exp_year"], card["exp_month"]) < month_index(t.year, t.month):
        return "expired_card", "Your card has expired."
    return DECLINES.get(card["last4"])


def fee(amount: int) -> int:
    """Stripe's standard US card fee: 2.9% + 30 cents, rounded half up."""
    return (amount * 29 + 500) // 1000 + 30


def share(amount: int, num: int, den: int) -> int:
    """``amount * num / den`` rounded half away from zero (a proration's share)."""
    sign = -1 if amount < 0 else 1
    return sign * ((abs(amount) * num * 2 + den) // (2 * den))


def proration(sub: dict, prices: dict, new_items: list, at: int) -> list:
    """The proration lines of changing ``sub``'s items to ``new_items``
    (``[{id, price, quantity}]``) at ``at``, as Stripe writes them: a credit for
    the unused time on each changed old item and a charge for the remaining
    time on its replacement. A change of interval restarts the period: its new
    price is billed in full on a new invoice (not here), so only the credit is
    a proration line."""
    start, end = sub["current_period_start"], sub["current_period_end"]
    left, whole = max(0, end - at), end - start
    out = []
    old = {i["id"]: i for i in sub["items"]}
    for new in new_items:
        was = old.get(new["id"])
        if was is not None and (was["price"], was["quantity"]) == (new["price"], new["quantity"]):
            continue
        if was is not None:
            p = prices[was["price"]]
            out.append({"description": f"Unused time on {was['quantity']} × {p['nickname']}",
                        "amount": -share(p["unit_amount"] * was["quantity"], left, whole),
                        "price": was["price"], "quantity": was["quantity"]})
        p = prices[new["price"]]
        if was is None or prices[was["price"]]["recurring"]["interval"] == p["recurring"]["interval"]:
            out.append({"description": f"Remaining time on {new['quantity']} × {p['nickname']}",
                        "amount": share(p["unit_amount"] * new["quantity"], left, whole),
                        "price": new["price"], "quantity": new["quantity"]})
    return out


def interval_changes(sub: dict, prices: dict, new_items: list) -> bool:
    old = {i["id"]: prices[i["price"]]["recurring"]["interval"] for i in sub["items"]}
    return any(prices[n["price"]]["recurring"]["interval"] != old.get(n["id"], prices[n["price"]]["recurring"]["interval"])
               for n in new_items)
