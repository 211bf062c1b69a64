"""The compact record layout answers exactly as the dict layout did.

Every world (and every composite of cross-app tasks) plays each task's
reference solution on seeds 0-9 twice, through the real engine in process:
once with its stores made under ``SW_LAYOUT=dicts`` (every record a dict, the
layout before shapes) and once with the declared shapes (records kept as
rows, reads and queries through the core's compiled paths). After the
solution the episode also calls every tool with no arguments (a list tool's
default query, or the same refusal). Each answer, as the bytes the server
would send, the state digest after each call and the evaluation must be the
same: a query that kept, dropped or ordered one record differently fails.
"""

from __future__ import annotations

import orjson
import pytest

from sw_runtime.config import Settings
from sw_runtime.engine.engine import Engine
from sw_runtime.schemas import CreateEpisode
from sw_runtime.worlds import composites, registry

pytestmark = pytest.mark.slow  # about 40 s for all of them (helpdesk a third of it)

SEEDS = range(10)
WORLDS = [*registry().values(), *composites()]


def _engine(monkeypatch, layout: str) -> Engine:
    """An engine whose seed stores are made under ``layout`` (the core reads
    ``SW_LAYOUT`` when a store is made; forks keep their parent's layout)."""
    if layout == "dicts":
        monkeypatch.setenv("SW_LAYOUT", "dicts")
    else:
        monkeypatch.delenv("SW_LAYOUT", raising=False)
    return Engine(Settings())


def _play(engine: Engine, world, task, seed: int, monkeypatch, layout: str) -> list:
    """Everything the episode answers, in order, as bytes."""
    out = []
    if layout == "dicts":
        monkeypatch.setenv("SW_LAYOUT", "dicts")
    else:
        monkeypatch.delenv("SW_LAYOUT", raising=False)
    ep = engine.create(world.name, CreateEpisode(task_id=task.id, seed=seed))
    store = ep.store
    out.append(("start", ep.seed_digest, store.digest()))
    calls = list(ep.setup.solution) + [(t.name, {}) for t in world.tools]
    for tool, args in calls:
        try:
            answer = engine.step(ep.id, tool, args)
        except Exception as e:  # the same refusal of the engine on both sides
            answer = {"raised": type(e).__name__, "text": str(e)}
        out.append((tool, orjson.dumps(answer), ep.store.digest()))
    try:
        ev = engine.submit(ep.id, ep.setup.output)
        ev.pop("episode_id")  # made afresh for each episode
        out.append(("submit", orjson.dumps(ev)))
    finally:
        engine.episodes.pop(ep.id, None)
    return out


def _shaped(store) -> bool:
    parts = [store.part(w) for w in store.worlds] if hasattr(store, "worlds") else [store]
    return any(s.shape(c) is not None for s in parts for c in s.collections)


@pytest.mark.parametrize("world", WORLDS, ids=[w.name for w in WORLDS])
def test_every_answer_and_digest_is_the_same_in_both_layouts(world, monkeypatch):
    old, new = _engine(monkeypatch, "dicts"), _engine(monkeypatch, "compact")
    compared = 0
    for task in world.tasks:
        for seed in SEEDS:
            a = _play(old, world, task, seed, monkeypatch, "dicts")
            b = _play(new, world, task, seed, monkeypatch, "compact")
            assert len(a) == len(b), f"{task.id} seed {seed}: {len(a)} answers against {len(b)}"
            for n, (x, y) in enumerate(zip(a, b)):
                assert x == y, f"{task.id} seed {seed}, answer {n} ({x[0]}):\n dicts:   {x}\n compact: {y}"
            compared += len(a)
    assert compared, f"{world.name}: no task played"
    # The two runs really were in different layouts (else this compares nothing).
    monkeypatch.delenv("SW_LAYOUT", raising=False)
    seed_store = world.seed_store(0)
    if world.state_schema is not None or hasattr(seed_store, "worlds"):
        assert _shaped(seed_store)
        monkeypatch.setenv("SW_LAYOUT", "dicts")
        assert not _shaped(world.seed_store(0))
