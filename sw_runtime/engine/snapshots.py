"""Snapshots: an episode's state at one step, kept under an id.

A snapshot is a copy-on-write fork of the episode's store that is never
written, so taking one is O(1) and it stays exactly what it was whatever the
episode does next. New episodes can start from it (``snapshot_id`` at
create): they fork it in turn. Deleting a snapshot only drops its id; the
records it shares with episodes live on in those episodes.

Snapshots are independent of their episode's life (they survive its submit
and eviction). They expire ``ttl`` seconds after they are taken, and count
against ``max_snapshots`` and a byte budget (``max_bytes``: the records a
snapshot holds apart from its episode's start state, which is what it can
pin in memory); past either, taking one is 429 until some are deleted or
expire.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone

import orjson

from .. import errors
from ..pagination import paginate
from .custom_seeds import Start
from .ids import Minter
from .read_cache import SHARED


def _wall_now() -> str:
    t = datetime.now(timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


@dataclass(frozen=True, slots=True)
class History:
    """An episode's history as a snapshot keeps it: ``calls`` (what the checks
    read), ``rows`` (its trace's length) and ``undone`` (rows a restore had
    taken back by then)."""

    calls: tuple
    rows: int
    undone: frozenset


class Snapshot:
    __slots__ = ("id", "world", "episode_id", "step", "at", "created_at", "start", "born", "nbytes", "project", "seq",
                 "name", "history")

    def __init__(self, id, world, episode_id, step, at, created_at, start, nbytes=0, project=None, seq=0,
                 name=None, history=None):
        self.id = id
        self.project = project  # the episode's project: only its callers see the snapshot
        self.seq = seq  # creation order on this server: the list's stable order
        self.world = world
        self.episode_id = episode_id
        self.step = step
        self.at = at
        self.created_at = created_at
        self.start = start  # custom_seeds.Start over the frozen store
        self.born = time.monotonic()
        self.nbytes = nbytes
        self.name = name  # the caller's label, if any
        # What a restore of its episode gives back besides the state: the calls
        # the checks read, and how far the trace went (engine/restore.py).
        self.history = history

    @property
    def digest(self) -> str:
        return self.start.digest

    def describe(self) -> dict:
        return {
            "snapshot_id": self.id,
            "episode_id": self.episode_id,
            "environment": self.world.name,
            "environment_version": self.world.version,
            "step": self.step,
            "at": self.at,
            "digest": self.digest,
            "created_at": self.created_at,
            "name": self.name,
        }


class Snapshots:
    """Every snapshot of one server, by id."""

    def __init__(self, limit: int, ids: Minter | None = None, ttl: float = 86400.0, max_bytes: int = 2**30):
        self.limit = limit
        self.ttl = ttl
        self.max_bytes = max_bytes
        self.nbytes = 0
        self._items: OrderedDict = OrderedDict()  # oldest first: expiry pops from the front
        self.ids = ids or Minter(0)
        self._seq = itertools.count(1)

    def __len__(self) -> int:
        return len(self._items)

    def count(self, project: str | None = None) -> int:
        """How many snapshots ``project`` holds (all of them for None)."""
        if project is None:
            return len(self._items)
        return sum(1 for s in self._items.values() if s.project == project)

    def take(self, ep, snapshot_id: str | None = None, name: str | None = None) -> Snapshot:
        """Snapshot episode ``ep`` as it stands now (open or submitted);
        ``snapshot_id``: the id it had (a replay); ``name``: the caller's label."""
        if len(self._items) >= self.limit:
            raise errors.RateLimited(
                f"this server holds its maximum of {self.limit} snapshots; delete the ones you no longer need "
                "(DELETE /api/v1/snapshots/{id}) and retry",
                retry_after=60,
            )
        size = _held_bytes(ep)
        if self.nbytes + size > self.max_bytes:
            raise errors.RateLimited(
                f"this snapshot would hold {size} bytes and the server's snapshots already hold {self.nbytes}, "
                f"past the budget of {self.max_bytes}; delete the ones you no longer need "
                "(DELETE /api/v1/snapshots/{id}) and retry",
                retry_after=60,
            )
        sid = snapshot_id or self.ids.snapshot()
        store = ep.store.fork()
        ep.state_shared = SHARED  # episodes started from the snapshot will hold its state too
        snap = Snapshot(
            id=sid,
            world=ep.world,
            episode_id=ep.id,
            step=ep.steps,
            at=ep.clock[ep.steps],
            created_at=_wall_now(),
            start=Start(store=store, digest=store.digest(), kind="snapshot", snapshot_id=sid, seed=ep.seed),
            nbytes=size,
            project=getattr(ep, "project", None),
            seq=next(self._seq),
            name=name,
            history=History(tuple(ep.calls), len(ep.trace.rows), ep.trace.undone),
        )
        self._items[sid] = snap
        self.nbytes += size
        return snap

    def expire(self, now: float | None = None) -> list:
        """Drop the snapshots older than the TTL; answer their ids."""
        now = time.monotonic() if now is None else now
        gone = []
        items = self._items
        while items:
            sid, snap = next(iter(items.items()))
            if snap.born + self.ttl > now:
                break
            self.delete(sid)
            gone.append(sid)
        return gone

    def get(self, snapshot_id: str, project: str | None = None) -> Snapshot:
        """The snapshot; with ``project``, only if it is that project's (else
        404 exactly as for an unknown id, so ids leak nothing)."""
        snap = self._items.get(snapshot_id)
        if snap is None or (project is not None and snap.project != project):
            why = self.ids.why_missing(snapshot_id)
            if why is not None:
                raise errors.NotFound(f"no snapshot {snapshot_id} here: {why}")
            raise errors.NotFound(f"no snapshot {snapshot_id!r} (deleted, or never taken on this server)")
        return snap

    def delete(self, snapshot_id: str, project: str | None = None) -> Snapshot:
        snap = self.get(snapshot_id, project)
        del self._items[snapshot_id]
        self.nbytes -= snap.nbytes
        return snap

    def put_back(self, snap: Snapshot) -> None:
        """Hold ``snap`` again (a delete the action log did not take: ``store/undo.py``)."""
        if snap.id not in self._items:
            self._items[snap.id] = snap
            self.nbytes += snap.nbytes

    def of(self, episode_id: str, project: str | None = None) -> list:
        """The snapshots taken of one episode, in the order taken."""
        return [s.describe() for s in self._items.values()
                if s.episode_id == episode_id and (project is None or s.project == project)]

    def page(self, page, project: str | None = None, episode_id: str | None = None) -> dict:
        """One page of snapshots in the order they were taken (``pagination.paginate``),
        only ``episode_id``'s when given."""
        mine = (s for s in self._items.values() if (project is None or s.project == project)
                and (episode_id is None or s.episode_id == episode_id))
        return paginate(mine, key=lambda s: (s.seq,), page=page, render=Snapshot.describe)


def _held_bytes(ep) -> int:
    """The size of the records ``ep``'s state holds apart from its start (as JSON)."""
    size = 0
    for name, change in ep.store.diff(ep.start).items():
        for rid in (*change.get("created", ()), *change.get("updated", ())):
            size += len(rid) + len(orjson.dumps(ep.store.get(name, rid)))
    return size
