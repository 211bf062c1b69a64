"""An episode's running counts agree with its calls."""

from __future__ import annotations

import orjson

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.worlds import registry


def _counts(ep) -> tuple:
    return sum(1 for _t, _ok, m in ep.calls if m), sum(1 for _t, ok, _m in ep.calls if not ok)


def test_write_steps_and_tool_errors_are_the_calls_that_wrote_and_were_refused():
    engine = Engine()
    world = registry()["coinpurse"]
    task = world.tasks_by_id["cp-04"]
    ep = engine.create("coinpurse", schemas.CreateEpisode(task_id=task.id, seed=3))
    setup, _ = engine.seeds.setup(world, task, engine.seeds.get(world, 3))
    first, *rest = setup.solution
    ep.answer(first[0], orjson.dumps(first[1]))
    ep.answer("no_such_tool", b"{}")
    ep.answer(first[0], b'{"nonsense": true}')  # refused: invalid arguments
    [fork] = engine.fork(ep.id, 1)[1]  # a fork carries the counts it has so far
    for name, args in rest + [first]:  # the first again: refused or a write of nothing new
        ep.answer(name, orjson.dumps(args))
        fork.answer("no_such_tool", b"{}")
    assert ep.write_steps > 0 and ep.tool_errors >= 2
    for one in (ep, fork):
        assert (one.write_steps, one.tool_errors) == _counts(one)
    ev = engine.submit(ep.id, setup.output)
    assert (ev["write_steps"], ev["tool_errors"]) == _counts(ep)
