"""``sandworld report``: a run as a markdown page and a PNG chart.

The page gives the score with its denominator and scoring rule, a table per
task (pass rate and mean score with 95 % intervals), pass^k for every k, a
table of every check with the reasons it failed, the agent, the world's
version and the server's; beside it, ``<run>-pass-rate.png`` charts the pass
rate (Wilson interval) and the mean score (bootstrap interval) per task.
Readable by a person and by an agent alike.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from .store import Store
from .summary import count, num_ci, pct_ci, summarize


def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def _num(value, spec=".2f") -> str:
    return "–" if value is None else format(value, spec)


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def write_report(store: Store, run_id: str, out_dir: Path | str | None = None) -> tuple:
    """Write ``<run_id>.md`` and ``<run_id>-pass-rate.png``; return both paths."""
    run = store.run(run_id)
    run_id = run["run_id"]  # "latest" resolved
    trials = store.trials(run_id)
    k = run["trials"]
    meta = run["meta"]
    titles = meta.get("titles", {})
    per_task, overall = summarize(trials, k, meta.get("tasks"))
    out = Path(out_dir) if out_dir is not None else store.data_dir / "reports"
    out.mkdir(parents=True, exist_ok=True)
    md_path, png_path = out / f"{run_id}.md", out / f"{run_id}-pass-rate.png"
    chart(per_task, png_path, f"{run['world']} {run['world_version']} · {run['agent']} · {run_id}")
    md_path.write_text(render(run, trials, per_task, overall, titles, png_path.name), encoding="utf-8")
    return md_path, png_path


def render(run: dict, trials: list, per_task: list, overall, titles: dict, chart_name: str) -> str:
    k = run["trials"]
    meta = run["meta"]
    scored = [t for t in trials if t["status"] == "scored" and not t["training"]]
    masked = sum(1 for t in trials if t["status"] == "masked" and not t["training"])
    training = sum(1 for t in trials if t["training"])
    lines = [f"# Sandworld evaluation `{run['run_id']}`", ""]
    lines += [
        "| | |", "|---|---|",
        f"| agent | `{_cell(run['agent'])}` (agent_name `{_cell(run['agent_name'])}`) |",
        f"| world | {run['world']} {run['world_version']} |",
        f"| server | sandworld {run['server_version']} ({run['server_core']} core) at {_cell(run['server_url'])} |",
        f"| client | sandworld-python {run['client_version']} |",
        f"| tasks × seeds × trials | {len(meta.get('tasks', []))} × {len(meta.get('seeds', []))} × {k} "
        f"(seeds {', '.join(map(str, meta.get('seeds', [])))}) |",
        f"| user simulator | {meta.get('user_sim') or 'server default'} |",
        f"| scoring | {meta.get('scoring') or 'share'} |",
        f"| started · finished | {run['created_at']} · {run['finished_at'] or '–'} ({run['status']}) |",
        "",
        "## Score",
        "",
    ]
    checks_scored = sum(1 for t in scored for c in (t["evaluation"] or {}).get("checks", []) if c.get("scored", True))
    checks_passed = sum(1 for t in scored for c in (t["evaluation"] or {}).get("checks", [])
                        if c.get("scored", True) and c.get("pass") is True)
    lines += [
        f"**Pass rate {_pct(overall.pass_rate)} (95 % CI {pct_ci(overall.pass_ci)} %): {overall.passed} of "
        f"{overall.trials} scored trials passed.** Mean score {_num(overall.mean_score)} (95 % CI "
        f"{num_ci(overall.score_ci)}) over the same {count(overall.trials, 'trial')}; pass^{k} "
        f"{_num(overall.pass_hat_k)}; {checks_passed} of {checks_scored} scored checks passed.",
        "",
        f"Scores use the `{meta.get('scoring') or 'share'}` rule (docs/VERIFY.md). Pass-rate intervals are Wilson "
        "score intervals; score intervals are percentile bootstrap intervals (2000 resamples, fixed seed); "
        "pass^k is the chance that k trials of one (task, seed) all pass, estimated as C(c, k) / C(n, k).",
        "",
        f"The denominator is every scored trial: {count(len(trials), 'trial')} ran, {masked} were masked (the server or the "
        f"verifier failed, not the agent) and {training} were training episodes (signals or a fault profile); "
        "both are left out.",
        "",
        f"![Pass rate per task]({chart_name})",
        "",
        "## Per task",
        "",
        "| task | title | trials | pass rate | 95 % CI | mean score | 95 % CI | mean steps | tool errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in [*per_task, overall]:
        name = "**all**" if s is overall else f"`{s.task_id}`"
        lines.append(
            f"| {name} | {_cell(titles.get(s.task_id, ''))} | {s.trials} | {_pct(s.pass_rate)} | {pct_ci(s.pass_ci)} % "
            f"| {_num(s.mean_score)} | {num_ci(s.score_ci)} | {_num(s.mean_steps, '.1f')} | {s.tool_errors} |"
        )
    ks = list(overall.pass_hat)
    lines += ["", "## pass^k", "",
              "| task | " + " | ".join(f"pass^{j}" for j in ks) + " |", "|---|" + "---:|" * len(ks)]
    for s in [*per_task, overall]:
        name = "**all**" if s is overall else f"`{s.task_id}`"
        lines.append(f"| {name} | " + " | ".join(_num(s.pass_hat.get(j)) for j in ks) + " |")
    lines += ["", "## Checks", "",
              "Every check of every task: how often it passed in the scored trials, and why it failed. Under the "
              "informative rule a check that already held in the start state is not scored (it cannot tell a working "
              "agent from an idle one) but must still pass. `within-budget` gates pass, not score. Labels are worded "
              "as for the task's first trial; amounts and names vary by seed.", ""]
    for tid in [s.task_id for s in per_task]:
        rows = check_rows([t for t in scored if t["task_id"] == tid])
        if not rows:
            continue
        lines += [f"### `{tid}` {_cell(titles.get(tid, ''))}", "",
                  "| check | label | weight | passed | reasons |", "|---|---|---:|---:|---|"]
        for r in rows:
            lines.append(f"| `{_cell(r['id'])}` | {_cell(r['label'])} | {_num(r['weight'], 'g')} | "
                         f"{r['passed']} / {r['total']} | {_cell(r['reasons'])} |")
        lines.append("")
    lines += ["## Trials", "", "| task | seed | trial | episode | status | pass | score | steps | tool errors | note |",
              "|---|---:|---:|---|---|---|---:|---:|---:|---|"]
    for t in trials:
        note = t.get("error") or t.get("failure_kind") or ("training" if t["training"] else "")
        verdict = "–" if t["pass"] is None else ("pass" if t["pass"] else "fail")
        lines.append(f"| `{t['task_id']}` | {t['seed']} | {t['trial']} | `{t['episode_id'] or '–'}` | {t['status']} | "
                     f"{verdict} | {_num(t['score'])} | {t['steps'] if t['steps'] is not None else '–'} | "
                     f"{t['tool_errors'] if t['tool_errors'] is not None else '–'} | {_cell(note)} |")
    return "\n".join(lines) + "\n"


def check_rows(trials: list) -> list:
    """Per check id: label, weight, passes over the trials, failure reasons by frequency.

    A check that held in the start state is not scored but must still pass,
    so its failures are reasons too; how often it was unscored is said last.
    """
    info: dict = {}
    reasons: dict = defaultdict(Counter)
    for t in trials:
        for c in (t["evaluation"] or {}).get("checks", []):
            row = info.setdefault(c["id"], {"id": c["id"], "label": c.get("label", ""), "weight": c.get("weight"),
                                            "passed": 0, "total": 0, "unscored": 0})
            row["total"] += 1
            row["unscored"] += c.get("scored", True) is False
            if c.get("pass") is True:
                row["passed"] += 1
            else:
                reasons[c["id"]][c.get("detail") or "failed (no detail)"] += 1
    out = []
    for cid, row in info.items():
        parts = [f"{text} (×{n})" if n > 1 else text for text, n in reasons[cid].most_common(5)]
        if len(reasons[cid]) > 5:
            parts.append(f"… {len(reasons[cid]) - 5} more")
        if not parts:
            parts.append("passed every time")
        if row["unscored"]:
            parts.append(f"not scored in {row['unscored']} of {row['total']} (already held at the start)")
        row["reasons"] = "; ".join(parts)
        out.append(row)
    return out


def chart(per_task: list, path: Path, title: str) -> Path:
    """Per task, the pass rate with its 95 % Wilson interval and the mean score
    with its 95 % bootstrap interval, side by side, with a legend; as a PNG."""
    # The object API with the Agg canvas: no pyplot, no global state, no display.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    stats = per_task[::-1]
    names = [s.task_id for s in stats]
    y = list(range(len(stats)))
    rates = [100 * (s.pass_rate or 0.0) for s in stats]
    scores = [100 * (s.mean_score or 0.0) for s in stats]

    def errs(values, cis):
        lo = [max(0.0, v - 100 * ci[0]) if ci else 0.0 for v, ci in zip(values, cis)]
        hi = [max(0.0, 100 * ci[1] - v) if ci else 0.0 for v, ci in zip(values, cis)]
        return [lo, hi]

    fig = Figure(figsize=(8.5, 1.6 + 0.34 * max(1, len(names))), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    h = 0.38
    ax.barh([v + h / 2 for v in y], rates, height=h, color="#2e7d32", label="pass rate, 95% Wilson interval",
            xerr=errs(rates, [s.pass_ci for s in stats]), error_kw={"ecolor": "#1b1b1b", "capsize": 2, "lw": 0.8})
    ax.barh([v - h / 2 for v in y], scores, height=h, color="#90caf9", label="mean score ×100, 95% bootstrap interval",
            xerr=errs(scores, [s.score_ci for s in stats]), error_kw={"ecolor": "#1b1b1b", "capsize": 2, "lw": 0.8})
    for v, s, rate in zip(y, stats, rates):
        label = f"{s.passed}/{s.trials}" if s.trials else "no scored trials"
        ax.text(103, v, label, va="center", fontsize=7)
    ax.set_yticks(y, names, fontsize=8)
    ax.set_xlim(0, 118)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_xlabel("%")
    ax.set_title(title, fontsize=9, loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.6 / max(1, len(names))), ncol=2, fontsize=7,
              frameon=False)
    fig.tight_layout()
    fig.savefig(path, format="png")
    return path
