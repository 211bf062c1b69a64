"""From check results to an evaluation: score, pass and the denominator rule.

A check that already passes in the start state cannot tell a working agent
from a do-nothing one, so while it stays true it leaves the denominator
(unless the task marks it ``always_scored``): doing nothing earns no free
points. If the episode breaks it, it comes back into the denominator as a
failure, so collateral damage costs score, and ``pass`` needs every check.
"""

from __future__ import annotations

from .evaluate import Facts, run_check


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


def is_scored(check, at_start: bool, passed) -> bool:
    """The denominator rule (see the module docstring)."""
    return check.always_scored or not at_start or passed is not True


def weighted(checks: list, passes: list, start_passes: list) -> tuple:
    """``(score, all_pass)`` from each check's result (True, False or None)."""
    total = earned = 0.0
    all_pass = True
    # Weights are relative: scaled by the largest, so that no sum of them overflows.
    top = max((c.weight for c in checks), default=1.0) or 1.0
    for check, passed, at_start in zip(checks, passes, start_passes):
        if passed is not True:
            all_pass = False
        if is_scored(check, at_start, passed):
            total += check.weight / top
            if passed is True:
                earned += check.weight / top
    if total > 0:
        return round(earned / total, 2), all_pass
    return (1.0 if all_pass and checks else 0.0), all_pass


def evaluate(checks: list, facts: Facts, start_passes: list | None = None) -> dict:
    """Run every check; answer ``{pass, score, checks}``."""
    if start_passes is None:
        start_passes = baseline(checks, facts.start)
    results = []
    passes = []
    for check, at_start in zip(checks, start_passes):
        passed, detail = run_check(check, facts)
        passes.append(passed)
        scored = is_scored(check, at_start, passed)
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
    score, all_pass = weighted(checks, passes, start_passes)
    return {"pass": bool(checks) and all_pass, "score": score, "checks": results}
