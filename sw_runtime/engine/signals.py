"""Dense training signals, computed after each step of a ``signals: true`` episode.

- ``progress``: the task's own score (weighted share of scored checks that
  pass) if the episode were submitted now with an empty output.
- ``reference_progress``: the share of the reference solution's record-level
  changes the episode has made so far, in any order.
- ``collateral_violation``: this step changed a record that no rule of the
  task's ``no_collateral`` checks allows.

They are computed incrementally: state checks only when the state changed,
trace checks on every step. Never show them to the policy.
"""

from __future__ import annotations

from ..verify import checks as C
from ..verify.evaluate import Facts, collateral
from ..verify.score import evaluate

# Fields that differ between any two correct runs (ids, times): not compared.
_VOLATILE_NAMES = {"id", "at", "ts", "time", "timestamp"}

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
        for coll, wanted in self.created.items():
            made_ids = diff.get(coll, {}).get("created", ())
            if not made_ids:
                continue
            created_ids = {i for d in diff.values() for i in d["created"]}
            made = [_strip(store.get(coll, i), created_ids) for i in made_ids]
            for want in wanted:
                for j, have in enumerate(made):
                    if have == want:
                        done += 1
                        del made[j]
                        break
        return round(done / self.total, 4)


class Signals:
    """One episode's signal state."""

    __slots__ = ("reference", "guards", "has_trace_checks", "progress", "ref_progress", "_seen")

    def __init__(self, ep, reference: Reference | None):
        self.reference = reference
        self.guards = [c for c in ep.checks if isinstance(c, C.NoCollateral)]
        self.has_trace_checks = any(isinstance(c, _TRACE_KINDS) for c in ep.checks)
        self.progress = 0.0
        self.ref_progress = 0.0
        self._seen = {}  # (collection, id) -> the record object last seen in the diff
        if ep.checks or reference is not None:
            self._update(ep, mutated=True)
            self._seen = {}

    def _update(self, ep, mutated: bool) -> bool:
        """Recompute after a step; answer whether the step made collateral changes."""
        violation = False
        diff = None
        if mutated or self.has_trace_checks:
            diff = ep.store.diff(ep.start)
            facts = Facts(start=ep.start, end=ep.store, calls=ep.calls, output="", diff=diff)
            if ep.checks:
                self.progress = evaluate(ep.checks, facts, ep.start_passes)["score"]
        if mutated:
            if self.reference is not None:
                self.ref_progress = self.reference.progress(ep.store, diff)
            seen = {}
            changed = {}
            for coll, d in diff.items():
                for op in ("created", "updated", "removed"):
                    for rid in d[op]:
                        obj = ep.store.get(coll, rid)
                        seen[(coll, rid)] = obj
                        if self._seen.get((coll, rid), 0) is not obj:
                            changed.setdefault(coll, {"created": [], "updated": [], "removed": []})[op].append(rid)
            # Records changed back to their start value leave the diff: that is a change too.
            for key in self._seen.keys() - seen.keys():
                changed.setdefault(key[0], {"created": [], "updated": [], "removed": []})["updated"].append(key[1])
            self._seen = seen
            for guard in self.guards:
                if collateral(guard, changed, ep.start, ep.store):
                    violation = True
                    break
        return violation

    def after_step(self, ep, schema_valid: bool, mutated: bool, fault) -> dict:
        progress, ref_progress = self.progress, self.ref_progress
        violation = self._update(ep, mutated)
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
