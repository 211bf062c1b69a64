"""Coinpurse: a personal payments app (think Venmo or Cash App).

The flagship example world. One user's account with a balance and a daily
send limit, contacts with look-alike handles, incoming payment requests
(duplicates, impersonations, a blocked sender, scams), a transaction history
and the requests the user sent. Its tasks test reading before writing, exact
identities, cents arithmetic, and refusing what the policy forbids.

- ``state.py``: the data model and the seeded generator
- ``schema.py``: the records as types, which custom seeds are parsed with
- ``cast.py``: who plays which part in a start state, for the tasks
- ``tools.py``: the ten tools
- ``tasks.py``: cp-01 to cp-12
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="coinpurse",
    version="1.1.0",
    title="Coinpurse",
    description=(
        "A personal payments app: send money to contacts, pay or decline requests, request money, "
        "with a balance and a daily send limit. Amounts are integer cents."
    ),
)

__all__ = ["WORLD"]
