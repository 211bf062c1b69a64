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


def evaluate(checks: list, facts: Facts, start_passes: list | None = None) -> dict:
    """Run every check; answer ``{pass, score, checks}``."""
    if start_passes is None:
        start_passes = baseline(checks, facts.start)
    results = []
    total = earned = 0.0
    all_pass = True
    for check, at_start in zip(checks, start_passes):
        passed, detail = run_check(check, facts)
        scored = check.always_scored or not at_start or passed is not True
        if not scored:
            detail = f"{detail} (already true at the start: not scored)"
        else:
            total += check.weight
            if passed is True:
                earned += check.weight
        if passed is not True:
            all_pass = False
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
    if total > 0:
        score = round(earned / total, 2)
    else:
        score = 1.0 if all_pass and checks else 0.0
    return {"pass": bool(checks) and all_pass, "score": score, "checks": results}
