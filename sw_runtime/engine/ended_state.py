"""An ended episode's end state, read back after it left memory.

The results store keeps, for each ended episode, the records its end state
changed against its start (``endings.end_state``). The start of a seeded
episode is its world's seeded state, which the seed regenerates exactly, and
that of an episode started from a snapshot still held is the snapshot's: so
the whole end state is the start with those records laid over it, and its
digest must be the one the evaluation recorded (a mismatch is a bug, and
says so). An episode started from a custom state (or a snapshot since gone)
cannot be rebuilt: its dump holds only the changed records, and says so with
``changes_only: true`` (a removed record is ``null``).

``GET /episodes/{id}/state`` answers this once the episode is in the results
store, and a run's final state (``episode_id`` on the run) the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from sw_core_ext import Store

from .. import errors
from ..worlds import get_world


@dataclass(slots=True)
class EndedState:
    """Quacks like an episode for ``views.state`` and ``reads.state_json``."""

    id: str
    world: object
    steps: int
    digest: str
    store: object
    changes_only: bool = False


def rebuild(engine, kept: dict) -> EndedState:
    """The end state of ``kept`` (a results-store row read with ``end_state``)."""
    world = get_world(kept["environment"])
    changes = kept["end_state"]
    start = None
    if kept.get("start") == "seed":
        start = engine.seeds.get(world, kept["seed"]).store
    elif kept.get("start") == "snapshot":
        try:
            start = engine.snapshots.get(kept["snapshot_id"]).start.store
        except errors.NotFound:
            pass  # released since: only the changes are left
    if start is None:
        store = Store({name: {rid: rec for rid, rec in recs.items() if rec is not None}
                       for name, recs in changes.items()}, collections=world.collections)
        return EndedState(kept["episode_id"], world, kept["steps"], kept["digest"], store, changes_only=True)
    store = start.fork()
    for name, recs in changes.items():
        for rid, rec in recs.items():
            if rec is None:
                store.remove(name, rid)
            else:
                store.put(name, rid, rec)
    if store.digest() != kept["digest"]:
        raise errors.InternalError(
            f"the end state of {kept['episode_id']} rebuilt from the results store has digest {store.digest()}, "
            f"not the {kept['digest']} its evaluation recorded; this is a bug"
        )
    return EndedState(kept["episode_id"], world, kept["steps"], kept["digest"], store)
