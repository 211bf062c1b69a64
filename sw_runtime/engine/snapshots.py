"""Snapshots: an episode's state at one step, kept under an id.

A snapshot is a copy-on-write fork of the episode's store that is never
written, so taking one is O(1) and it stays exactly what it was whatever the
episode does next. New episodes can start from it (``snapshot_id`` at
create): they fork it in turn. Deleting a snapshot only drops its id; the
records it shares with episodes live on in those episodes.

Snapshots are independent of their episode's life (they survive its submit
and eviction) and count against ``max_snapshots``; past it, taking one is 429
until some are deleted.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timezone

from .. import errors
from ..pagination import paginate
from .custom_seeds import Start
from .ids import Minter


def _wall_now() -> str:
    t = datetime.now(timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


class Snapshot:
    __slots__ = ("id", "world", "episode_id", "step", "at", "created_at", "start", "project", "seq")

    def __init__(self, id, world, episode_id, step, at, created_at, start, project=None, seq=0):
        self.id = id
        self.project = project  # the episode's project: only its callers see the snapshot
        self.seq = seq  # creation order on this server: the list's stable order
        self.world = world
        self.episode_id = episode_id
        self.step = step
        self.at = at
        self.created_at = created_at
        self.start = start  # custom_seeds.Start over the frozen store

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
        }


class Snapshots:
    """Every snapshot of one server, by id."""

    def __init__(self, limit: int, ids: Minter | None = None):
        self.limit = limit
        self._items: dict = {}
        self.ids = ids or Minter(0)
        self._seq = itertools.count(1)

    def __len__(self) -> int:
        return len(self._items)

    def take(self, ep) -> Snapshot:
        """Snapshot episode ``ep`` as it stands now (open or submitted)."""
        if len(self._items) >= self.limit:
            raise errors.RateLimited(
                f"this server holds its maximum of {self.limit} snapshots; delete the ones you no longer need "
                "(DELETE /api/v1/snapshots/{id}) and retry",
                retry_after=60,
            )
        sid = self.ids.snapshot()
        store = ep.store.fork()
        snap = Snapshot(
            id=sid,
            world=ep.world,
            episode_id=ep.id,
            step=ep.steps,
            at=ep.clock[ep.steps],
            created_at=_wall_now(),
            start=Start(store=store, digest=store.digest(), kind="snapshot", snapshot_id=sid, seed=ep.seed),
            project=getattr(ep, "project", None),
            seq=next(self._seq),
        )
        self._items[sid] = snap
        return snap

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
        return snap

    def page(self, page, project: str | None = None) -> dict:
        """One page of snapshots in the order they were taken (``pagination.paginate``)."""
        mine = (s for s in self._items.values() if project is None or s.project == project)
        return paginate(mine, key=lambda s: (s.seq,), page=page, render=Snapshot.describe)
