"""``sandworld view RESULTS``: an evaluation results file as pages (over HTTP, no browser)."""

from __future__ import annotations

import html
import sqlite3
import subprocess
import sys

import httpx
from sandworld.evaluation.compare import compare
from sandworld.evaluation.store import Store
from sandworld.evaluation.summary import summarize


def _view(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sw_runtime", "view", *args], capture_output=True, text=True,
                          timeout=60)


def test_view_has_help_and_refuses_what_is_not_a_results_file(tmp_path):
    assert "RESULTS" in _view("--help").stdout
    missing = _view(str(tmp_path / "nothing.db"))
    assert missing.returncode == 2 and "no results file" in missing.stderr
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    refused = _view(str(other))
    assert refused.returncode == 2 and "holds no evaluation runs" in refused.stderr
    assert _view(str(other), "--host", "0.0.0.0").returncode == 2


def test_the_runs_page_lists_both_runs(eval_view):
    root, noop, ref = eval_view
    text = httpx.get(f"{root}/ui/runs").text
    assert f'data-run="{noop}"' in text and f'data-run="{ref}"' in text
    assert httpx.get(root + "/", follow_redirects=True).url.path == "/ui/runs"


def test_a_run_page_shows_pass_hat_3_and_the_intervals_per_task(eval_view, results):
    root, noop, ref = eval_view
    with Store(None, path=results[0]) as store:
        run = store.run(noop)
        per_task, overall = summarize(store.trials(noop), run["trials"], run["meta"].get("tasks"))
    text = httpx.get(f"{root}/ui/runs/{noop}").text
    assert "<th class=\"n\">pass^3</th>" in text
    for s in per_task:
        row = text[text.index(f'data-task="{s.task_id}"'):]
        row = row[:row.index("</tr>")]
        lo, hi = s.pass_ci
        assert f"{100 * lo:.0f}–{100 * hi:.0f}" in row  # the Wilson interval, as sandworld eval prints it
        assert f"{s.score_ci[0]:.2f}–{s.score_ci[1]:.2f}" in row
        assert f'data-k="3">{s.pass_hat[3]:.2f}<' in row
    # noop fails every task: each has its failing checks, with the reasons
    assert text.count('class="list failing"') == len(per_task) and "output does not contain" in html.unescape(text)
    chart = httpx.get(f"{root}/ui/runs/{noop}/chart.png")
    assert chart.headers["content-type"] == "image/png" and chart.content.startswith(b"\x89PNG")


def test_a_trial_page_shows_its_trace_and_checks(eval_view, results):
    root, _, ref = eval_view
    with Store(None, path=results[0]) as store:
        trial = next(t for t in store.trials(ref, with_trace=True) if t["task_id"] == "cp-02")
    text = httpx.get(f"{root}/ui/runs/{ref}/trials/coinpurse/cp-02/{trial['seed']}/{trial['trial']}").text
    assert text.count('class="step ') == len(trial["trace"]) > 0
    for c in trial["evaluation"]["checks"]:
        assert f'data-check="{c["id"]}"' in text
    assert httpx.get(f"{root}/ui/runs/{ref}/trials/coinpurse/cp-02/99/0").status_code == 404


def test_the_compare_page_says_what_sandworld_compare_says(eval_view, results):
    root, noop, ref = eval_view
    with Store(None, path=results[0]) as store:
        rows, _, _ = compare(store, noop, ref)
    text = httpx.get(f"{root}/ui/compare", params={"a": noop, "b": ref}).text
    for d in rows:
        row = text[text.index(f'data-task="{d.task_id}"'):]
        row = row[:row.index("</tr>")]
        assert f"{100 * d.pass_diff:+.0f}" in row and f"{100 * d.pass_ci[0]:+.0f}…{100 * d.pass_ci[1]:+.0f}" in row
    assert httpx.get(f"{root}/ui/compare", params={"a": noop, "b": "run_nope"}).status_code == 404
