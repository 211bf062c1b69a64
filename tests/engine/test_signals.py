"""reference_progress, computed with the cheap pre-test on created records,
equals the plain definition: strip every created record, match each wanted
one to an equal one, at every step of every world's reference solutions."""

from __future__ import annotations

import orjson
import pytest

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.signals import _strip
from sw_runtime.worlds import registry


def _plain_progress(ref, store, diff) -> float:
    if ref.total == 0:
        return 1.0
    done = 0
    for coll, rid, fields in ref.updated:
        rec = store.get(coll, rid)
        if rec is None:
            continue
        if fields:
            done += all(rec.get(k) == v for k, v in fields.items())
        else:
            done += rid in diff.get(coll, {}).get("updated", ())
    for coll, rid in ref.removed:
        done += store.get(coll, rid) is None
    created_ids = {i for d in diff.values() for i in d["created"]}
    for coll, wanted in ref.created.items():
        made = [_strip(store.get(coll, i), created_ids) for i in diff.get(coll, {}).get("created", ())]
        for want in wanted:
            if want in made:
                done += 1
                made.remove(want)
    return round(done / ref.total, 4)


@pytest.mark.parametrize("world", sorted(registry()))
def test_reference_progress_is_the_plain_definition(world):
    engine = Engine()
    w = registry()[world]
    checked = 0
    for task in w.tasks:
        for seed in (0, 7):
            ep = engine.create(world, schemas.CreateEpisode(task_id=task.id, seed=seed, signals=True))
            ref = ep.tracker.reference
            # the solution twice: the second pass creates look-alikes that must not count twice
            for name, args in list(ep.setup.solution) * 2:
                if ep.steps >= ep.step_limit:
                    break
                ep.answer(name, orjson.dumps(args))
                assert ep.tracker.ref_progress == _plain_progress(ref, ep.store, ep.store.diff(ep.start))
                checked += 1
    assert checked > 0
