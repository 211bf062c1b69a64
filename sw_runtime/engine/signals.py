"""Dense training signals, computed after each step of a ``signals: true`` episode.

- ``progress``: the task's own score (weighted share of scored checks that
  pass, under the episode's scoring rule) if the episode were submitted now
  with an empty output.
- ``reference_progress``: the share of the reference solution's record-level
  changes the episode has made so far, in any order.
- ``collateral_violation``: this step changed a record that no rule of the
  task's ``no_collateral`` checks allows.

They are computed incrementally (see ``Signals``). Never show them to the
policy.
"""

from __future__ import annotations

import orjson

from ..verify import checks as C
from ..verify.evaluate import Facts, allowed, call_matches, collateral, run_check
from ..verify.score import weighted

# Fields that differ between any two correct runs (ids, times): not compared.
_VOLATILE_NAMES = {"id", "at", "ts", "time", "timestamp"}

_STATE_KINDS = (C.RecordExists, C.RecordAbsent, C.FieldEquals, C.FieldContains)
_DIFF_KINDS = (C.WriteCount, C.NoWrites)  # no_collateral is kept incrementally
_TRACE_KINDS = (C.ActionCalled, C.ActionNotCalled)


def _volatile(name: str) -> bool:
    return name in _VOLATILE_NAMES or name.endswith("_at") or name.endswith("_ts")


def _strip(record: dict, created_ids: set) -> dict:
    return {k: v for k, v in record.items() if not _volatile(k) and not (isinstance(v, str) and v in created_ids)}


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

    def progress(self, store, diff: dict) -> float:
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
            made_ids = diff.get(coll, {}).get("created", ())
            if not made_ids:
                continue
            made = [store.get(coll, i) for i in made_ids]
            for want in wanted:
                for j, have in enumerate(made):
                    # A stripped record is a part of the record: only one holding
                    # every wanted field (a C-level test) is worth stripping.
                    # Stripping every created record on every write was most of
                    # what signals cost.
                    if not want.items() <= have.items():
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

    Each check's last result is kept and recomputed only when what it reads
    changed: a record or field check when this step changed its collection,
    write_count and no_writes after any change, an action check when its tool
    was called (from running counts). A no_collateral check keeps the set of
    changed records its rules do not allow, updated with the records this
    step changed, so a long episode does not re-judge its whole diff on every
    write. Output checks cannot pass before submit, and a rubric is never
    asked mid-episode.
    """

    __slots__ = ("reference", "guards", "progress", "ref_progress", "passes", "counts",
                 "_by_collection", "_diff_checks", "_by_action", "_filtered", "_last_key", "_last_json", "_bad")

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
        diff = ep.store.diff(ep.start)
        facts = Facts(start=ep.start, end=ep.store, calls=ep.calls, output="", diff=diff, trace=ep.trace)
        self.passes = [None if isinstance(c, C.Rubric) else run_check(c, facts)[0] for c in ep.checks]
        self.progress = weighted(ep.checks, self.passes, ep.start_passes, ep.scoring)[0] if ep.checks else 0.0
        self.ref_progress = reference.progress(ep.store, diff) if reference is not None else 0.0
        ep.store.journal = []  # every write from now on, so a step's changes cost O(its writes)
        # per no_collateral check: the changed records its rules do not allow
        self._bad = [self._judge(guard, diff, ep, set()) for _i, guard in self.guards]

    def __copy__(self) -> "Signals":
        """A copy for a fork or a dry run: nothing mutable is shared with this one."""
        twin = Signals.__new__(Signals)
        for name in Signals.__slots__:
            setattr(twin, name, getattr(self, name))
        twin.passes = list(self.passes)
        twin.counts = dict(self.counts)
        twin._bad = [set(bad) for bad in self._bad]
        return twin

    def _changed(self, store, diff: dict):
        """What this step changed, diff-shaped (each record under its op in the
        episode's whole diff), and the records it changed back to their start
        value. Read from the store's journal of this step's writes."""
        journal = store.journal
        if journal is None:  # a store this tracker has not seen (cannot happen for forks: they keep a journal)
            store.journal = []
            return diff, set()
        keys = set(journal)
        journal.clear()
        changed, back = {}, set()
        for coll, rid in keys:
            d = diff.get(coll)
            op = None
            if d is not None:
                for name in ("created", "updated", "removed"):
                    if rid in d[name]:
                        op = name
                        break
            if op is None:  # no longer differs from the start: changed back
                back.add((coll, rid))
                op = "updated"
            changed.setdefault(coll, {"created": [], "updated": [], "removed": []})[op].append(rid)
        return changed, back

    @staticmethod
    def _judge(guard, changes: dict, ep, bad: set) -> set:
        """Update ``bad`` with the verdicts on ``changes`` (a diff-shaped dict)."""
        for coll, d in changes.items():
            for op in ("created", "updated", "removed"):
                for rid in d[op]:
                    record = (ep.start if op == "removed" else ep.store).get(coll, rid) or {}
                    if allowed(guard, op, coll, record):
                        bad.discard((coll, rid))
                    else:
                        bad.add((coll, rid))
        return bad

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
                passes[i] = isinstance(checks[i], C.ActionCalled)
            else:
                passes[i] = (n > 0) if isinstance(checks[i], C.ActionCalled) else (n == 0)
            dirty = True
        violation = False
        store = ep.store
        if not mutated and store.journal:
            store.journal.clear()  # writes that left the state as it was
        if mutated:
            diff = store.diff(ep.start)
            changed, back = self._changed(store, diff)
            facts = Facts(start=ep.start, end=store, calls=ep.calls, output="", diff=diff, trace=ep.trace)
            for coll in changed:
                for i in self._by_collection.get(coll, ()):
                    passes[i] = run_check(checks[i], facts)[0]
            for i in self._diff_checks:
                passes[i] = run_check(checks[i], facts)[0]
            dirty = True
            if self.reference is not None:
                self.ref_progress = self.reference.progress(store, diff)
            for (i, guard), bad in zip(self.guards, self._bad):
                if collateral(guard, changed, ep.start, store):
                    violation = True
                self._judge(guard, changed, ep, bad)
                bad.difference_update(back)
                passes[i] = not bad
        if dirty and checks:
            self.progress = weighted(checks, passes, ep.start_passes, ep.scoring)[0]
        return violation

    def after_step_json(self, ep, schema_valid: bool, mutated: bool, fault, call=None) -> bytes:
        """``after_step`` encoded. Most steps are reads that change nothing,
        whose signals are the same bytes as the last such step's: reuse them."""
        progress, ref_progress = self.progress, self.ref_progress
        violation = self._update(ep, ep.calls[-1][0], mutated, call)
        key = (schema_valid, mutated, violation, fault, self.progress, progress, self.ref_progress, ref_progress)
        if key == self._last_key:
            return self._last_json
        out = bytes(memoryview(orjson.dumps(self._body(schema_valid, mutated, violation, fault, progress, ref_progress))))
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
