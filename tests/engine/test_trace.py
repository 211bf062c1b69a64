"""A stored ended episode reads back the trace it had in memory, signals included."""

from __future__ import annotations

import orjson

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.store.results import Results
from sw_runtime.worlds import registry


def test_stored_result_reads_back_the_trace(tmp_path):
    engine = Engine()
    engine.results = Results(str(tmp_path / "r.sqlite"))
    world = registry()["coinpurse"]
    task = world.tasks[0]
    ep = engine.create("coinpurse", schemas.CreateEpisode(task_id=task.id, seed=5, signals=True))
    setup, _ = engine.seeds.setup(world, task, engine.seeds.get(world, 5))
    for name, args in setup.solution:
        ep.answer(name, orjson.dumps(args))
    ep.answer("no_such_tool", b'{"x": 1}')
    want = ep.trace.entries()
    engine.submit(ep.id, setup.output)
    engine.results.put_many(engine.take_results())
    assert engine.results.get(ep.id)["trace"] == want
