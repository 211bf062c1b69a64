"""Undoing a request whose log line the disk refused (a full disk).

The engine applies a request before its line is written (the line holds
what each step answered: its digest), so a line the disk refuses leaves
memory ahead of the log. ``undo`` puts memory back as the log has it: the
episodes the line was about are rebuilt by replaying the log's records of
them, and of what they descend from, into a scratch engine (the same
replay a restart does), then take the live ones' places. Episodes the line
made are dropped, a snapshot it took is deleted, one it deleted comes back,
idempotency keys it bound are forgotten. So nothing the request did is
kept, and nothing unlogged is answered again.

Webhook events the request raised were already queued: a receiver may hear
of an episode that a 503 then undid (docs/OPERATIONS.md says so).
"""

from __future__ import annotations

import contextlib
import logging

from .. import errors
from ..engine.engine import Engine
from . import compact
from . import log as action_log
from .replay import replay

log = logging.getLogger("sandworld.store")


def undo(engine, keys, path: str, records: list) -> int:
    """Put ``engine`` and the idempotency ``keys`` back as the log at
    ``path`` has them, before ``records`` (the line that was not written).
    Answer how many episodes were put back or dropped."""
    about, made, snaps_made, snaps_gone = set(), set(), [], []
    for rec in records:
        kind = rec[0]
        if kind == "k":
            keys.forget(rec[1], rec[2])
        elif kind == "kb":
            continue  # a keyed batch's progress: its steps in this line are undone with it
        elif kind == "c":
            made.add(rec[1])
        elif kind == "f":
            about.add(rec[1])
            made.update(rec[2])
        elif kind == "p":
            snaps_made.append(rec[2])
        elif kind == "pd":
            snaps_gone.append(rec[1])
        else:  # s, e, u, l: about an episode that was there before
            about.add(rec[1])
    for sid in snaps_made:
        with contextlib.suppress(errors.NotFound):
            engine.snapshots.delete(sid)
    for eid in made:
        engine.discard(eid)
    if not about and not snaps_gone:
        return len(made)
    scratch = Engine(engine.settings)
    want = compact.needed(action_log.read(path, on_damage=_past), roots=about | set(snaps_gone))
    replay(scratch, _NoKeys(), compact.filtered(action_log.read(path, on_damage=_past), want, keys=False))
    for eid in about:
        ep = scratch.episodes.get(eid)
        if ep is not None:
            engine.adopt(ep)
        else:  # ended and freed, as the log has it
            engine.discard(eid)
    for sid in snaps_gone:
        with contextlib.suppress(errors.NotFound):
            engine.snapshots.put_back(scratch.snapshots.get(sid))
    log.error("the action log could not take a request's line: %d episodes put back as the log has them, "
              "%d made by it dropped", len(about), len(made))
    return len(about) + len(made)


def _past(info) -> None:
    """A damaged log (served read-only) is read up to its damage, as at the start."""


class _NoKeys:
    """A replay's keys where none are replayed (``filtered(keys=False)``)."""

    on_finish = None
