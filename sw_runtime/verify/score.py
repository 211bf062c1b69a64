"""From check results to an evaluation: score, pass, the scoring rule and the step budget.

Two rules say which checks make up the denominator of ``score``:

- ``share`` (the default; references 000 and 001): every weighted check
  counts. A check that already holds at the start earns its weight for an
  agent that leaves it alone, so a do-nothing run can collect partial credit
  (on a refusal task that is most of the point).
- ``informative`` (reference 003's rule): a check that already passes at the
  start cannot tell a working agent from a do-nothing one, so while it stays
  true it leaves the denominator (unless marked ``always_scored``). If the
  episode breaks it, it comes back as a failure, so collateral damage still
  costs score.

Either way ``pass`` needs every check, and the step budget: a task's episode
that used more steps than the task's budget fails its ``within-budget`` row.
That row gates ``pass`` only (weight 0): the score stays the share of the
task's own checks, so the same work earns the same dense reward.
"""

from __future__ import annotations

from operator import attrgetter

from .evaluate import Facts, run_check

RULES = ("share", "informative")  # both summed by _tallies
DEFAULT_RULE = "share"
BUDGET_ID = "within-budget"
_WEIGHT = attrgetter("weight")


def baseline(checks: list, start) -> list:
    """Which checks pass in the untouched start state (no calls, no output)."""
    facts = Facts(start=start, end=start, calls=[], output="", diff={})
    out = []
    for check in checks:
        if check.__struct_config__.tag == "rubric":
            out.append(False)  # a judge is never asked about the empty episode
            continue
        passed, _ = run_check(check, facts)
        out.append(passed is True)
    return out


def is_scored(check, at_start: bool, passed, rule: str = DEFAULT_RULE) -> bool:
    """Whether the check is in the denominator under ``rule`` (see the module docstring)."""
    if rule == "share":
        return True
    return check.always_scored or not at_start or passed is not True


def _tallies(checks, passes, start_passes) -> dict:
    """``{rule: (earned, total)}`` weights under each rule, summed in one pass."""
    # Weights are relative: scaled by the largest, so that no sum of them overflows.
    top = max(map(_WEIGHT, checks), default=1.0) or 1.0
    earned = total = earned_informative = total_informative = 0.0
    for check, passed, at_start in zip(checks, passes, start_passes):
        share = check.weight / top
        total += share  # ``share``: every check counts
        if passed is True:
            earned += share
        if is_scored(check, at_start, passed, "informative"):
            total_informative += share
            if passed is True:
                earned_informative += share
    # in the checks' own weights again (capped, so no overflow)
    return {"share": (earned * top, total * top),
            "informative": (earned_informative * top, total_informative * top)}


def _score(earned: float, total: float, all_pass: bool, checks: list) -> float:
    if total > 0:
        return round(earned / total, 2)
    return 1.0 if all_pass and checks else 0.0


def weighted(checks: list, passes: list, start_passes: list, rule: str = DEFAULT_RULE) -> tuple:
    """``(score, all_pass)`` from each check's result (True, False or None)."""
    all_pass = all(p is True for p in passes)
    earned, total = _tallies(checks, passes, start_passes)[rule]
    return _score(earned, total, all_pass, checks), all_pass


def budget_row(steps: int, budget: int) -> dict:
    """The ``within-budget`` row: pass while ``steps`` is at most ``budget``."""
    ok = steps <= budget
    return {
        "id": BUDGET_ID,
        "kind": "step_budget",
        "label": f"Done within the task's step budget of {budget} steps",
        "source": "template",
        "weight": 0.0,
        "scored": False,
        "pass": ok,
        "detail": f"{steps} step{'s' if steps != 1 else ''} of a budget of {budget}"
        + ("" if ok else f": {steps - budget} over (this gates pass, not score)"),
    }


def evaluate(checks: list, facts: Facts, start_passes: list | None = None, rule: str = DEFAULT_RULE,
             steps: int | None = None, budget: int | None = None) -> dict:
    """Run every check; answer ``{pass, score, scoring, denominators, checks}``.

    ``steps`` and ``budget`` add the ``within-budget`` row (a task's episode).
    """
    if start_passes is None:
        start_passes = baseline(checks, facts.start)
    results = []
    passes = []
    for check, at_start in zip(checks, start_passes):
        passed, detail = run_check(check, facts)
        passes.append(passed)
        scored = is_scored(check, at_start, passed, rule)
        if not scored:
            detail = f"{detail} (already true at the start: not scored)"
        results.append(
            {
                "id": check.id,
                "kind": check.__struct_config__.tag,
                "label": check.label,
                "source": check.source,
                "weight": check.weight,
                "scored": scored,
                "pass": passed,
                "detail": detail,
            }
        )
    all_pass = all(p is True for p in passes)
    denominators, scores = {}, {}
    for r, (earned, total) in _tallies(checks, passes, start_passes).items():
        denominators[r] = round(total, 4)
        scores[r] = _score(earned, total, all_pass, checks)
    score = scores[rule]
    if budget is not None and steps is not None and checks:
        row = budget_row(steps, budget)
        results.append(row)
        all_pass = all_pass and row["pass"]
    return {"pass": bool(checks) and all_pass, "score": score, "scoring": rule,
            "denominators": denominators, "scores": scores, "checks": results}
