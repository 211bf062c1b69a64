"""What the cross-app task modules share: world names, qualified collection
names, a seeded choice, codehost's next issue number, and the fault profile
the fault tasks are written for.

A composite's checks name ``world.collection``; ``q(world, collection)`` spells
it. ``rng(store, task_id)`` draws from the composite's start digest, so a
choice a task makes (a time the user agreed, the order two records are named
in) follows the seed and is the same in every process.
"""

from __future__ import annotations

import random

from ..money import dollars  # noqa: F401  (coinpurse and quickbasket write money so)

CH = "codehost"
CP = "coinpurse"
OP = "offsite-planning"
QB = "quickbasket"
AR = "receivables"

# The profile the fault tasks (tag "fault") are written for: a write that
# times out was applied all the same, so a blind retry does it twice.
FAULT = "timeout_after_commit"
FAULT_POLICY = (
    "Tools in this episode may time out (code timeout) after they already made the change. After a write times "
    "out, read the state to see whether it happened before you retry it: nothing may be posted, paid or created "
    "twice."
)


def q(world: str, collection: str) -> str:
    """A composite's name for ``world``'s ``collection``."""
    return f"{world}.{collection}"


def rng(store, task_id: str) -> random.Random:
    return random.Random(f"crossapp/{task_id}/{store.digest()}")


def next_issue(code, repo: str = "acme/api") -> int:
    """The number codehost gives the next issue in ``repo`` (issues and pull requests share one sequence)."""
    return max(r["number"] for col in ("issues", "pulls") for _, r in code.scan(col) if r["repo"] == repo) + 1
