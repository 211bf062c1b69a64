"""Dense training signals, computed after each step of a ``signals: true`` episode.

- ``progress``: the task's own score (weighted share of scored checks that
  pass, under the episode's scoring rule) if the episode were submitted now
  with an empty output.
- ``reference_progress``: the share of the reference solution's record-level
  changes the episode has made so far, in any order.
- ``collateral_violation``: this step changed a record that no rule of the
  task's ``no_collateral`` checks allows.

They are computed incrementally (see ``Signals``); tests/engine/test_signals.py
holds every value to its definition computed from scratch. Never show them
to the policy.
"""

from __future__ import annotations

import orjson
from sw_core_ext import canonical_json

from ..verify import checks as C
from ..verify.evaluate import Facts, allowed, call_matches, run_check, value_contains, value_equals
from ..verify.match import MISSING, compiled, get_path
from ..verify.score import weighted

# Fields that differ between any two correct runs (ids, times): not compared.
_VOLATILE_NAMES = {"id", "at", "ts", "time", "timestamp"}

# Encoded signals by what decides them (see Signals.after_step_json). The
# values are bools, floats, None or a fault's name, so equal keys encode alike.
_ENCODED: dict = {}
_ENCODED_MAX = 4096

_STATE_KINDS = (C.RecordExists, C.RecordAbsent, C.FieldEquals, C.FieldContains)
_DIFF_KINDS = (C.WriteCount, C.NoWrites)  # no_collateral is kept incrementally
_TRACE_KINDS = (C.ActionCalled, C.ActionNotCalled)


def _volatile(name: str) -> bool:
    return name in _VOLATILE_NAMES or name.endswith("_at") or name.endswith("_ts")


def _holds(check, rid: str, record: dict) -> bool:
    """Whether this one record is one the record or field check looks for:
    it matches the check's ``where`` (as ``verify.match.matching`` reads it)
    and, for a field check, its field passes the check's test. The check
    holds when some record does (``record_absent``: when none does)."""
    if not compiled(check.where)(record, rid):
        return False
    if isinstance(check, (C.RecordExists, C.RecordAbsent)):
        return True
    actual = get_path(record, check.field)
    test = value_equals if isinstance(check, C.FieldEquals) else value_contains
    return actual is not MISSING and test(actual, check.value)


def _strip(record: dict, created_ids: set) -> dict:
    return {k: v for k, v in record.items() if not _volatile(k) and not (isinstance(v, str) and v in created_ids)}


def _changes(diff: dict) -> list:
    """A store's diff as ``(collection, id, op)``."""
    return [(coll, rid, op) for coll, d in diff.items() for op in ("created", "updated", "removed") for rid in d[op]]


class Reference:
    """The record-level changes of a task's reference solution."""

    def __init__(self, start, end):
        diff = end.diff(start)
        created_ids = {rid for d in diff.values() for rid in d["created"]}
        self.updated = []  # (collection, id, {field: value} that must match)
        self.removed = []  # (collection, id)
        self.created = {}  # collection -> [stripped record]
        for coll, d in diff.items():
            for rid in d["updated"]:
                before, after = start.get(coll, rid), end.get(coll, rid)
                fields = {k: after.get(k) for k in set(before) | set(after)
                          if before.get(k) != after.get(k) and not _volatile(k)
                          and not (isinstance(after.get(k), str) and after.get(k) in created_ids)}
                self.updated.append((coll, rid, fields))
            self.removed.extend((coll, rid) for rid in d["removed"])
            if d["created"]:
                self.created[coll] = [_strip(end.get(coll, rid), created_ids) for rid in d["created"]]
        self.total = len(self.updated) + len(self.removed) + sum(len(v) for v in self.created.values())
        self.records = {(coll, rid) for coll, rid, _fields in self.updated} | set(self.removed)

    def may_be(self, coll: str, record: dict) -> bool:
        """Whether a record created in ``coll`` may be one the solution
        created: it holds every field of one. A stripped record is a part of
        the record, so only such a record is worth stripping (a C-level test;
        stripping every created record on every write was most of what
        signals cost)."""
        return any(want.items() <= record.items() for want in self.created.get(coll, ()))

    def progress(self, store, diff: dict, candidates: dict | None = None) -> float:
        """``candidates``: per collection of ``created``, the ids of the
        episode's created records that ``may_be`` one of its records (an
        episode keeps them as it goes); by default every created record."""
        if self.total == 0:
            return 1.0
        done = 0
        for coll, rid, fields in self.updated:
            rec = store.get(coll, rid)
            if rec is None:
                continue
            if fields:
                done += all(rec.get(k) == v for k, v in fields.items())
            else:  # only volatile fields changed: any change to the record counts
                done += rid in diff.get(coll, {}).get("updated", ())
        for coll, rid in self.removed:
            done += store.get(coll, rid) is None
        created_ids = None
        for coll, wanted in self.created.items():
            made_ids = diff.get(coll, {}).get("created", ()) if candidates is None else candidates[coll]
            if not made_ids:
                continue
            made = [store.get(coll, i) for i in made_ids]
            for want in wanted:
                for j, have in enumerate(made):
                    if not want.items() <= have.items():  # see may_be
                        continue
                    if created_ids is None:
                        created_ids = {i for d in diff.values() for i in d["created"]}
                    if _strip(have, created_ids) == want:
                        done += 1
                        del made[j]
                        break
        return round(done / self.total, 4)


class Signals:
    """One episode's signal state.

    A step that wrote nothing costs a few dict lookups. A write costs what it
    changed: the store journals the records a step writes, and for each of
    them the tracker updates

    - the episode's diff from its start (each record's op, from the start's
      and the current record), kept diff-shaped with sets of ids;
    - for each record or field check on its collection, the set of records
      that make the check hold (``_holds``);
    - for each no_collateral check, the set of changed records its rules do
      not allow.

    write_count and no_writes are rerun on the kept diff when their
    collection changed; an action check when its tool was called (from
    running counts). ``progress`` is rescored only when a check's result
    changed. Output checks cannot pass before submit, and a rubric is never
    asked mid-episode.
    """

    __slots__ = ("reference", "guards", "progress", "ref_progress", "passes", "counts",
                 "_by_collection", "_diff_checks", "_by_action", "_filtered", "_last_key", "_last_json", "_bad",
                 "_hits", "_diff", "_candidates")

    def __init__(self, ep, reference: Reference | None):
        self.reference = reference
        self.guards = [(i, c) for i, c in enumerate(ep.checks) if isinstance(c, C.NoCollateral)]
        self._last_key = self._last_json = None
        self._by_collection = {}  # collection -> indexes of record/field checks on it
        self._diff_checks = []
        self._by_action = {}  # tool -> indexes of action checks naming it
        self._filtered = set()  # ... of those, the ones that also match arguments or results
        for i, c in enumerate(ep.checks):
            if isinstance(c, _STATE_KINDS):
                self._by_collection.setdefault(c.collection, []).append(i)
            elif isinstance(c, _DIFF_KINDS):
                self._diff_checks.append(i)
            elif isinstance(c, _TRACE_KINDS):
                self._by_action.setdefault(c.action, []).append(i)
                if c.arguments is not None or c.result is not None:
                    self._filtered.add(i)
        self.counts = {}
        for tool, _ok, _m in ep.calls:
            self.counts[tool] = self.counts.get(tool, 0) + 1
        diff = self._recount(ep)
        facts = Facts(start=ep.start, end=ep.store, calls=ep.calls, output="", diff=diff, trace=ep.trace)
        self.passes = [None if isinstance(c, C.Rubric) else run_check(c, facts)[0] for c in ep.checks]
        self.progress = weighted(ep.checks, self.passes, ep.start_passes, ep.scoring)[0] if ep.checks else 0.0
        self.ref_progress = reference.progress(ep.store, diff, self._candidates) if reference is not None else 0.0
        # per no_collateral check: the changed records its rules do not allow
        self._bad = [set() for _ in self.guards]
        self._judge(_changes(diff), ep)

    def _recount(self, ep) -> dict:
        """The kept diff and record sets, from scratch; answers the store's diff.
        From now on the store journals every write, so that a step's changes
        cost O(its writes)."""
        store = ep.store
        diff = store.diff(ep.start)
        self._diff = {coll: {op: set(ids) for op, ids in d.items()} for coll, d in diff.items()}
        self._hits = {}  # index of a record/field check -> ids of the records that make it hold
        for coll, indexes in self._by_collection.items():
            pairs = store.scan(coll) if store.has_collection(coll) else ()
            for i in indexes:
                check = ep.checks[i]
                self._hits[i] = {rid for rid, record in pairs if _holds(check, rid, record)}
        # per collection the solution created records in: the episode's created records that may be one
        self._candidates = {}
        if self.reference is not None:
            for coll in self.reference.created:
                made = diff.get(coll, {}).get("created", ())
                self._candidates[coll] = {rid for rid in made if self.reference.may_be(coll, store.get(coll, rid))}
        store.journal = []
        return diff

    def __copy__(self) -> "Signals":
        """A copy for a fork or a dry run: nothing mutable is shared with this one."""
        twin = Signals.__new__(Signals)
        for name in Signals.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.passes = list(self.passes)
        twin.counts = dict(self.counts)
        twin._bad = [set(bad) for bad in self._bad]
        twin._hits = {i: set(hits) for i, hits in self._hits.items()}
        twin._diff = {coll: {op: set(ids) for op, ids in d.items()} for coll, d in self._diff.items()}
        twin._candidates = {coll: set(ids) for coll, ids in self._candidates.items()}
        return twin

    def _apply(self, ep, keys) -> tuple:
        """Bring the kept diff and record sets up to date with the records
        ``keys`` names; answer what changed as ``(collection, id, op)`` (the
        record's op in the episode's diff, or ``updated`` when it is back to
        its start value), the records changed back, and whether the set of
        created records changed."""
        start, store, checks, diff, hits = ep.start, ep.store, ep.checks, self._diff, self._hits
        changes, back, created_moved = [], [], False
        for coll, rid in keys:
            before = start.get(coll, rid) if start.has_collection(coll) else None
            now = store.get(coll, rid)
            if now is None:
                op = None if before is None else "removed"
            elif before is None:
                op = "created"
            elif now is before or canonical_json(now) == canonical_json(before):
                op = None  # the store's own test: equal record hashes
            else:
                op = "updated"
            ops = diff.get(coll)
            if ops is None:
                ops = diff[coll] = {"created": set(), "updated": set(), "removed": set()}
            if (rid in ops["created"]) != (op == "created"):
                created_moved = True
            for ids in ops.values():
                ids.discard(rid)
            candidates = self._candidates.get(coll)
            if candidates is not None:
                if op == "created" and self.reference.may_be(coll, now):
                    candidates.add(rid)
                else:
                    candidates.discard(rid)
            if op is None:  # no longer differs from the start: changed back
                back.append((coll, rid))
                op = "updated"
            else:
                ops[op].add(rid)
            changes.append((coll, rid, op))
            for i in self._by_collection.get(coll, ()):
                if now is not None and _holds(checks[i], rid, now):
                    hits[i].add(rid)
                else:
                    hits[i].discard(rid)
        return changes, back, created_moved

    def _moves_reference(self, keys, created_moved: bool) -> bool:
        """Whether a change to the records ``keys`` names can change
        reference_progress: one is a record the solution changed or in a
        collection it created records in, or the episode's created ids changed
        while a created record may be one of the solution's (stripping reads them)."""
        ref = self.reference
        if created_moved and any(self._candidates.values()):
            return True
        return any(key in ref.records or key[0] in ref.created for key in keys)

    def _judge(self, changes: list, ep) -> bool:
        """Update each no_collateral check's set with the verdicts on
        ``changes`` (``(collection, id, op)``); answer whether one of them is
        not allowed."""
        violation = False
        for (_i, guard), bad in zip(self.guards, self._bad):
            for coll, rid, op in changes:
                record = (ep.start if op == "removed" else ep.store).get(coll, rid) or {}
                if allowed(guard, op, coll, record):
                    bad.discard((coll, rid))
                else:
                    bad.add((coll, rid))
                    violation = True
        return violation

    def _update(self, ep, tool: str, mutated: bool, call=None) -> bool:
        """Recompute after a step; answer whether the step made collateral changes.
        ``call``: the step's ``(args_json, ok, payload_json)``, for action checks
        that match arguments or results."""
        checks, passes = ep.checks, self.passes
        dirty = False
        self.counts[tool] = n = self.counts.get(tool, 0) + 1
        for i in self._by_action.get(tool, ()):
            if i in self._filtered:
                if call is None or not call_matches(checks[i], *call):
                    continue  # this call is not one the check counts
                passed = isinstance(checks[i], C.ActionCalled)
            else:
                passed = (n > 0) if isinstance(checks[i], C.ActionCalled) else (n == 0)
            if passes[i] != passed:
                passes[i] = passed
                dirty = True
        violation = False
        store = ep.store
        journal = store.journal
        if not mutated:
            if journal:
                journal.clear()  # writes that left the state as it was
        else:
            everything = journal is None
            if everything:  # a store this tracker has not seen (forks keep a journal): start over
                changes, back = _changes(self._recount(ep)), ()
            else:
                keys = set(journal)
                journal.clear()
                changes, back, created_moved = self._apply(ep, keys)
            changed = {coll for coll, _rid, _op in changes}
            for coll in self._by_collection if everything else changed:
                for i in self._by_collection.get(coll, ()):
                    passed = not self._hits[i] if isinstance(checks[i], C.RecordAbsent) else bool(self._hits[i])
                    if passes[i] != passed:
                        passes[i] = passed
                        dirty = True
            diff = self._diff
            facts = None
            for i in self._diff_checks:
                if everything or checks[i].collection is None or checks[i].collection in changed:
                    if facts is None:
                        facts = Facts(start=ep.start, end=store, calls=ep.calls, output="", diff=diff, trace=ep.trace)
                    passed = run_check(checks[i], facts)[0]
                    if passes[i] != passed:
                        passes[i] = passed
                        dirty = True
            if self.reference is not None and (everything or self._moves_reference(keys, created_moved)):
                self.ref_progress = self.reference.progress(store, diff, self._candidates)
            violation = self._judge(changes, ep)
            for (i, _guard), bad in zip(self.guards, self._bad):
                bad.difference_update(back)
                if passes[i] != (not bad):
                    passes[i] = not bad
                    dirty = True
        if dirty and checks:
            self.progress = weighted(checks, passes, ep.start_passes, ep.scoring)[0]
        return violation

    def after_step_json(self, ep, schema_valid: bool, mutated: bool, fault, call=None) -> bytes:
        """``after_step`` encoded. Most steps are reads that change nothing:
        they skip the update, and their bytes are the last step's or, as most
        steps of most episodes end in a few states, made once per process."""
        progress, ref_progress = self.progress, self.ref_progress
        tool = ep.calls[-1][0]
        if mutated or tool in self._by_action:
            violation = self._update(ep, tool, mutated, call)
        else:  # nothing any signal reads has changed
            violation = False
            if ep.store.journal:
                ep.store.journal.clear()  # writes that left the state as it was
        key = (schema_valid, mutated, violation, fault, self.progress, progress, self.ref_progress, ref_progress)
        if key == self._last_key:
            return self._last_json
        out = _ENCODED.get(key)
        if out is None:
            if len(_ENCODED) >= _ENCODED_MAX:
                _ENCODED.clear()
            out = bytes(memoryview(orjson.dumps(self._body(schema_valid, mutated, violation, fault, progress, ref_progress))))
            _ENCODED[key] = out
        self._last_key, self._last_json = key, out
        return out

    def after_step(self, ep, schema_valid: bool, mutated: bool, fault, call=None) -> dict:
        progress, ref_progress = self.progress, self.ref_progress
        violation = self._update(ep, ep.calls[-1][0], mutated, call)
        return self._body(schema_valid, mutated, violation, fault, progress, ref_progress)

    def _body(self, schema_valid, mutated, violation, fault, progress, ref_progress) -> dict:
        return {
            "schema_valid": schema_valid,
            "state_mutated": mutated,
            "progress": self.progress,
            "progress_delta": round(self.progress - progress, 4),
            "reference_progress": self.ref_progress,
            "reference_progress_delta": round(self.ref_progress - ref_progress, 4),
            "collateral_violation": violation,
            "fault": fault,
        }
