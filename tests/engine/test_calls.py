"""A call's bookkeeping (``sw_core_ext.calls``): the compiled module and its
pure-Python twin, side by side on the same calls, give the same answers byte
for byte, the same trace rows, counts, byte meter, tally and action-log
records, and the same refusals in the same slots.

The compiled module is imported directly (``sw_core_ext._calls``), not
through ``sw_core_ext.calls``, which would quietly fall back to the twin: if
it is not built, this test errors (build it with ``setup.py build_ext``).
"""

from __future__ import annotations

import dataclasses
import importlib

import msgspec
import orjson
import pytest

from sw_runtime import errors, schemas
from sw_runtime.engine import engine as engine_module
from sw_runtime.engine import episode as episode_module
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.episode import Episode
from sw_runtime.engine.read_cache import ReadCache
from sw_runtime.engine.trace import Trace
from sw_runtime.engine.users import ASK_USER
from sw_runtime.worlds import registry
from sw_runtime.worlds.tool import Refused

IMPLEMENTATIONS = {"cython": "sw_core_ext._calls", "python": "sw_core_ext._calls_py"}
MEMBERS = ({}, {"signals": True}, {"fault_profile": "stale_read"}, {"fault_profile": "timeout_after_commit"},
           {"fault_profile": "rate_limited"}, {"mode": "sandbox"})
_encode = msgspec.json.encode


@pytest.fixture(autouse=True)
def _core_bound_again():
    yield
    episode_module.bind_core()


def _use(monkeypatch, impl, direct: bool = True) -> None:
    """Run every call through ``impl``, with a read cache of its own;
    ``direct``: reading the episode's, trace's and call's slots directly."""
    cache = ReadCache()
    monkeypatch.setattr(episode_module, "_READS", cache)
    classes = (Episode, Trace, schemas.Call) if direct else ()
    impl.bind(cache, errors.ApiError, ASK_USER, episode_module.log, *classes)
    monkeypatch.setattr(Episode, "answer", impl.answer)
    monkeypatch.setattr(engine_module, "_calls", impl)
    monkeypatch.setattr(engine_module, "_args_json", impl.args_json)


def _call(eid, tool, args=b"{}", dry_run=False):
    return schemas.Call(episode_id=eid, tool=tool, arguments=msgspec.Raw(args), dry_run=dry_run)


def _workload() -> dict:
    """Every world's reference solutions as /batch calls (seeds 0 and 1, the
    first two tasks, with signals, faults and a sandbox), and every odd call
    the bookkeeping words: what each left behind."""
    engine = Engine()
    engine.journal = []
    answers, eps, n = [], [], 0

    def create(world, req):
        nonlocal n
        n += 1
        ep = engine.create(world, req, episode_id=f"ep_0_test_{n:020x}")
        eps.append(ep)
        return ep

    for world in registry().values():
        for task in world.tasks[:2]:
            for seed in (0, 1):
                start = engine.seeds.get(world, seed)
                setup, _ = engine.seeds.setup(world, task, start)
                for member in MEMBERS:
                    ep = create(world.name, schemas.CreateEpisode(task_id=task.id, seed=seed, **member))
                    calls = []
                    for name, args in setup.solution:
                        calls.append(_call(ep.id, name, orjson.dumps(args)))
                        calls.append(_call(ep.id, name, orjson.dumps(args)))  # again: refused, or the same read
                    answers.append(engine.batch_json(calls[: ep.step_limit]))
    # The odd calls, on coinpurse and on a task whose user knows hidden facts.
    coin = create("coinpurse", schemas.CreateEpisode(seed=3))
    airline = registry()["airline"]
    asking = next(t for t in airline.tasks
                  if engine.seeds.setup(airline, t, engine.seeds.get(airline, 0))[0].hidden_facts)
    user = create("airline", schemas.CreateEpisode(task_id=asking.id, seed=0))
    closed = create("coinpurse", schemas.CreateEpisode(seed=4))
    engine.submit(closed.id)
    short = create("coinpurse", schemas.CreateEpisode(seed=5))
    engine.limit(short, 2, 60.0, 600.0)
    capped = create("coinpurse", schemas.CreateEpisode(seed=6))
    capped.args_cap = 8
    big = orjson.dumps({"note": "x" * 100})
    odd = [
        _call(coin.id, "no_such_tool", b'{"x": 1}'),
        _call(coin.id, "get_balance", b'{"x":'),  # not JSON
        _call(coin.id, "get_balance", b"[" * 5000 + b"]" * 5000),  # nested past the decoder
        _call(coin.id, "send_money", b'{"contact_id": "nobody", "amount": 1, "note": "hi"}'),
        _call(coin.id, "list_requests", big),
        _call(coin.id, "get_balance", dry_run=True),
        schemas.Call(episode_id=coin.id, tool="get_balance", arguments={}),  # Python arguments, not Raw
        errors.InvalidJson("a call that could not be decoded", episode_id=coin.id),
        _call("ep_0_test_nobody", "get_balance"),
        _call(closed.id, "get_balance"),
        _call(short.id, "get_balance"), _call(short.id, "get_balance"), _call(short.id, "get_balance"),
        _call(capped.id, "list_requests", big), _call(capped.id, "get_balance", b"{}"),
        _call(user.id, ASK_USER, b'{"question": "what is your date of birth?"}'),
        _call(user.id, ASK_USER, b'{"nope": 1}'),
        _call(user.id, ASK_USER, b"[1"),
    ]
    # A call by a tool's alias (its declared dotted name) is the call by its served name.
    world, alias, tool = next((w, name, t) for w in registry().values() for name, t in w.tools_by_name.items()
                              if name != t.name and t.pure and not t.writes)
    aliased = create(world.name, schemas.CreateEpisode(seed=0))
    odd += [_call(aliased.id, alias), _call(aliased.id, tool.name), _call(aliased.id, alias)]
    answers.append(engine.batch_json(odd))
    answers.append(engine.batch_json(odd, project="someone-else"))
    answers.append(engine.step_json(coin.id, "get_balance", b"{}"))
    answers.append(engine.step_json(coin.id, "no_such_tool", b"{}"))
    try:
        engine.step_json(short.id, "get_balance", b"{}")
    except errors.ApiError as e:
        answers.append(_encode(e.envelope()))
    # A tool whose answer is not JSON (a bug in a world), and one that fails.
    world = registry()["coinpurse"]
    broken = dataclasses.replace(world.tools_by_name["get_balance"], fn=lambda ctx, args: {"x": object()})
    failing = dataclasses.replace(world.tools_by_name["list_contacts"], fn=lambda ctx, args: 1 / 0)
    refusing = dataclasses.replace(world.tools_by_name["list_requests"],
                                   fn=lambda ctx, args: (_ for _ in ()).throw(Refused("nope", "no")))
    fresh = create("coinpurse", schemas.CreateEpisode(seed=7))  # no read of its state cached yet
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(world.tools_by_name, "get_balance", broken)
        mp.setitem(world.tools_by_name, "list_contacts", failing)
        mp.setitem(world.tools_by_name, "list_requests", refusing)
        answers.append(engine.batch_json([_call(fresh.id, "get_balance"), _call(fresh.id, "list_contacts"),
                                          _call(fresh.id, "list_requests")]))
    # Past the live byte budget: refused, before the call runs.
    engine.settings = dataclasses.replace(engine.settings, max_live_bytes=1)
    answers.append(engine.batch_json([_call(coin.id, "get_balance")]))
    try:
        engine.step_json(coin.id, "get_balance", b"{}")
    except errors.ApiError as e:
        answers.append(_encode(e.envelope()))
    return {
        "answers": answers,
        "episodes": [(ep.id, ep.steps, ep.digest, ep.calls, ep.write_steps, ep.tool_errors, ep.nbytes,
                      ep.trace.rows, ep.trace.entries(), dict(ep.last_results)) for ep in eps],
        "meter": engine.meter[0],
        "tally": engine.tally.snapshot(),
        "journal": _encode([r for r in engine.journal if r[0] == "s"]),
    }


def test_the_compiled_bookkeeping_and_its_twin_leave_the_same_things_behind(monkeypatch):
    runs = {}
    for name, module, direct in (("cython", IMPLEMENTATIONS["cython"], True), ("python", IMPLEMENTATIONS["python"], True),
                                 ("cython, generic lookups", IMPLEMENTATIONS["cython"], False)):
        impl = importlib.import_module(module)  # the compiled one unbuilt: an error, not a skip
        _use(monkeypatch, impl, direct)
        runs[name] = _workload()
        monkeypatch.undo()
    python = runs["python"]
    for name in ("cython", "cython, generic lookups"):
        cython = runs[name]
        assert cython["answers"] == python["answers"], name
        for a, b in zip(cython["episodes"], python["episodes"]):
            assert a == b, (name, a[0])
        assert cython["meter"] == python["meter"] and cython["tally"] == python["tally"], name
        assert cython["journal"] == python["journal"], name
    # ...and the workload reached what it meant to.
    odd = orjson.loads(python["answers"][-8])["results"]
    codes = [r.get("error", {}).get("code") for r in odd]
    assert codes[:4] == ["unknown_tool", "invalid_arguments", "invalid_arguments", "not_found"], codes
    assert "episode_closed" in codes and "step_limit" in codes and "invalid_json" in codes, codes
    assert odd[5]["dry_run"] is True and odd[6]["ok"] is True and odd[15]["ok"] is True  # ask_user answered
    assert python["tally"]["refusals"] and python["tally"]["steps"]["coinpurse"] > 50
    assert b'"not_found"' in python["answers"][-7]  # another project's episodes are not there
    broken = orjson.loads(python["answers"][-3])["results"]
    assert [r["error"]["code"] for r in broken] == ["internal_error", "internal_error", "nope"]
    assert b"rate_limited" in python["answers"][-2] and b"rate_limited" in python["answers"][-1]
    rows = [row for ep in python["episodes"] for row in ep[7]]
    assert any(b"unrecorded_arguments" in row[3] for row in rows)
    assert any(row[9] is not None for row in rows) and any(row[10] is not None for row in rows)
    served = odd[-3:]
    assert served[0]["tool"] == served[1]["tool"] == served[2]["tool"] != served[0]["tool"].replace("_", ".")


def test_the_compiled_bookkeeping_reads_the_episode_trace_and_call_slots_directly():
    # A field that stops being a plain slot (a property, a dict attribute) would
    # quietly make every call take generic lookups: still right, but slower.
    compiled = importlib.import_module(IMPLEMENTATIONS["cython"])
    compiled.bind(episode_module._READS, errors.ApiError, ASK_USER, episode_module.log, Episode, Trace, schemas.Call)
    assert compiled.direct() == ("Episode", "Trace", "Call")


def test_the_core_opens_steps_on_the_status_the_engine_calls_open():
    for module in IMPLEMENTATIONS.values():
        assert importlib.import_module(module).OPEN == episode_module.OPEN
