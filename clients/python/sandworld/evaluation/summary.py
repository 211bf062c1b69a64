"""Per-task statistics of a run, and the table ``sandworld eval`` prints.

Only scored trials count. Training episodes (signals or a fault profile) are
left out of every number, as are masked trials (the verifier or the server
failed: not the agent's fault). Both are counted beside, so nothing vanishes
silently.

Each task (and the run overall) gets its pass rate with a 95 % Wilson
interval, its mean score with a 95 % bootstrap interval, and pass^k for
every k from 1 to the trials per (task, seed): see ``stats.py``.

A run over several worlds names each task ``world/task_id``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich import box
from rich.table import Table

from .stats import bootstrap, pass_hat_k, pass_hat_ks, wilson

__all__ = ["TaskStats", "pass_hat_k", "summarize", "table", "task_key", "counts"]


@dataclass
class TaskStats:
    task_id: str
    trials: int = 0  # scored trials
    passed: int = 0
    score_sum: float = 0.0
    steps_sum: int = 0
    tool_errors: int = 0
    masked: int = 0
    training: int = 0
    errors: int = 0  # trials whose agent raised (still scored)
    scores: list = field(default_factory=list)
    pass_hat: dict = field(default_factory=dict)  # k -> pass^k, k = 1 .. trials per (task, seed)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.trials if self.trials else None

    @property
    def pass_ci(self) -> tuple | None:
        return wilson(self.passed, self.trials)

    @property
    def mean_score(self) -> float | None:
        return self.score_sum / self.trials if self.trials else None

    @property
    def score_ci(self) -> tuple | None:
        return bootstrap(self.scores)

    @property
    def mean_steps(self) -> float | None:
        return self.steps_sum / self.trials if self.trials else None

    @property
    def pass_hat_k(self) -> float | None:
        """pass^k at the largest k (the trials per (task, seed))."""
        return self.pass_hat[max(self.pass_hat)] if self.pass_hat else None


def counts(trial: dict) -> bool:
    return trial["status"] == "scored" and not trial["training"]


def task_key(trial: dict, several_worlds: bool) -> str:
    return f"{trial.get('world')}/{trial['task_id']}" if several_worlds else trial["task_id"]


def summarize(trials: list, k: int | None = None, task_order: list | None = None) -> tuple:
    """``(per_task, overall)``: ``TaskStats`` per task in order, and the run's.
    ``k`` (the run's trials per (task, seed)) fixes how far pass^k goes."""
    several = len({t.get("world") for t in trials}) > 1
    order = list(task_order or [])
    for t in trials:
        if task_key(t, several) not in order:
            order.append(task_key(t, several))
    stats = {tid: TaskStats(tid) for tid in order}
    overall = TaskStats("all")
    groups: dict = {}
    for t in trials:
        key = task_key(t, several)
        s = stats[key]
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
            agg.scores.append(t["score"] or 0.0)
            agg.steps_sum += t["steps"] or 0
            agg.tool_errors += t["tool_errors"] or 0
            agg.errors += bool(t.get("error"))
        n, c = groups.get((key, t["seed"]), (0, 0))
        groups[(key, t["seed"])] = (n + 1, c + ok)

    def ks(gs: list) -> dict:
        out = pass_hat_ks(gs)
        if k is not None:
            out = {j: out.get(j) for j in range(1, k + 1)}
        return out

    for tid, s in stats.items():
        s.pass_hat = ks([v for (task, _), v in groups.items() if task == tid])
    overall.pass_hat = ks(list(groups.values()))
    return [stats[t] for t in order], overall


def fmt(value, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def count(n: int, noun: str) -> str:
    """``1 task``, ``2 tasks``: a count with its noun in the right number."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def pct_ci(ci) -> str:
    return "–" if ci is None else f"{100 * ci[0]:.0f}–{100 * ci[1]:.0f}"


def num_ci(ci) -> str:
    return "–" if ci is None else f"{ci[0]:.2f}–{ci[1]:.2f}"


def pass_hat_line(overall: TaskStats) -> str:
    """``pass^k  k=1 0.80 · k=2 0.65 …`` for the run overall."""
    return "pass^k over all tasks: " + " · ".join(f"k={j} {fmt(v, '.2f')}" for j, v in overall.pass_hat.items())


def table(per_task: list, overall: TaskStats, k: int, title: str = "", titles: dict | None = None) -> Table:
    """The closing table, 80 columns wide at most: per task, trials, pass rate and
    its 95 % interval, mean score and its interval, pass^k, mean steps, tool errors.
    (``titles`` is accepted for old callers and not shown: it does not fit.)"""
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1),
              caption=pass_hat_line(overall) if k > 1 else None, caption_justify="left")
    t.add_column("task", overflow="ellipsis", max_width=22, no_wrap=True)
    t.add_column("n", justify="right")
    t.add_column("pass", justify="right")
    t.add_column("95% CI", justify="right")
    t.add_column("score", justify="right")
    t.add_column("95% CI", justify="right")
    if k > 1:
        t.add_column(f"pass^{k}", justify="right")
    t.add_column("steps", justify="right")
    t.add_column("err", justify="right")
    show_excluded = any(s.masked or s.training for s in per_task)
    if show_excluded:
        t.add_column("left out", justify="right")
    for s in [*per_task, overall]:
        rate = s.pass_rate
        shown = "–" if rate is None else f"{100 * rate:.0f}%"
        if rate is not None and s is not overall:
            shown = f"[{'green' if rate == 1 else 'red' if rate == 0 else 'yellow'}]{shown}[/]"
        cells = [s.task_id, str(s.trials), shown, pct_ci(s.pass_ci), fmt(s.mean_score, ".2f"), num_ci(s.score_ci)]
        if k > 1:
            cells.append(fmt(s.pass_hat_k, ".2f"))
        cells += [fmt(s.mean_steps, ".1f"), str(s.tool_errors)]
        if show_excluded:
            cells.append(_excluded(s))
        if s is overall:
            t.add_section()
        t.add_row(*cells, style="bold" if s is overall else None)
    return t


def _excluded(s: TaskStats) -> str:
    parts = []
    if s.masked:
        parts.append(f"{s.masked} mask")
    if s.training:
        parts.append(f"{s.training} train")
    return ", ".join(parts)
