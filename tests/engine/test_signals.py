"""Signals kept incrementally equal their definitions computed from scratch.

reference_progress, computed with the cheap pre-test on created records,
equals the plain definition: strip every created record, match each wanted
one to an equal one, at every step of every world's reference solutions.
Every check result, progress, reference_progress and the episode's diff,
kept from each step's writes, equal the ones computed from the whole state
and trace, at every step of solutions, random calls and forks."""

from __future__ import annotations

import random

import orjson
import pytest

from sw_runtime import schemas
from sw_runtime.engine import forks
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.signals import _strip
from sw_runtime.verify import checks as C
from sw_runtime.verify.evaluate import Facts, run_check
from sw_runtime.verify.score import weighted
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


def _from_scratch(ep) -> tuple:
    """``(passes, progress, reference_progress, diff)`` by their definitions,
    from the episode's whole state and trace."""
    diff = ep.store.diff(ep.start)
    facts = Facts(start=ep.start, end=ep.store, calls=ep.calls, output="", diff=diff, trace=ep.trace)
    passes = [None if isinstance(c, C.Rubric) else run_check(c, facts)[0] for c in ep.checks]
    progress = weighted(ep.checks, passes, ep.start_passes, ep.scoring)[0] if ep.checks else 0.0
    ref = ep.tracker.reference
    return passes, progress, ref.progress(ep.store, diff) if ref is not None else 0.0, diff


def _assert_from_scratch(ep) -> None:
    passes, progress, ref_progress, diff = _from_scratch(ep)
    assert ep.tracker.passes == passes
    assert ep.tracker.progress == progress
    assert ep.tracker.ref_progress == ref_progress
    assert _kept_diff(ep.tracker) == diff


def _kept_diff(tracker) -> dict:
    return {coll: {op: sorted(ids) for op, ids in d.items()}
            for coll, d in tracker._diff.items() if any(d.values())}


@pytest.mark.parametrize("world", sorted(registry()))
def test_incremental_signals_equal_their_definition(world):
    # At every step of each task's solution (twice) and of random calls drawn
    # from every task's solution, on the episode and on a fork made midway,
    # the values kept from each step's writes equal the ones computed from scratch.
    engine = Engine()
    w = registry()[world]
    checked = 0
    for seed in (0, 7):
        pool = []
        for task in w.tasks:
            pool += engine.create(world, schemas.CreateEpisode(task_id=task.id, seed=seed)).setup.solution
        rng = random.Random(f"{world}-{seed}")
        for task in w.tasks:
            ep = engine.create(world, schemas.CreateEpisode(task_id=task.id, seed=seed, signals=True))
            calls = list(ep.setup.solution) * 2 + [rng.choice(pool) for _ in range(40)]
            episodes = [ep]
            for k, (name, args) in enumerate(calls):
                if k == len(calls) // 2:
                    episodes.append(forks.clone(ep, engine.new_episode_id(), inherited=True))
                for e in episodes:
                    if e.steps >= e.step_limit:
                        continue
                    e.answer(name, orjson.dumps(args))
                    _assert_from_scratch(e)
                    checked += 1
    assert checked > 0


def test_a_record_set_back_to_its_start_value_leaves_the_diff():
    # it-01 changed, then set back: no longer a write, the record and field
    # checks see its value again, and the collateral it made is forgiven.
    engine = Engine()
    checks = [{"kind": "no_writes", "collection": "items"},
              {"kind": "write_count", "min": 1, "max": 1},
              {"kind": "record_exists", "collection": "items", "where": {"id": "it-01", "value": 77}},
              {"kind": "field_equals", "collection": "items", "field": "value", "value": 77, "where": {"id": "it-01"}},
              {"kind": "record_absent", "collection": "items", "where": {"value": 77}},
              {"kind": "no_collateral", "allow": [{"collection": "items", "ops": ["updated"], "where": {"value": 77}}]}]
    ep = engine.create("dummy", schemas.CreateEpisode(task_id="dm-01", seed=3, signals=True, checks=checks))
    start = ep.store.get("items", "it-01")["value"]
    for value in (77, start, 77, 78, start):
        ep.answer("set", orjson.dumps({"key": "it-01", "value": value}))
        _assert_from_scratch(ep)
        assert bool(_kept_diff(ep.tracker)) is (value != start)
    assert ep.tracker.passes[ep.checks.index(next(c for c in ep.checks if isinstance(c, C.NoCollateral)))] is True
