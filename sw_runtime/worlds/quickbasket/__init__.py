"""Quickbasket: an online grocery shop.

One customer's account: a catalog with categories, prices and stock, a cart,
saved shopping lists, delivery slots, addresses, promo codes with rules,
orders with statuses, refunds and substitutions. Its tasks test reading
before writing, exact products and sizes, the substitution rule for
out-of-stock items, cents arithmetic, collateral damage, refusing what the
policy forbids, and asking the customer for what only they know (qb-08).

- ``catalog.py``: the product families (the same on every seed)
- ``state.py``: the seeded generator; ``schema.py``: its records as types
- ``rules.py``: money, substitutes, promo codes, totals
- ``tools.py``: the 22 tools
- ``cast.py`` and ``tasks.py``: what the tasks are about, and qb-01 to qb-15
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="quickbasket",
    version="1.0.0",
    title="Quickbasket",
    description=(
        "An online grocery shop in San Francisco: search the catalog, fill the cart, check out into delivery slots "
        "with promo codes, manage orders, substitutions and refunds. Amounts are integer cents."
    ),
)

__all__ = ["WORLD"]
