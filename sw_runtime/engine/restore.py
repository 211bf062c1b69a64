"""Restore: a live episode put back to a snapshot of itself.

``POST /episodes/{id}/restore {"snapshot_id"}`` gives the episode back the
snapshot's state, its step count (so its clock: step *n* is answered at
epoch + 7·n again) and the calls its checks read. The trace is not cut: the
rows after the snapshot stay, marked ``"undone": true`` (and out of what the
checks read), and a ``restored`` row says which snapshot, from which step,
and the digest it gave back. The next call is step ``snapshot.step + 1``.

The engine logs a restore as one record (``r``: the episode, the snapshot,
the step and the digest) and a replay applies it through this same function
and checks the digest, as it checks every step's.

Only a snapshot of the episode itself (``snapshot.episode_id``) can be
restored into it: a snapshot of another episode (a fork's source, say) is a
start for a new episode (``snapshot_id`` at create), not a past of this one.
"""

from __future__ import annotations

import time

from .. import errors
from .episode import OPEN
from .read_cache import SHARED
from .signals import Signals
from .trace import restored_row


def check(ep, snap) -> None:
    """400/409 unless ``snap`` can be restored into ``ep``."""
    if snap.episode_id != ep.id:
        raise errors.InvalidRequest(
            f"snapshot {snap.id} is of episode {snap.episode_id}, not {ep.id}: an episode is restored only to a "
            f"snapshot of itself; start a new episode from it with snapshot_id at create"
        )
    if ep.status != OPEN:
        ep.check_open()  # says submitting or ended


def restore(ep, snap) -> None:
    """Put ``ep`` back to ``snap`` (``check`` passed): state, steps, clock, calls."""
    before, from_step = ep.digest, ep.steps
    store = snap.start.store.fork()
    if ep.store.journal is not None:  # signals read a step's writes from it
        store.journal = []
    ep.store = store
    ep.state_shared = SHARED  # the snapshot holds this state too
    if ep.stale is not None:
        ep.stale = store.fork()
    history = snap.history
    ep.steps = snap.step
    ep.digest = snap.digest
    ep.calls = list(history.calls)
    ep.write_steps = sum(1 for _tool, _ok, mutated in ep.calls if mutated)
    ep.tool_errors = sum(1 for _tool, ok, _mutated in ep.calls if not ok)
    ep.last_results = {}
    ep.touched = time.monotonic()
    row = restored_row(snap.step, ep.clock[snap.step], snap.id, from_step, snap.digest, snap.digest != before)
    ep.trace.restore(history.rows, history.undone, row)
    if ep.tracker is not None:  # signals start again from the restored state
        ep.tracker = Signals(ep, ep.tracker.reference)
