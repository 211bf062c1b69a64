"""``GET /v1/runs/{id}/report.md``: a run as a markdown report (reference 003).

Pure encoding, like ``shapes.py``: the run's facts in, markdown out. The
report holds what 003's does: the score with its denominator, a table of the
checks with a reason on every row, the agent and the evaluator (the judge's
model, when a rubric was judged), the runtime the run ran on, and a link to
the run itself. Readable by a person and by an agent alike.
"""

from __future__ import annotations

from .. import __version__
from .shapes import evaluation as shaped


def _cell(text) -> str:
    """A table cell: one line, pipes escaped."""
    return str(text if text is not None else "").replace("\n", " ").replace("|", "\\|")


def render(f: dict, world, base: str, core: str) -> str:
    """The report of a run (``Run.facts()``) as markdown text."""
    url = f"{base}/v1/runs/{f['id']}"
    agent = f["agent"]
    who = agent["name"] or "an unnamed agent"
    if agent["revision"]:
        who += f" (revision {agent['revision']})"
    lines = [
        f"# Run {f['id']}",
        "",
        f"- **Status:** {f['status']}" + (f", ended by `{f['ended_by']}`" if f["ended_by"] else ""),
        f"- **Environment:** {world.name} {world.version} ({world.title})",
        f"- **Task:** {f['task_id'] or 'free text'}: {_cell(f['task_text'])}",
        f"- **Agent:** {who}",
        f"- **Calls:** {f['calls']} of at most {f['max_calls']}",
        f"- **Created:** {f['created_at']}; finished: {f['finished_at'] or 'not yet'}",
    ]
    if f["group_id"] is not None:
        lines.append(f"- **Trial group:** {f['group_id']}")
    ev = f["evaluation"]
    if not ev:
        lines += ["", "The run has not been scored yet: it is scored when it ends."]
    else:
        out = shaped(ev, f["checks"], f["scored_at"])
        rule = ev.get("scoring") or "share"
        denominator = (ev.get("denominators") or {}).get(rule) or 0
        counted = sum(1 for c in ev["checks"] if c["id"] != "within-budget" and c.get("scored", True))
        score = "none (no checks)" if out["score"] is None else f"{out['score']:g}"
        lines += [
            "",
            "## Score",
            "",
            f"**{score}**, passed: **{out['passed']}**. The weighted share of passing checks over a "
            f"denominator of {denominator:g} (rule `{rule}`: {counted} of {len(out['checks'])} checks counted; "
            "a check already true at the start leaves it under `informative`).",
        ]
        budget = out["step_budget"]
        if budget is not None:
            lines.append(f"Step budget: {budget['calls']} calls of {budget['budget']} "
                         f"({'within' if budget['within'] else 'over'}).")
        lines += ["", "## Checks", "", "| check | kind | source | passed | description | reason |",
                  "|---|---|---|---|---|---|"]
        for c in out["checks"]:
            passed = "undecided" if c["passed"] is None else ("yes" if c["passed"] else "no")
            lines.append(f"| `{_cell(c['id'])}` | {c['kind']} | {c['source']} | {passed} | "
                         f"{_cell(c['description'])} | {_cell(c['explanation'])} |")
        judges = sorted({c["judge"]["model"] for c in out["checks"] if c["judge"]})
        lines += ["", "## Evaluator", "",
                  f"Checks evaluated by the server on the end state and the trace; "
                  + (f"rubrics judged by {', '.join(judges)}." if judges else "no model judged this run.")]
        lines += ["", f"End state digest: `{ev['digest']}`."]
    lines += ["", "## Runtime", "", f"sandworld-runtime {__version__} ({core} core); "
              f"world {world.name} {world.version}, seed {f['seed']}.", "", f"The run: <{url}>", ""]
    return "\n".join(lines)
