"""``sandworld compare RUN_A RUN_B``: what changed, task by task, and whether the trials support it.

For each task both runs have (and overall): the pass rate and mean score of
each run, and B minus A with a 95 % interval: Newcombe's interval for the
difference of pass rates, a bootstrap interval (fixed seed) for the
difference of mean scores. An interval that excludes 0 is a difference the
trials support; one that straddles 0 is not, however large the point estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.table import Table

from .stats import bootstrap_diff, newcombe
from .store import Store
from .summary import TaskStats, fmt, summarize


@dataclass
class Diff:
    task_id: str
    a: TaskStats
    b: TaskStats

    @property
    def pass_diff(self):
        if self.a.pass_rate is None or self.b.pass_rate is None:
            return None
        return self.b.pass_rate - self.a.pass_rate

    @property
    def pass_ci(self):
        return newcombe(self.a.passed, self.a.trials, self.b.passed, self.b.trials)

    @property
    def score_diff(self):
        if self.a.mean_score is None or self.b.mean_score is None:
            return None
        return self.b.mean_score - self.a.mean_score

    @property
    def score_ci(self):
        return bootstrap_diff(self.a.scores, self.b.scores)


def compare(store: Store, run_a: str, run_b: str) -> tuple:
    """``(rows, run_a, run_b)``: a ``Diff`` per task both runs scored, then one overall."""
    ra, rb = store.run(run_a), store.run(run_b)
    ta, oa = summarize(store.trials(ra["run_id"]), ra["trials"], ra["meta"].get("tasks"))
    tb, ob = summarize(store.trials(rb["run_id"]), rb["trials"], rb["meta"].get("tasks"))
    by_b = {s.task_id: s for s in tb}
    rows = [Diff(s.task_id, s, by_b[s.task_id]) for s in ta if s.task_id in by_b]
    shared = {d.task_id for d in rows}
    # Overall over the shared tasks only, so a task one run lacks does not pose as a change.
    oa = _pool([s for s in ta if s.task_id in shared]) if len(shared) < len(ta) else oa
    ob = _pool([s for s in tb if s.task_id in shared]) if len(shared) < len(tb) else ob
    rows.append(Diff("all", oa, ob))
    return rows, ra, rb


def _pool(stats: list) -> TaskStats:
    out = TaskStats("all")
    for s in stats:
        out.trials += s.trials
        out.passed += s.passed
        out.score_sum += s.score_sum
        out.scores += s.scores
    return out


def _signed(value, spec: str, scale: float = 1.0) -> str:
    return "–" if value is None else format(scale * value, "+" + spec)


def _ci(ci, spec: str, scale: float = 1.0) -> str:
    if ci is None:
        return "–"
    return f"{format(scale * ci[0], '+' + spec)}…{format(scale * ci[1], '+' + spec)}"


def table(rows: list, run_a: dict, run_b: dict) -> Table:
    """The comparison, 80 columns wide at most: pass rates in %, scores 0..1."""
    t = Table(title=f"B {run_b['run_id']} ({run_b['agent']}) vs\nA {run_a['run_id']} ({run_a['agent']})",
              title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              caption="Δ = B − A with 95% intervals; * marks an interval that excludes 0", caption_justify="left")
    t.add_column("task", overflow="ellipsis", max_width=18, no_wrap=True)
    for name in ("A pass", "B pass", "Δ pass", "95% CI", "Δ score", "95% CI"):
        t.add_column(name, justify="right", no_wrap=True)
    for d in rows:
        mark = " *" if d.pass_ci is not None and (d.pass_ci[0] > 0 or d.pass_ci[1] < 0) else ""
        smark = " *" if d.score_ci is not None and (d.score_ci[0] > 0 or d.score_ci[1] < 0) else ""
        if d.task_id == "all":
            t.add_section()
        t.add_row(d.task_id, fmt(None if d.a.pass_rate is None else 100 * d.a.pass_rate, ".0f"),
                  fmt(None if d.b.pass_rate is None else 100 * d.b.pass_rate, ".0f"),
                  _signed(d.pass_diff, ".0f", 100) + mark, _ci(d.pass_ci, ".0f", 100),
                  _signed(d.score_diff, ".2f") + smark, _ci(d.score_ci, ".2f"),
                  style="bold" if d.task_id == "all" else None)
    return t
