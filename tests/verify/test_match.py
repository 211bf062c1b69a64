"""The compiled matchers and the check evaluators built on them give what the
plain definitions give.

The ``plain_*`` functions below are the definitions as they were before the
fast paths (a dotted path split per record, a record copied to show its id,
each no_collateral rule matched per change, a generator over the calls, one
tally per rule). The fast paths are pinned to them on every check of every
task of every world, at the start and after each step of the task's reference
solution (and on the states the other tasks' solutions reach), and on edge
cases.
"""

from __future__ import annotations

import random

import orjson
import pytest

from sw_core_ext import Store
from sw_runtime.engine.episode import Episode
from sw_runtime.engine.users import ASK_USER
from sw_runtime.verify import checks as C
from sw_runtime.verify import evaluate as E
from sw_runtime.verify import score as S
from sw_runtime.verify.match import ALWAYS, Where, compiled, matching, where_matches
from sw_runtime.worlds import registry


def plain_matching(store, collection, where):
    out = []
    for rid, record in store.scan(collection):
        if where and "id" in where and "id" not in record:
            record_view = {**record, "id": rid}
        else:
            record_view = record
        if where_matches(record_view, where):
            out.append((rid, record))
    return out


def plain_allowed(c, op, collection, record):
    for rule in c.allow:
        if rule.collection == collection and op in rule.ops and where_matches(record, rule.where):
            return True
    return False


def plain_collateral(c, diff, start, end):
    mark = {"created": "+", "updated": "~", "removed": "-"}
    bad = []
    for collection, d in diff.items():
        for op in ("created", "updated", "removed"):
            for rid in d[op]:
                record = (start if op == "removed" else end).get(collection, rid)
                if not plain_allowed(c, op, collection, record or {}):
                    bad.append(f"{collection}[{mark[op]}{rid}]")
    return bad


def plain_no_collateral(c, f):
    bad = plain_collateral(c, f.diff, f.start, f.end)
    if bad:
        shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        return False, f"unexpected: {shown}"
    return True, "no changes beyond what the task requires"


def plain_count_calls(c, f):
    if c.arguments is None and c.result is None:
        n = sum(1 for tool, _ok, _m in f.calls if tool == c.action)
        return n, f"{c.action} called {n} time{'s' if n != 1 else ''}"
    return E._count_calls(c, f)  # filtered: read from the trace, unchanged


def plain_run_check(check, facts):
    kind = check.__struct_config__.tag
    if kind == "no_collateral":
        return plain_no_collateral(check, facts)
    if kind in ("action_called", "action_not_called"):
        n, detail = plain_count_calls(check, facts)
        return (None if n is None else (n > 0 if kind == "action_called" else n == 0)), detail
    was = E.matching, E._where_text
    E.matching, E._where_text = plain_matching, plain_where_text  # the evaluator's own code over the plain parts
    try:
        return E.EVALUATORS[kind](check, facts)
    finally:
        E.matching, E._where_text = was


def plain_where_text(where):
    return f" matching {orjson.dumps(where, option=orjson.OPT_SORT_KEYS).decode()}" if where else ""


def plain_tally(checks, passes, start_passes, rule):
    total = earned = 0.0
    top = max((c.weight for c in checks), default=1.0) or 1.0
    for check, passed, at_start in zip(checks, passes, start_passes):
        if S.is_scored(check, at_start, passed, rule):
            total += check.weight / top
            if passed is True:
                earned += check.weight / top
    return earned * top, total * top


def plain_weighted(checks, passes, start_passes, rule):
    all_pass = all(p is True for p in passes)
    earned, total = plain_tally(checks, passes, start_passes, rule)
    if total > 0:
        return round(earned / total, 2), all_pass
    return (1.0 if all_pass and checks else 0.0), all_pass


# -- the matcher alone -------------------------------------------------------------

RECORDS = [
    {}, {"id": "rq-08"}, {"id": "RQ-08-x", "status": "Declined"}, {"id": None}, {"status": "declined"},
    {"amount": 1}, {"amount": 1.0}, {"amount": True}, {"amount": False}, {"amount": 0}, {"amount": "1"},
    {"flag": True}, {"flag": 1}, {"flag": "true"}, {"tags": ["a", "B"]}, {"tags": []}, {"tags": "ab"},
    {"start": {"date": "2026-11-12"}}, {"start": "2026-11-12"}, {"start": {"date": None}},
    {"items": [{"sku": "X-1"}, {"sku": "y-2"}]}, {"items": {"0": {"sku": "x-1"}}}, {"items": []},
    {"name": "Straße"}, {"name": "STRASSE"}, {"a.b": 1}, {"a": {"b": 1}}, {"": 2},
    {"nested": {"list": [1, [2, 3]]}}, {"amount": None}, {"id": 5},
]

WHERES = [
    {}, {"id": "rq-08"}, {"id": "RQ"}, {"id": 5}, {"id": "rq-08", "status": "decl"}, {"status": "DECLINED"},
    {"amount": 1}, {"amount": 1.0}, {"amount": True}, {"amount": False}, {"amount": 0}, {"amount": None},
    {"flag": True}, {"flag": 1}, {"tags": ["a", "B"]}, {"tags": "a"}, {"start.date": "2026-11"},
    {"start.date": None}, {"items.0.sku": "x-1"}, {"items.1.sku": "Y"}, {"items.2.sku": "x"},
    {"items.0": {"sku": "X-1"}}, {"name": "strasse"}, {"name": "ß"}, {"a.b": 1}, {"": 2}, {"nested.list.1.0": 2},
    {"nested.list.-1": 1}, {"start.date.x": "2"}, {"id.0": "r"},
]


@pytest.mark.parametrize("where", WHERES, ids=[orjson.dumps(w).decode() for w in WHERES])
def test_a_compiled_where_matches_as_where_matches_does(where):
    matches = compiled(where)
    for record in RECORDS:
        assert matches(record) is where_matches(record, where), record
        view = {**record, "id": "rq-08"} if where and "id" in where and "id" not in record else record
        assert matches(record, "rq-08") is where_matches(view, where), record


def test_a_record_that_is_not_a_dict_takes_the_plain_rule():
    for where in WHERES:
        for record in ([["a"]], "text", 3, None, [{"sku": "x"}]):
            assert Where(where)(record) is where_matches(record, where)


def test_an_empty_where_matches_everything_and_wheres_are_compiled_once():
    assert compiled({}) is ALWAYS and compiled(None) is ALWAYS
    where = {"id": "x"}
    assert compiled(where) is compiled(where)


def test_select_and_rejects_keep_what_the_matcher_keeps():
    pairs = [(f"k{i}", record) for i, record in enumerate(RECORDS)] + [("rq-08", {}), ("RQ-9", {"n": 1}), ("x", ["id"])]
    for where in WHERES:
        matches = compiled(where)
        assert matches.select(pairs) == [p for p in pairs if matches(p[1], p[0])], where
        records = dict(pairs) | {"none": None, "zero": 0}
        ids = list(records)
        assert matches.rejects(ids, records.get) == [i for i in ids if not where_matches(records[i] or {}, where)]


def test_matching_gives_the_plain_pairs():
    store = Store({"r": {f"k{i}": rec for i, rec in enumerate(RECORDS)}})
    for where in WHERES:
        assert matching(store, "r", where) == plain_matching(store, "r", where)


# -- every check of every task of every world ------------------------------------------


def _states(world, start, setup, seed):
    """The start, then each step of the task's reference solution: ``(end store, calls, trace)``,
    each read before the next step runs."""
    calls = setup.solution
    ep = Episode(id="ep_reference", world=world, task=None, seed=seed, setup=None, checks=[], start_passes=[],
                 start=start, seed_digest="", agent_name=None, created_at="", step_limit=max(1, len(calls)),
                 clock=world.clock(max(1, len(calls))))
    yield start, [], None
    for name, arguments in calls:
        if name == ASK_USER:
            ep.steps += 1
            continue
        ep.answer(name, orjson.dumps(arguments))
        yield ep.store, ep.calls, ep.trace


def _wheres(check):
    if isinstance(check, C.NoCollateral):
        return [(rule.collection, rule.where) for rule in check.allow]
    where = getattr(check, "where", None)
    return [(check.collection, where)] if isinstance(where, dict) else []


def _same_as_plain(checks, start_passes, start, end, calls, trace, output) -> int:
    """Assert that every check, the scores and every matcher give the plain
    results on this state; answer how many records the matchers were tried on."""
    facts = E.Facts(start=start, end=end, calls=calls, output=output, trace=trace)
    passes = []
    for check in checks:
        got = E.run_check(check, facts)
        assert got == plain_run_check(check, facts), (check, len(calls))
        passes.append(got[0])
    for rule in S.RULES:
        ev = S.evaluate(checks, facts, start_passes, rule)
        assert ev["score"] == plain_weighted(checks, passes, start_passes, rule)[0]
        # items, not dicts: the answer's bytes follow the keys' order
        assert list(ev["scores"].items()) == [(r, plain_weighted(checks, passes, start_passes, r)[0]) for r in S.RULES]
        assert list(ev["denominators"].items()) == [(r, round(plain_tally(checks, passes, start_passes, r)[1], 4))
                                                    for r in S.RULES]
    looked = 0  # the matchers themselves, on every record of the state, not only those the checks reach
    for check in checks:
        for collection, where in _wheres(check):
            matches = compiled(where)
            for rid, record in end.scan(collection):
                view = {**record, "id": rid} if where and "id" in where and "id" not in record else record
                assert matches(record) is where_matches(record, where)
                assert matches(record, rid) is where_matches(view, where)
                looked += 1
    return looked


@pytest.mark.parametrize("world_name, seed", [(name, seed) for name in registry() for seed in (0, 7)])
def test_every_check_of_every_task_gives_the_plain_result(world_name, seed):
    """At the start and after each step of each task's reference solution; and
    each task's checks also on the states the other tasks' solutions reach,
    where its no_collateral rules meet changes they do not allow."""
    world = registry()[world_name]
    start = Store(world.generate(seed), collections=world.collections)
    tasks = []
    for task in world.tasks:
        setup = task.setup(start.fork())
        checks = [c for c in setup.checks if not isinstance(c, C.Rubric)]  # a judge's; never matched
        tasks.append((setup, checks, S.baseline(checks, start)))
    reached, looked = [], 0
    for setup, checks, start_passes in tasks:
        for end, calls, trace in _states(world, start, setup, seed):
            looked += _same_as_plain(checks, start_passes, start, end, calls, trace, setup.output)
            reached.append((end.fork(), list(calls)))
    for _setup, checks, start_passes in tasks:
        for end, calls in reached:
            looked += _same_as_plain(checks, start_passes, start, end, calls, None, "")
    assert looked > 0


def test_collateral_lists_what_the_plain_definition_lists():
    start = Store({"a": {f"r{i}": {"id": f"r{i}", "n": i % 3} for i in range(12)}, "b": {"x": {"n": 1}}})
    end = start.fork()
    rng = random.Random(5)
    for i in range(12, 30):
        end.insert("a", f"r{i}", {"id": f"r{i}", "n": i % 3})
    for i in rng.sample(range(12), 5):
        end.update("a", f"r{i}", {"n": 9})
    for i in rng.sample(range(12), 3):
        end.remove("a", f"r{i}")
    end.insert("b", "y", {"n": 2})
    diff = end.diff(start)
    rules = [C.Allow(collection="a", ops=["created"], where={"n": 1}), C.Allow(collection="a", ops=["removed"]),
             C.Allow(collection="b", ops=["updated", "created"], where={"id": "y"}),
             C.Allow(collection="a", ops=["updated"], where={"n": 9, "id": "r1"})]
    for k in range(len(rules) + 1):
        for chosen in ([rules[j] for j in rng.sample(range(len(rules)), k)] for _ in range(3)):
            check = C.no_collateral(*chosen)
            assert E.collateral(check, diff, start, end) == plain_collateral(check, diff, start, end)
            facts = E.Facts(start=start, end=end, calls=[], diff=diff)
            assert E.no_collateral(check, facts) == plain_no_collateral(check, facts)
            for collection, d in diff.items():
                for op, rids in d.items():
                    for rid in rids:
                        record = (start if op == "removed" else end).get(collection, rid) or {}
                        assert E.allowed(check, op, collection, record) is plain_allowed(check, op, collection, record)


def test_the_tallies_of_both_rules_are_the_per_rule_tallies():
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randrange(0, 7)
        checks = [C.OutputContains(value="x", weight=rng.choice([0.0, 0.5, 1.0, 2.0, 3.0, 1e6]),
                                   always_scored=rng.random() < 0.3) for _ in range(n)]
        passes = [rng.choice([True, False, None]) for _ in range(n)]
        start_passes = [rng.random() < 0.5 for _ in range(n)]
        for rule in S.RULES:
            assert S.weighted(checks, passes, start_passes, rule) == plain_weighted(checks, passes, start_passes, rule)
