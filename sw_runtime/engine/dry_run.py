"""Dry runs: what a call would do, without doing it.

The call runs, through the episode's own ``call``, on a throwaway clone of
the episode whose store is a copy-on-write fork; the clone is then dropped.
So the preview is exactly the answer the real call would give next (the
same step number and simulated time, refusals, faults, reactions, signals),
plus ``would_change`` (the ``state_diff`` it would make) and
``would_digest`` (the digest after it), while the episode's state, step
count, trace and randomness stay as they were. This generalises the
``would_*`` previews of guarded tools to every tool.
"""

from __future__ import annotations

import time

from .episode import Episode
from .forks import clone


def preview(ep: Episode, tool: str, arguments) -> dict:
    """The step answer ``tool(arguments)`` would get now, with ``dry_run: true``,
    ``would_change`` and ``would_digest``. Raises like ``call`` when the call
    could not run (closed episode, step limit)."""
    ep.check_open()
    ep.touched = time.monotonic()
    twin = clone(ep, ep.id, inherited=False)
    answer = twin.call(tool, arguments)
    answer["dry_run"] = True
    answer["would_change"] = twin.store.diff(ep.store)
    answer["would_digest"] = twin.store.digest()
    return answer
