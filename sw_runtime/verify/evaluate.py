"""Scoring an episode's end state, trace and output against its checks.

Each check kind has one function ``(check, facts) -> (passed, detail)``.
``passed`` is True, False or None (undecided: counts as not passed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from operator import countOf, itemgetter

import orjson

from . import checks as C
from .match import ALWAYS, MISSING, compiled, get_path, matching, value_matches


@dataclass
class Facts:
    """Everything a check may look at."""

    start: object  # Store at the start of the episode
    end: object  # Store now
    calls: list  # [(tool, ok, mutated), ...] in trace order
    output: str = ""
    diff: dict = field(default=None)
    judge: object = None  # callable(check, facts) -> (passed, detail), or None
    # What action checks with argument/result filters read: anything whose calls() yields
    # (tool, args_json, ok, payload_json) per call in order (the engine's Trace).
    trace: object = None

    def __post_init__(self):
        if self.diff is None:
            self.diff = self.end.diff(self.start)


def _j(value) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _where_text(where) -> str:
    return f" matching {compiled(where).json()}" if where else ""


def _writes(diff: dict, collection) -> int:
    cols = [collection] if collection else list(diff)
    n = 0
    for name in cols:
        d = diff.get(name)
        if d:
            n += len(d["created"]) + len(d["updated"]) + len(d["removed"])
    return n


def record_exists(c, f):
    n = len(matching(f.end, c.collection, c.where))
    return n > 0, f"{n} record{'s' if n != 1 else ''} in {c.collection}{_where_text(c.where)}"


def record_absent(c, f):
    n = len(matching(f.end, c.collection, c.where))
    return n == 0, f"{n} record{'s' if n != 1 else ''} in {c.collection}{_where_text(c.where)}"


def _field_check(c, f, test, verb):
    found = matching(f.end, c.collection, c.where)
    if not found:
        return False, f"no record in {c.collection}{_where_text(c.where)}"
    seen = []
    for rid, record in found:
        actual = get_path(record, c.field)
        if actual is not MISSING and test(actual, c.value):
            return True, f"{c.collection}[{rid}] has {c.field} {verb} {_j(c.value)}"
        seen.append("missing" if actual is MISSING else _j(actual))
    shown = ", ".join(seen[:3]) + (" …" if len(seen) > 3 else "")
    return False, f"no record in {c.collection}{_where_text(c.where)} has {c.field} {verb} {_j(c.value)} (found {shown})"


def value_equals(actual, expected) -> bool:
    """field_equals' rule for one value (signals test records one at a time with it too)."""
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    return actual == expected


def value_contains(actual, expected) -> bool:
    """field_contains' rule for one value."""
    if isinstance(actual, list):
        return any(value_equals(x, expected) or value_matches(x, expected) for x in actual)
    if isinstance(actual, str) and isinstance(expected, str):
        return expected.casefold() in actual.casefold()
    return value_equals(actual, expected)


def field_equals(c, f):
    return _field_check(c, f, value_equals, "equal to")


def field_contains(c, f):
    return _field_check(c, f, value_contains, "containing")


def write_count(c, f):
    n = _writes(f.diff, c.collection)
    ok = (c.min is None or n >= c.min) and (c.max is None or n <= c.max)
    where = f" to {c.collection}" if c.collection else ""
    bounds = f"{c.min if c.min is not None else 0}..{c.max if c.max is not None else '∞'}"
    return ok, f"{n} write{'s' if n != 1 else ''}{where} (allowed {bounds})"


def no_writes(c, f):
    n = _writes(f.diff, c.collection)
    where = f" to {c.collection}" if c.collection else ""
    return n == 0, f"{n} write{'s' if n != 1 else ''}{where}"


def _filtered_calls(c, f):
    """How many calls to ``c.action`` match its arguments/result filters; None
    when there is no trace to read them from."""
    if f.trace is None:
        return None
    return sum(1 for tool, args_json, ok, payload_json in f.trace.calls()
               if tool == c.action and call_matches(c, args_json, ok, payload_json))


def call_matches(c, args_json: bytes, ok: bool, payload_json: bytes) -> bool:
    """Whether one call (its arguments and answer as JSON) passes the
    ``arguments``/``result`` filters of the action check ``c``."""
    if c.result is not None and not ok:
        return False  # a refused call has no result to match
    if c.arguments is not None and not _call_matches(_json(args_json), c.arguments):
        return False
    return c.result is None or _call_matches(_json(payload_json), c.result)


def _json(data: bytes):
    try:
        return orjson.loads(data)
    except (orjson.JSONDecodeError, RecursionError):
        return None  # unreadable arguments match no filter


def _call_matches(value, where: dict) -> bool:
    for path, expected in where.items():
        actual = get_path(value, path) if isinstance(value, dict) else MISSING
        if actual is MISSING:
            return False
        items = actual if isinstance(actual, list) and not isinstance(expected, list) else [actual]
        if not any(value_matches(x, expected) for x in items):
            return False
    return True


_TOOL = itemgetter(0)


def _count_calls(c, f):
    if c.arguments is None and c.result is None:
        n = countOf(map(_TOOL, f.calls), c.action)
        return n, f"{c.action} called {n} time{'s' if n != 1 else ''}"
    n = _filtered_calls(c, f)
    filters = {k: v for k, v in (("arguments", c.arguments), ("result", c.result)) if v is not None}
    if n is None:
        return None, "undecided: no trace to match the call's arguments or result against"
    return n, f"{c.action} called {n} time{'s' if n != 1 else ''} with {_j(filters)}"


def action_called(c, f):
    n, detail = _count_calls(c, f)
    return (None if n is None else n > 0), detail


def action_not_called(c, f):
    n, detail = _count_calls(c, f)
    return (None if n is None else n == 0), detail


def output_contains(c, f):
    ok = c.value.casefold() in f.output.casefold()
    return ok, f"output {'contains' if ok else 'does not contain'} {_j(c.value)}"


def output_equals(c, f):
    ok = f.output == c.value
    return ok, "output equals the expected text" if ok else f"output is {_j(f.output[:80])}"


def rubric(c, f):
    if f.judge is None:
        return None, "undecided: no judge model is configured (set SW_JUDGE_URL and SW_JUDGE_MODEL)"
    return f.judge(c, f)


def allowed(c, op, collection, record) -> bool:
    """Whether a rule of the no_collateral check ``c`` allows this change."""
    for rule in c.allow:
        if rule.collection == collection and op in rule.ops and compiled(rule.where)(record):
            return True
    return False


def _allows(c) -> dict:
    """``(collection, op) -> [matcher, ...]``: the rules of the no_collateral
    check ``c`` by the changes they may allow."""
    out = {}
    for rule in c.allow:
        matches = compiled(rule.where)
        for op in rule.ops:
            out.setdefault((rule.collection, op), []).append(matches)
    return out


_OPS = ("created", "updated", "removed")
_MARK = {"created": "+", "updated": "~", "removed": "-"}


def _unallowed(c, diff, start, end):
    """The changes in ``diff`` that no rule of the no_collateral check ``c``
    allows, in the diff's order, as ``(collection, op, ids)`` runs."""
    rules = _allows(c)
    for collection, d in diff.items():
        for op in _OPS:
            rids = d[op]
            tests = rules.get((collection, op))
            if not rids or (tests and ALWAYS in tests):  # a rule without a where allows every such change
                continue
            if not tests:  # nothing may change here: every id, without reading a record
                yield collection, op, rids
                continue
            get = partial((start if op == "removed" else end).get, collection)
            if len(tests) > 1:  # each rule reads what the ones before it rejected: read the records once
                get = dict(zip(rids, map(get, rids))).__getitem__
            bad = rids
            for matches in tests:
                bad = matches.rejects(bad, get)
            if bad:
                yield collection, op, bad


def collateral(c, diff, start, end) -> list:
    """Changes in ``diff`` that no rule of a no_collateral check allows,
    as ``collection[+id]`` (created), ``[~id]`` (updated), ``[-id]`` (removed)."""
    return [f"{collection}[{_MARK[op]}{rid}]" for collection, op, rids in _unallowed(c, diff, start, end)
            for rid in rids]


def no_collateral(c, f):
    shown, n = [], 0
    for collection, op, rids in _unallowed(c, f.diff, f.start, f.end):
        shown += [f"{collection}[{_MARK[op]}{rid}]" for rid in rids[:5 - len(shown)]]  # the detail names 5
        n += len(rids)
    if n:
        return False, f"unexpected: {', '.join(shown)}" + (f" and {n - 5} more" if n > 5 else "")
    return True, "no changes beyond what the task requires"


EVALUATORS = {
    "record_exists": record_exists,
    "record_absent": record_absent,
    "field_equals": field_equals,
    "field_contains": field_contains,
    "write_count": write_count,
    "no_writes": no_writes,
    "action_called": action_called,
    "action_not_called": action_not_called,
    "output_contains": output_contains,
    "output_equals": output_equals,
    "rubric": rubric,
    "no_collateral": no_collateral,
}
assert set(EVALUATORS) == set(C.KINDS), "every check kind needs an evaluator"


def run_check(check, facts: Facts):
    return EVALUATORS[check.__struct_config__.tag](check, facts)
