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

from pathlib import Path

from ..world import World
from .schema import SCHEMA
from .state import COLLECTIONS, EPOCH, generate
from .tasks import TASKS
from .tools import TOOLS

VERSION = "1.1.0"
POLICY = (Path(__file__).parent / "policy.md").read_text(encoding="utf-8")

WORLD = World(
    name="coinpurse",
    version=VERSION,
    title="Coinpurse",
    description=(
        "A personal payments app: send money to contacts, pay or decline requests, request money, "
        "with a balance and a daily send limit. Amounts are integer cents."
    ),
    epoch=EPOCH,
    collections=COLLECTIONS,
    policy=POLICY,
    tools=TOOLS,
    tasks=TASKS,
    generate=generate,
    state_schema=SCHEMA,
)

__all__ = ["WORLD"]
