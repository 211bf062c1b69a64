"""Per-task statistics of a run, and the table ``sandworld eval`` prints.

Only scored trials count. Training episodes (signals or a fault profile) are
left out of every number, as are masked trials (the verifier or the server
failed: not the agent's fault). Both are counted beside, so nothing vanishes
silently.

``pass^k`` (tau-bench's reliability measure) is the chance that k trials of
the same (task, seed) all pass. With n trials of which c passed it is
estimated without bias by C(c, k) / C(n, k), averaged over the task's seeds;
pass^1 is the pass rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from rich.table import Table


@dataclass
class TaskStats:
    task_id: str
    trials: int = 0  # scored trials
    passed: int = 0
    score_sum: float = 0.0
    steps_sum: int = 0
    tool_errors: int = 0
    pass_hat_k: float | None = None
    masked: int = 0
    training: int = 0
    errors: int = 0  # trials whose agent raised (still scored)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.trials if self.trials else None

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.trials if self.trials else None

    @property
    def mean_steps(self) -> float | None:
        return self.steps_sum / self.trials if self.trials else None


def pass_hat_k(groups: list, k: int) -> float | None:
    """``groups``: ``(n, c)`` per (task, seed). Groups with fewer than k trials are skipped."""
    vals = [comb(c, k) / comb(n, k) for n, c in groups if n >= k]
    return sum(vals) / len(vals) if vals else None


def counts(trial: dict) -> bool:
    return trial["status"] == "scored" and not trial["training"]


def summarize(trials: list, k: int, task_order: list | None = None) -> tuple:
    """``(per_task, overall)``: ``TaskStats`` per task in order, and the run's."""
    order = list(task_order or [])
    for t in trials:
        if t["task_id"] not in order:
            order.append(t["task_id"])
    stats = {tid: TaskStats(tid) for tid in order}
    overall = TaskStats("all")
    groups: dict = {}
    for t in trials:
        s = stats[t["task_id"]]
        for agg in (s, overall):
            if t["training"]:
                agg.training += 1
            elif t["status"] == "masked":
                agg.masked += 1
        if not counts(t):
            continue
        ok = bool(t["pass"])
        for agg in (s, overall):
            agg.trials += 1
            agg.passed += ok
            agg.score_sum += t["score"] or 0.0
            agg.steps_sum += t["steps"] or 0
            agg.tool_errors += t["tool_errors"] or 0
            agg.errors += bool(t.get("error"))
        n, c = groups.get((t["task_id"], t["seed"]), (0, 0))
        groups[(t["task_id"], t["seed"])] = (n + 1, c + ok)
    for tid, s in stats.items():
        s.pass_hat_k = pass_hat_k([v for (task, _), v in groups.items() if task == tid], k)
    overall.pass_hat_k = pass_hat_k(list(groups.values()), k)
    return [stats[t] for t in order], overall


def _fmt(value, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def table(per_task: list, overall: TaskStats, k: int, title: str = "", titles: dict | None = None) -> Table:
    """The closing table: per task, pass rate, mean score, pass^k, mean steps, tool errors."""
    t = Table(title=title, title_justify="left")
    t.add_column("task")
    if titles:
        t.add_column("title", overflow="fold", max_width=36)
    for name in ("trials", "pass rate", "mean score", f"pass^{k}", "mean steps", "tool errors"):
        t.add_column(name, justify="right")
    show_excluded = any(s.masked or s.training for s in per_task)
    if show_excluded:
        t.add_column("excluded", justify="right")
    for s in [*per_task, overall]:
        rate = s.pass_rate
        shown = "–" if rate is None else f"{100 * rate:.1f} %"
        if rate is not None and s is not overall:
            shown = f"[{'green' if rate == 1 else 'red' if rate == 0 else 'yellow'}]{shown}[/]"
        cells = [s.task_id]
        if titles:
            cells.append(titles.get(s.task_id, "") if s is not overall else "")
        cells += [str(s.trials), shown, _fmt(s.mean_score, ".2f"), _fmt(s.pass_hat_k, ".2f"),
                  _fmt(s.mean_steps, ".1f"), str(s.tool_errors)]
        if show_excluded:
            cells.append(_excluded(s))
        if s is overall:
            t.add_section()
        t.add_row(*cells, style="bold" if s is overall else None)
    return t


def _excluded(s: TaskStats) -> str:
    parts = []
    if s.masked:
        parts.append(f"{s.masked} masked")
    if s.training:
        parts.append(f"{s.training} training")
    return ", ".join(parts)
