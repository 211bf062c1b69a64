"""The read cache: pure reads answered once per state, with answers, traces,
digests and scores byte for byte what the same calls give without it."""

from __future__ import annotations

import dataclasses
import random

import msgspec
import orjson
import pytest

from sw_runtime import schemas
from sw_runtime.engine import episode as episode_module
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.read_cache import ReadCache
from sw_runtime.worlds import registry
from sw_runtime.worlds.tool import ReadContext, UndeclaredRead, tool

# The members of one group on a (task, seed): the plain ones step the same
# calls (a GRPO group); one stops half-way and only reads; one has signals;
# one has faults, which must never be served from the cache.
MEMBERS = ({}, {}, {"half": True}, {"signals": True}, {"fault_profile": "stale_read"},
           {"fault_profile": "timeout_after_commit"})


@pytest.fixture(autouse=True)
def _core_bound_again():
    """After each test (and its monkeypatch undone), the core's bookkeeping
    uses the episode module's read cache again."""
    yield
    episode_module.bind_core()


def _use(monkeypatch, cache: ReadCache) -> None:
    """Episodes' calls go through ``cache``: the episode module's and the core's reference."""
    monkeypatch.setattr(episode_module, "_READS", cache)
    episode_module.bind_core()


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
    _use(monkeypatch, cache)
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


def _coinpurse_calls(store, rng: random.Random, n: int) -> list:
    """``n`` calls in the bench's mix: 40 % get_balance, 30 % list_requests,
    30 % writes (payments, requests paid or declined, money asked, contacts
    added), with the other listings now and then: writes to other
    collections come between reads of one."""
    contacts = [c["id"] for _, c in store.scan("contacts")]
    requests = [r["id"] for _, r in store.scan("requests")]
    out = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.4:
            call = ("get_balance", {})
        elif roll < 0.7:
            call = ("list_requests", rng.choice(({}, {"status": "pending"}, {"status": "paid"})))
        elif roll < 0.78:
            call = (rng.choice(("list_transactions", "list_contacts", "list_outgoing_requests")), {})
        else:
            write = rng.choice(("send_money", "send_money", "pay_request", "decline_request", "request_money",
                                "add_contact"))
            if write in ("send_money", "request_money"):
                args = {"contact_id": rng.choice(contacts), "amount": rng.randrange(100, 3000), "note": f"n{i}"}
            elif write == "add_contact":
                args = {"handle": f"@new-{rng.randrange(4)}", "name": "New Person"}
            else:
                args = {"request_id": rng.choice(requests)}
            call = (write, args)
        out.append((call[0], orjson.dumps(call[1])))
    return out


def _group(engine: Engine, task, seed: int) -> list:
    """A GRPO-like group on one (task, seed): four episodes step the same
    calls, two take the same first eight and then their own."""
    world = registry()["coinpurse"]
    first = engine.create("coinpurse", schemas.CreateEpisode(task_id=task.id, seed=seed))
    same = _coinpurse_calls(first.store, random.Random(seed), first.step_limit)
    plans = [same] * 4 + [same[:8] + _coinpurse_calls(first.store, random.Random(100 + k), first.step_limit)
                          for k in range(2)]
    out = []
    for k, calls in enumerate(plans):
        ep = first if k == 0 else engine.create(world.name, schemas.CreateEpisode(task_id=task.id, seed=seed))
        answers = [b"".join(ep.answer(t, a)) + b"}" for t, a in calls[: ep.step_limit]]
        out.append((answers, ep.trace.entries(), ep.digest))
    return out


def test_a_group_mixing_reads_and_writes_to_other_collections_gets_the_answers_it_gets_without_the_cache(
        monkeypatch):
    world = registry()["coinpurse"]
    runs = {}
    for cache in (ReadCache(), ReadCache(max_entries=0)):
        _use(monkeypatch, cache)
        engine = Engine()
        runs[cache.enabled] = {(task.id, seed): _group(engine, task, seed)
                               for task in world.tasks[:3] for seed in (0, 1)}
        if cache.enabled:
            used = cache
    assert runs[True] == runs[False]
    assert used.hits > used.misses and used.derived_hits > 0
    for group in runs[True].values():
        for answers, _trace, _digest in group:
            assert not any(b'"code":"internal_error"' in a for a in answers)
            assert sum(b'"ok":true' in a for a in answers) > len(answers) // 2  # the mix mostly works


def test_a_write_to_another_collection_leaves_a_declared_read_cached(monkeypatch):
    cache = ReadCache()
    _use(monkeypatch, cache)
    ep = Engine().create("coinpurse", schemas.CreateEpisode(seed=3))
    contact = ep.store.scan("contacts")[0][0]
    _step(ep, "list_requests")
    _step(ep, "get_balance")
    hits = cache.hits
    pay = _step(ep, "send_money", orjson.dumps({"contact_id": contact, "amount": 100, "note": "lunch"}))
    assert pay["ok"] is True  # it wrote account and transactions, not requests
    _step(ep, "list_requests")
    assert cache.hits == hits + 1
    balance = _step(ep, "get_balance")
    assert cache.hits == hits + 1  # the account changed: computed again, and right
    assert balance["result"]["balance"] == pay["result"]["balance"]


def test_writes_are_remembered_for_other_stores_only_while_another_store_holds_the_state(monkeypatch):
    cache = ReadCache()
    _use(monkeypatch, cache)
    engine = Engine()
    a, b = (engine.create("coinpurse", schemas.CreateEpisode(seed=3)) for _ in range(2))
    contact = a.store.scan("contacts")[0][0]
    pay = orjson.dumps({"contact_id": contact, "amount": 100, "note": "lunch"})
    # A group stepping in turns (as a trainer's batch does): b follows a at every write.
    for n in range(3):
        assert _step(a, "send_money", pay)["ok"] and _step(b, "send_money", pay)["ok"]
        assert a.store.identity is b.store.identity and a.state_shared == [True]
    assert cache.stats()["derived_states"] == 3 and cache.stats()["transitions"] == 3
    hits = cache.hits
    _step(a, "get_balance")
    _step(b, "get_balance")
    assert cache.hits == hits + 1  # one computation for both
    # A state that one store alone holds: its first write is remembered (someone
    # might follow), the ones after it are not.
    lone = engine.create("coinpurse", schemas.CreateEpisode(seed=4))
    _step(lone, "send_money", pay)
    assert cache.stats()["transitions"] == 4 and lone.state_shared == [False]
    _step(lone, "send_money", pay)
    _step(lone, "send_money", pay)
    assert cache.stats()["transitions"] == 4 and lone.state_shared is None
    # A fork holds its source's state: the same next write on both is shared again.
    _src, (twin,) = engine.fork(lone.id, 1)
    assert lone.state_shared[0] and twin.state_shared[0]
    _step(lone, "send_money", pay)
    _step(twin, "send_money", pay)
    assert lone.store.identity is twin.store.identity and cache.stats()["derived_states"] == 4


def _reads_the_wrong_collection(ctx, args):
    """Counts the items, while declaring that it reads only notes."""
    return {"items": len(ctx.store.scan("items"))}


def _reads_what_it_declares(ctx, args):
    """Counts the notes."""
    return {"notes": len(ctx.store.scan("notes"))}


def test_a_pure_read_that_reads_a_collection_it_does_not_declare_fails_on_a_miss(monkeypatch):
    cache = ReadCache()
    _use(monkeypatch, cache)
    base = registry()["dummy"]
    wrong = tool(writes=False, pure=True, reads=("notes",), name="count_items")(_reads_the_wrong_collection)
    right = tool(writes=False, pure=True, reads=("notes",), name="count_notes")(_reads_what_it_declares)
    world = dataclasses.replace(base, name="notesworld", collections=("items", "notes"), state_schema=None,
                                tools=[*base.tools, wrong, right], tasks=[])
    store = Engine().seeds.get(world, 0).store
    with pytest.raises(UndeclaredRead):
        wrong.fn(ReadContext(store), None)
    ep = _episode_in(monkeypatch, world)
    for _ in range(2):
        answer = _step(ep, "count_items")
        assert answer["ok"] is False and answer["error"]["code"] == "internal_error"
    assert cache.stored == 0
    answer = _step(ep, "count_notes")
    assert answer["ok"] is True and answer["result"] == {"notes": 0} and cache.stored == 1


def _episode_in(monkeypatch, world):
    """An episode of ``world``, a test world the registry does not have."""
    monkeypatch.setattr("sw_runtime.engine.engine.world_of", lambda name, names: world)
    return Engine().create(world.name, schemas.CreateEpisode(seed=0))


def _step(ep, tool_name: str, args_json: bytes = b"{}") -> dict:
    return orjson.loads(b"".join(ep.answer(tool_name, args_json)) + b"}")


class _Args(msgspec.Struct):
    pass


def _clock_read(ctx, args):
    """Says the time: not a pure read, whatever it declares."""
    return {"now": ctx.at}


def test_a_read_that_wrongly_declares_itself_pure_fails_loudly_and_is_not_cached(monkeypatch):
    cache = ReadCache()
    _use(monkeypatch, cache)
    base = registry()["dummy"]
    bad = tool(writes=False, pure=True, name="what_time")(_clock_read)
    world = dataclasses.replace(base, name="clockworld", tools=[*base.tools, bad], tasks=[])
    ep = _episode_in(monkeypatch, world)
    for _ in range(2):
        answer = _step(ep, "what_time")
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
