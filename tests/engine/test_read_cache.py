"""The read cache: pure reads answered once per state, with answers, traces,
digests and scores byte for byte what the same calls give without it."""

from __future__ import annotations

import dataclasses

import msgspec
import orjson
import pytest

from sw_runtime import schemas
from sw_runtime.engine import episode as episode_module
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.read_cache import ReadCache
from sw_runtime.worlds import registry
from sw_runtime.worlds.tool import ReadContext, tool

# The members of one group on a (task, seed): the plain ones step the same
# calls (a GRPO group); one stops half-way and only reads; one has signals;
# one has faults, which must never be served from the cache.
MEMBERS = ({}, {}, {"half": True}, {"signals": True}, {"fault_profile": "stale_read"},
           {"fault_profile": "timeout_after_commit"})


def _reads(world) -> list:
    """Each pure read of the world with no arguments, and an invalid call."""
    out = [(t.name, b"{}") for t in world.tools if t.pure and not t.writes]
    return out + [(out[0][0], b'{"no_such_argument": 1}')] if out else out


def _play(engine: Engine, world, task, seed: int) -> list:
    start = engine.seeds.get(world, seed)
    setup, _ = engine.seeds.setup(world, task, start)
    reads = _reads(world)
    out = []
    for member in MEMBERS:
        req = schemas.CreateEpisode(task_id=task.id, seed=seed, signals=member.get("signals", False),
                                    fault_profile=member.get("fault_profile"))
        ep = engine.create(world.name, req)
        solution = setup.solution[: len(setup.solution) // 2] if member.get("half") else setup.solution
        calls = list(reads)
        for tool_name, args in solution:
            calls.append((tool_name, orjson.dumps(args)))
            calls += reads
        answers = [b"".join(ep.answer(t, a)) + b"}" for t, a in calls[: ep.step_limit]]
        ev = engine.submit(ep.id, setup.output)
        ev.pop("episode_id")
        out.append((answers, ep.trace.entries(), ep.digest, ev))
    return out


def _run_all(monkeypatch, cache: ReadCache) -> dict:
    monkeypatch.setattr(episode_module, "_READS", cache)
    engine = Engine()
    out = {}
    for world in registry().values():
        for task in world.tasks:
            for seed in (0, 1):
                out[(world.name, task.id, seed)] = _play(engine, world, task, seed)
    return out


@pytest.mark.slow
def test_same_answers_traces_digests_and_scores_with_and_without_the_cache(monkeypatch):
    cache = ReadCache()
    with_cache = _run_all(monkeypatch, cache)
    without = _run_all(monkeypatch, ReadCache(max_entries=0))
    assert with_cache.keys() == without.keys() and len(with_cache) >= 26
    for key in with_cache:
        assert with_cache[key] == without[key], key
    # ...and the cache was used: reads shared within groups and past the first writes.
    assert cache.hits > 0 and cache.derived_hits > 0
    # A pure read never failed for lack of context (ReadContext has only the store).
    for runs in with_cache.values():
        for answers, _trace, _digest, _ev in runs:
            assert not any(b'"code":"internal_error"' in a for a in answers)


def test_every_pure_read_of_every_world_runs_with_the_store_alone():
    engine = Engine()
    for world in registry().values():
        store = engine.seeds.get(world, 0).store
        for t in world.tools:
            if t.pure and not t.writes:
                try:
                    args = t.decoder.decode(b"{}")
                except msgspec.ValidationError:
                    continue  # needs arguments: covered by the reference runs above
                t.fn(ReadContext(store), args)  # raises AttributeError if it reads the clock or step


class _Args(msgspec.Struct):
    pass


def _clock_read(ctx, args):
    """Says the time: not a pure read, whatever it declares."""
    return {"now": ctx.at}


def test_a_read_that_wrongly_declares_itself_pure_fails_loudly_and_is_not_cached(monkeypatch):
    cache = ReadCache()
    monkeypatch.setattr(episode_module, "_READS", cache)
    base = registry()["dummy"]
    bad = tool(writes=False, pure=True, name="what_time")(_clock_read)
    world = dataclasses.replace(base, name="clockworld", tools=[*base.tools, bad], tasks=[])
    engine = Engine()
    monkeypatch.setattr("sw_runtime.engine.engine.get_world", lambda name: world)
    ep = engine.create("clockworld", schemas.CreateEpisode(seed=0))
    for _ in range(2):
        answer = orjson.loads(b"".join(ep.answer("what_time", b"{}")) + b"}")
        assert answer["ok"] is False and answer["error"]["code"] == "internal_error"
    assert cache.stored == 0


def test_memory_is_bounded():
    cache = ReadCache(max_entries=10, max_bytes=10**9)
    ident = object()
    for i in range(1000):
        cache.put((ident, "t", b"%d" % i), True, b"x" * 100)
    assert cache.stats()["entries"] <= 20
    assert cache.get((ident, "t", b"999")) == (True, b"x" * 100)
    assert cache.get((ident, "t", b"0")) is None
    by_bytes = ReadCache(max_entries=10**6, max_bytes=10_000)
    for i in range(1000):
        by_bytes.put((ident, "t", b"%d" % i), True, b"x" * 1000)
    assert by_bytes.stats()["entries"] <= 2 * 10


def test_a_hit_in_the_older_generation_is_kept():
    cache = ReadCache(max_entries=2)
    a = object()
    cache.put((a, "t", b"1"), True, b"one")
    cache.put((a, "t", b"2"), True, b"two")
    cache.put((a, "t", b"3"), True, b"three")  # the first two are now the older generation
    assert cache.get((a, "t", b"1")) == (True, b"one")  # promoted
    cache.put((a, "t", b"4"), True, b"four")
    cache.put((a, "t", b"5"), True, b"five")  # rotates: 1 survived in the newer generation
    assert cache.get((a, "t", b"1")) == (True, b"one")
