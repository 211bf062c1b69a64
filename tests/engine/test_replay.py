"""A reference solution is played through the episode's own call path, and a
call of it that fails says so instead of being skipped."""

from __future__ import annotations

import pytest

from sw_runtime.engine.replay import ReferenceFailed, replay
from sw_runtime.engine.seeds import SeedCache
from sw_runtime.worlds import get_world


def test_the_reference_solution_ends_where_an_episode_playing_it_ends():
    world = get_world("dummy")
    seeds = SeedCache(4)
    entry = seeds.get(world, 0)
    setup, _ = seeds.setup(world, world.tasks_by_id["dm-01"], entry)
    end = replay(world, entry.store, setup.solution)
    assert end.get("items", "it-01")["value"] == entry.store.get("items", "it-01")["value"] + 10
    assert entry.store.get("items", "it-01")["value"] == 1  # the start is untouched


def test_a_failing_reference_call_raises_naming_the_step():
    world = get_world("dummy")
    start = SeedCache(4).get(world, 0).store
    with pytest.raises(ReferenceFailed, match=r"step 2 of a reference solution \(set\).*not_found"):
        replay(world, start, [("get", {"key": "it-01"}), ("set", {"key": "it-99", "value": 1})])
