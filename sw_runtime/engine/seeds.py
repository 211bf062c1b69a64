"""Seeded start states, generated once and shared.

A world's start state for a seed is built on first use and cached per
(world, version, seed); episodes fork it copy-on-write, so starting a group of
64 episodes on one seed costs little more than starting one. A task's setup
(instruction, checks, reference solution) and which of its checks already pass
at the start are cached beside it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from ..verify.score import baseline


@dataclass
class SeedState:
    store: object  # the start Store: never written, only forked
    digest: str
    seed: int = 0
    setups: dict = field(default_factory=dict)  # task_id -> (Setup, start_passes)


class SeedCache:
    def __init__(self, capacity: int = 4096):
        self.capacity = capacity
        self._items: OrderedDict = OrderedDict()

    def get(self, world, seed: int) -> SeedState:
        key = (world.name, world.version, seed)
        entry = self._items.get(key)
        if entry is None:
            store = world.seed_store(seed)
            entry = SeedState(store=store, digest=store.digest(), seed=seed)
            self._items[key] = entry
            if len(self._items) > self.capacity:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(key)
        return entry

    def reference(self, world, task, entry: SeedState):
        """What the task's reference solution changes, for reference_progress."""
        key = ("reference", task.id)
        ref = entry.setups.get(key)
        if ref is None:
            from .replay import replay  # the engine's own episode machinery
            from .signals import Reference

            setup, _ = self.setup(world, task, entry)
            ref = entry.setups[key] = Reference(entry.store, replay(world, entry.store, setup.solution, entry.seed))
        return ref

    def setup(self, world, task, entry: SeedState):
        """The task made concrete for this seed, and its checks' start passes."""
        got = entry.setups.get(task.id)
        if got is None:
            # setup reads the state; hand it a fork so a careless write cannot
            # reach the shared start state.
            setup = task.setup(entry.store.fork())
            got = entry.setups[task.id] = (setup, baseline(setup.checks, entry.store))
        return got
