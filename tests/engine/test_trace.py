"""The trace's JSON, built from the bytes its rows keep, says exactly what
``entries()`` says: for every world's solutions, with signals, faults,
reactions, forks (inherited rows), refusals, unknown tools and arguments
the trace does not keep or cannot read back."""

from __future__ import annotations

import orjson
import pytest

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.store.results import Results
from sw_runtime.worlds import registry

VARIANTS = ({}, {"signals": True}, {"fault_profile": "stale_read"}, {"fault_profile": "timeout_after_commit"},
            {"fault_profile": "server_error"}, {"mode": "sandbox"})


def _episodes(engine: Engine, world, task) -> list:
    setup, _ = engine.seeds.setup(world, task, engine.seeds.get(world, 3))
    out = []
    for variant in VARIANTS:
        ep = engine.create(world.name, schemas.CreateEpisode(task_id=task.id, seed=3, **variant))
        calls = [(name, orjson.dumps(args)) for name, args in setup.solution]
        calls += [("no_such_tool", b'{"x": 1}'), (calls[0][0] if calls else "noop", b'{"bad": [1, 2]}'),
                  (calls[0][0] if calls else "noop", b"[" * 1100 + b"]" * 1100)]
        for name, args in calls[:len(calls) // 2]:
            ep.answer(name, args)
        out.append(ep)
        if ep.status == "open" and variant == {}:
            _, (child,) = engine.fork(ep.id, 1)
            for name, args in calls[len(calls) // 2:]:
                child.answer(name, args)
            out.append(child)
        for name, args in calls[len(calls) // 2:]:
            ep.answer(name, args)
    return out


@pytest.mark.parametrize("world", sorted(registry()))
def test_entries_json_is_entries(world):
    engine = Engine()
    w = registry()[world]
    rows = 0
    for task in w.tasks[:4]:
        for ep in _episodes(engine, w, task):
            assert orjson.loads(ep.trace.entries_json()) == ep.trace.entries()
            rows += len(ep.trace)
    assert rows > 0


def test_deep_arguments_read_back_as_entries_shows_them():
    engine = Engine()
    ep = engine.create("dummy", schemas.CreateEpisode(seed=1))
    deep = b"[" * 1100 + b"]" * 1100  # past orjson's depth: unreadable
    readable = b"[" * 600 + b"]" * 600  # many brackets, still readable
    ep.answer("noop", deep)
    ep.answer("noop", readable)
    entries = ep.trace.entries()
    assert "unreadable_arguments" in entries[0]["arguments"]
    assert orjson.loads(ep.trace.entries_json()) == entries


def test_stored_result_reads_back_the_trace(tmp_path):
    engine = Engine()
    engine.results = Results(str(tmp_path / "r.sqlite"))
    world = registry()["coinpurse"]
    task = world.tasks[0]
    ep = engine.create("coinpurse", schemas.CreateEpisode(task_id=task.id, seed=5, signals=True))
    setup, _ = engine.seeds.setup(world, task, engine.seeds.get(world, 5))
    for name, args in setup.solution:
        ep.answer(name, orjson.dumps(args))
    want = ep.trace.entries()
    engine.submit(ep.id, setup.output)
    engine.results.put_many(engine.take_results())
    assert engine.results.get(ep.id)["trace"] == want
