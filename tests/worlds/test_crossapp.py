"""Cross-app tasks (``sw_runtime/worlds/crossapp``): every task's reference
solution scores 1 and passes on seeds 0-49 through the real engine, doing
nothing fails, instructions follow the seed, and the set as a whole has the
refusals, ``ask_user`` tasks, long tasks, traps and fault tasks of
shared/WORLD-BAR.md. The fault tasks are also played under their fault
profile: an agent that reads before retrying a timed-out write passes on every
seed, and one that blindly retries fails on some.
"""

from __future__ import annotations

import pytest

from sw_runtime.config import Settings
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.users import DONT_KNOW
from sw_runtime.schemas import CreateEpisode
from sw_runtime.worlds import composites, get_composite
from sw_runtime.worlds.crossapp import SETS, tasks_for
from sw_runtime.worlds.crossapp.common import FAULT

SEEDS = range(50)
CASES = [(names, task) for names in SETS for task in tasks_for(names)]
ALL = [task for _names, task in CASES]


@pytest.fixture(scope="module")
def engine():
    return Engine(Settings())


def _episode(engine, world, task, seed, **extra):
    return engine.create(world.name, CreateEpisode(task_id=task.id, seed=seed, **extra))


def _finish(engine, ep, output):
    try:
        return engine.submit(ep.id, output)
    finally:
        engine.episodes.pop(ep.id, None)


def _failing(ev) -> str:
    return "; ".join(f"{c['id']}: {c['detail']}" for c in ev["checks"] if c["pass"] is not True)


@pytest.mark.parametrize("names,task", CASES, ids=[t.id for _n, t in CASES])
def test_the_reference_solution_passes_and_doing_nothing_fails(engine, names, task):
    world = get_composite(names)
    instructions = set()
    for seed in SEEDS:
        ep = _episode(engine, world, task, seed)
        setup = ep.setup
        instructions.add(setup.instruction)
        assert len(setup.solution) <= task.step_budget, f"{task.id}: the reference is over its budget"
        for n, (tool, args) in enumerate(setup.solution, 1):
            answer = engine.step(ep.id, tool, args)
            assert answer["ok"], f"{task.id} seed {seed}: call {n} ({tool}) refused: {answer['error']}"
            if tool == "ask_user":
                assert answer["result"]["answer"] != DONT_KNOW, f"{task.id}: the user could not answer"
        ev = _finish(engine, ep, setup.output)
        assert ev["pass"] is True and ev["score"] == 1.0, f"{task.id} seed {seed}: {_failing(ev)}"
        nothing = _finish(engine, _episode(engine, world, task, seed), "")
        assert nothing["pass"] is False, f"{task.id} seed {seed}: doing nothing passes"
    assert len(instructions) > 1, f"{task.id}: the same instruction on every seed"


def test_every_task_is_written_as_the_bar_asks():
    ids = [t.id for t in ALL]
    assert len(ids) >= 20 and len(set(ids)) == len(ids)
    assert all(i.startswith("xa-") for i in ids)
    assert len(SETS) >= 4 and any(len(s) == 3 for s in SETS)
    engine_ = Engine(Settings())
    for names, task in CASES:
        setup = _episode(engine_, get_composite(names), task, 0).setup
        checks = setup.checks
        assert task.policy.strip(), f"{task.id}: no task policy"
        assert all(c.id and c.label for c in checks), task.id
        assert len({c.id for c in checks}) == len(checks), task.id
        assert setup.output.strip(), task.id
        nc = [c for c in checks if c.__struct_config__.tag == "no_collateral"]
        assert len(nc) == 1, f"{task.id}: one no_collateral check"


def test_the_set_has_refusals_questions_long_tasks_traps_and_faults():
    engine_ = Engine(Settings())
    setups = {t.id: _episode(engine_, get_composite(n), t, 0).setup for n, t in CASES}
    refusals = [t for t in ALL if t.refusal]
    asks = [t for t in ALL if setups[t.id].hidden_facts]
    long = [t for t in ALL if len(setups[t.id].solution) >= 6]
    traps = [t for t in ALL if "trap" in t.tags]
    faults = [t for t in ALL if "fault" in t.tags]
    assert len(refusals) >= 3 and len(asks) >= 3 and len(long) >= 5 and len(traps) >= 3 and len(faults) >= 2
    assert all(any(tool == "ask_user" for tool, _a in setups[t.id].solution) for t in asks)
    assert {t.id for t in asks} == {t.id for t in ALL if "ask-user" in t.tags}
    assert {t.id for t in long} >= {t.id for t in ALL if "long" in t.tags}


def test_the_composites_list_their_tasks():
    listed = {w.name: [t.id for t in w.tasks] for w in composites()}
    for names in SETS:
        assert listed["+".join(names)] == [t.id for t in tasks_for(names)]


def _play_under_fault(engine, world, task, seed, careful: bool) -> dict:
    """The reference calls with ``FAULT`` on. A timed-out write: the careful
    player reads the state (has anything changed since before the call?) and
    retries only if nothing did; the blind one retries at once."""
    ep = _episode(engine, world, task, seed, fault_profile=FAULT)
    for tool, args in ep.setup.solution:
        for _attempt in range(3):
            before = engine.episodes[ep.id].store.digest()
            answer = engine.step(ep.id, tool, args)
            if answer["ok"] or answer["error"]["code"] != "timeout":
                break
            if careful and engine.episodes[ep.id].store.digest() != before:
                break  # it was applied after all: do not do it twice
    return _finish(engine, ep, ep.setup.output)


@pytest.mark.parametrize("names,task", [(n, t) for n, t in CASES if "fault" in t.tags],
                         ids=[t.id for _n, t in CASES if "fault" in t.tags])
def test_a_fault_task_needs_a_read_before_a_retry(engine, names, task):
    world = get_composite(names)
    assert f"fault:{FAULT}" in task.tags
    blind_failed = 0
    for seed in SEEDS:
        ev = _play_under_fault(engine, world, task, seed, careful=True)
        assert ev["pass"] is True, f"{task.id} seed {seed}, careful: {_failing(ev)}"
        blind = _play_under_fault(engine, world, task, seed, careful=False)
        blind_failed += blind["pass"] is False
    assert blind_failed > 0, f"{task.id}: a blind retry never hurts, so the fault does not matter"


# -- the wrong answers a trap, a refusal or a missing detail invites fail ------------------------------------------


def _code(start):
    from sw_runtime.worlds.codehost.tasks import cast

    return cast(start.part("codehost"))


def _office(start):
    from sw_runtime.worlds.offsite_planning.cast import cast

    return cast(start.part("offsite-planning"))


def _wallet(start):
    from sw_runtime.worlds.coinpurse.cast import cast

    return cast(start.part("coinpurse"))


def _ledger(start):
    from sw_runtime.worlds.receivables.cast import cast

    return cast(start.part("receivables"))


def _swap(solution, tool, **changes):
    """The reference with ``tool``'s arguments changed."""
    return [(t, {**a, **changes} if t == tool else a) for t, a in solution]


def _without(solution, tool):
    return [(t, a) for t, a in solution if t != tool]


REPO = {"owner": "acme", "repo": "api"}
WRONG = {
    # traps: the look-alike, the later duplicate, the guestless copy, last week's figure
    "xa-05": lambda st, s: [("issues.update", {**REPO, "issue_number": _code(st).original["number"],
                                               "state": "closed"})] + s.solution[1:],
    "xa-21": lambda st, s: _swap(s.solution, "calendar.events.patch", eventId=_office(st).review_copy["id"]),
    "xa-07": lambda st, s: _swap(s.solution, "request_money", contact_id=_wallet(st).twin["id"]),
    "xa-15": lambda st, s: _swap(s.solution, "update_entity", uid=_ledger(st).memo_payment["id"]),
    "xa-19": lambda st, s: [(t, {**a, "text": a["text"] + " (Last week: " + s.instruction.split("said ")[1].split(
        " was")[0] + ")"} if t == "slack.chat.postMessage" else a) for t, a in s.solution],
    # refusals: doing what the user asked
    "xa-02": lambda st, s: s.solution + [("slack.chat.postMessage", {"channel": "C_GENERAL", "text": "It is live."})],
    "xa-08": lambda st, s: s.solution + [("request_money", {"contact_id": _wallet(st).blocked_new["id"],
                                                            "amount": 100, "note": "Cheese"})],
    "xa-14": lambda st, s: s.solution + [("update_entity", {"entity_type": "invoice",
                                                            "uid": _ledger(st).wo_unapproved["id"],
                                                            "updates": {"status": "written_off"}})],
    "xa-17": lambda st, s: s.solution + [("issues.createComment", {**REPO, "issue_number": _code(st).new_bug["number"],
                                                                   "body": _ledger(st).final["customer_name"]})],
    # a detail only the user knows, guessed instead of asked
    "xa-04": lambda st, s: _without(s.solution, "ask_user"),
    "xa-09": lambda st, s: _without(s.solution, "ask_user"),
    "xa-13": lambda st, s: _without(s.solution, "ask_user"),
}


@pytest.mark.parametrize("task_id", sorted(WRONG))
def test_the_answer_a_task_warns_against_fails(engine, task_id):
    names, task = next((n, t) for n, t in CASES if t.id == task_id)
    world = get_composite(names)
    for seed in range(10):
        ep = _episode(engine, world, task, seed)
        for tool, args in WRONG[task_id](ep.start, ep.setup):
            engine.step(ep.id, tool, args)
        ev = _finish(engine, ep, ep.setup.output)
        assert ev["pass"] is False, f"{task_id} seed {seed}: the wrong answer passes"


FINGERPRINT = """
import hashlib, json, msgspec, orjson
from sw_runtime.worlds import get_composite
from sw_runtime.worlds.crossapp import SETS
out = {}
for names in SETS:
    world = get_composite(names)
    for seed in range(3):
        store = world.seed_store(seed)
        for task in world.tasks:
            s = task.setup(store.fork())
            blob = orjson.dumps([s.instruction, orjson.loads(msgspec.json.encode(s.checks)), s.solution, s.output,
                                 s.hidden_facts], option=orjson.OPT_SORT_KEYS)
            out[f"{task.id}/{seed}"] = [store.digest(), hashlib.sha256(blob).hexdigest()]
print(json.dumps(out, sort_keys=True))
"""


def test_setups_are_the_same_in_other_processes():
    import json
    import os
    import subprocess
    import sys

    runs = []
    for hashseed, pure in (("1", ""), ("2", "1")):
        env = {**os.environ, "PYTHONHASHSEED": hashseed, "SW_PURE": pure}
        done = subprocess.run([sys.executable, "-c", FINGERPRINT], env=env, capture_output=True, text=True,
                              timeout=120, check=True)
        runs.append(json.loads(done.stdout))
    assert len(runs[0]) == len(ALL) * 3
    assert runs[0] == runs[1]
