"""``sandworld eval``, ``report``, ``export`` and ``runs``, run as commands."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from sandworld.evaluation.store import Store
from sandworld.evaluation.summary import pass_hat_k, summarize
from sw_runtime.worlds import registry


def sandworld(*args, cwd=None, env=None, timeout=180) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.pop("SANDWORLD_API_URL", None)
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "sw_runtime", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=full)


def run_id_of(r: subprocess.CompletedProcess) -> str:
    """The run id from eval's closing line ``run_…: 70/70 passed; stored in …``."""
    assert r.returncode == 0, r.stderr
    (line,) = [ln for ln in r.stdout.splitlines() if re.match(r"run_\S+: \d+/\d+ passed", ln)]
    return line.split(":")[0]


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    """``sandworld eval --world coinpurse --agent reference`` with no server
    running: it starts its own, and stores the run under --data-dir."""
    data = tmp_path_factory.mktemp("data")
    r = sandworld("eval", "--world", "coinpurse", "--agent", "reference", "--seeds", "0-4", "--data-dir", str(data))
    return data, run_id_of(r), r


def test_reference_passes_every_task_on_seeds_0_to_4(reference_run):
    data, run_id, r = reference_run
    assert "starting a local server" in r.stderr
    with Store(data) as store:
        run = store.run(run_id)
        trials = store.trials(run_id)
    tasks = [t.id for t in registry()["coinpurse"].tasks]
    assert run["status"] == "finished" and run["world"] == "coinpurse" and run["world_version"]
    assert sorted({t["task_id"] for t in trials}) == sorted(tasks)
    assert sorted({t["seed"] for t in trials}) == [0, 1, 2, 3, 4] and len(trials) == len(tasks) * 5
    assert all(t["status"] == "scored" and t["pass"] is True and t["score"] == 1.0 for t in trials)
    per_task, overall = summarize(trials, 1, tasks)
    assert all(s.pass_rate == 1.0 for s in per_task) and overall.passed == overall.trials == len(trials)
    assert f"{len(trials)}/{len(trials)} passed" in r.stdout and "95% CI" in r.stdout


def test_noop_passes_none(api, tmp_path):
    r = sandworld("eval", "--agent", "noop", "--seeds", "0-4", "--url", api, "--data-dir", str(tmp_path),
                  "--no-progress")
    run_id = run_id_of(r)
    with Store(tmp_path) as store:
        trials = store.trials(run_id)
    assert trials and all(t["pass"] is False and t["steps"] == 0 for t in trials)
    assert f"0/{len(trials)} passed" in r.stdout


def test_every_trial_stores_its_evaluation_and_trace(reference_run):
    data, run_id, _ = reference_run
    with Store(data) as store:
        trials = store.trials(run_id, with_trace=True)
    for t in trials:
        assert t["episode_id"].startswith("ep_") and t["evaluation"]["episode_id"] == t["episode_id"]
        assert [e["seq"] for e in t["trace"]] == list(range(1, t["steps"] + 1))
        assert t["trace"][-1]["state_digest"] == t["evaluation"]["digest"]


def test_report_writes_the_markdown_and_the_chart(reference_run):
    data, run_id, _ = reference_run
    r = sandworld("report", run_id, "--data-dir", str(data))
    assert r.returncode == 0, r.stderr
    md = data / "reports" / f"{run_id}.md"
    png = data / "reports" / f"{run_id}-pass-rate.png"
    text = md.read_text()
    n = len(registry()["coinpurse"].tasks) * 5
    assert f"{n} of {n} scored trials passed" in text  # the score with its denominator
    assert "| agent | `reference`" in text and "| world | coinpurse 1.1.0 |" in text
    assert "| server | sandworld 0.1.0" in text
    assert "| check | label | weight | passed | reasons |" in text and "`original-paid`" in text
    assert f"![Pass rate per task]({png.name})" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000


def test_report_gives_the_reasons_checks_failed(api, tmp_path):
    r = sandworld("eval", "--agent", "noop", "--tasks", "cp-12", "--seeds", "0-1", "--url", api,
                  "--data-dir", str(tmp_path), "--report", "--no-progress")
    run_id = run_id_of(r)
    text = (tmp_path / "reports" / f"{run_id}.md").read_text()
    assert "0 of 2 scored trials passed" in text
    row = next(line for line in text.splitlines() if line.startswith("| `original-paid`"))
    assert "| 0 / 2 |" in row and "status" in row  # the verifier's detail, e.g. status is 'pending'


def test_export_writes_the_traces_as_jsonl(reference_run):
    data, run_id, _ = reference_run
    out = data / "dataset.jsonl"
    r = sandworld("export", run_id, "--format", "jsonl", "--data-dir", str(data), "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == len(registry()["coinpurse"].tasks) * 5
    row = rows[0]
    assert {"episode_id", "task_id", "seed", "instruction", "policy", "tools", "trace", "output", "pass", "score",
            "checks", "evaluation", "training", "status"} <= set(row)
    assert row["policy"] and row["tools"] and row["trace"] and row["pass"] is True
    assert all(r["trace"][0]["seq"] == 1 for r in rows)


def test_an_import_path_agent_runs_sync_or_async(api, tmp_path):
    (tmp_path / "my_agents.py").write_text(textwrap.dedent("""
        from sandworld.evaluation.agents import reference_setup

        def careful(env, obs):
            setup = reference_setup(obs["environment"], obs["environment_version"], obs["task_id"], obs["seed"])
            for tool, arguments in setup.solution:
                env.step(tool, arguments)
            return setup.output

        async def lazy(env, obs):
            await env.step("get_balance")
            return "done"

        def crashes(env, obs):
            env.step("get_balance")
            raise RuntimeError("the model went away")
    """))
    results = {}
    for fn in ("careful", "lazy", "crashes"):
        r = sandworld("eval", "--agent", f"my_agents:{fn}", "--tasks", "cp-01,cp-04", "--seeds", "0-1", "--url", api,
                      "--data-dir", str(tmp_path / "data"), "--no-progress", cwd=tmp_path)
        with Store(tmp_path / "data") as store:
            results[fn] = store.trials(run_id_of(r))
    assert all(t["pass"] for t in results["careful"])
    assert all(t["steps"] == 1 and not t["pass"] for t in results["lazy"])
    assert all(t["status"] == "scored" and "the model went away" in t["error"] and t["steps"] == 1
               for t in results["crashes"])


def test_a_bad_agent_is_refused_clearly(api, tmp_path):
    r = sandworld("eval", "--agent", "no_such_module:fn", "--url", api, "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "cannot import 'no_such_module'" in r.stderr
    r = sandworld("eval", "--agent", "gpt", "--url", api, "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "built-in" in r.stderr


def test_training_and_masked_trials_are_left_out(reference_run, tmp_path):
    data, run_id, _ = reference_run
    with Store(data) as store:
        trials = store.trials(run_id)
    extra = [
        {**trials[0], "trial": 1, "training": True, "pass": False, "score": 0.0},
        {**trials[0], "trial": 2, "status": "masked", "pass": None, "score": None},
    ]
    per_task, overall = summarize(trials + extra, 1)
    assert overall.trials == len(trials) and overall.pass_rate == 1.0
    assert overall.training == 1 and overall.masked == 1
    row = next(s for s in per_task if s.task_id == trials[0]["task_id"])
    assert row.trials == 5 and row.pass_rate == 1.0


def test_pass_hat_k_is_the_chance_all_k_trials_pass():
    assert pass_hat_k([(4, 4)], 4) == 1.0
    assert pass_hat_k([(4, 3)], 4) == 0.0
    assert pass_hat_k([(4, 2)], 1) == 0.5
    assert pass_hat_k([(4, 3), (4, 4)], 2) == pytest.approx((3 / 6 + 1) / 2)
    assert pass_hat_k([(1, 1)], 2) is None


def test_trials_k_gives_pass_hat_k(api, tmp_path):
    r = sandworld("eval", "--agent", "reference", "--tasks", "cp-0[12]", "--seeds", "3", "--trials", "3", "--url", api,
                  "--data-dir", str(tmp_path), "--no-progress")
    with Store(tmp_path) as store:
        trials = store.trials(run_id_of(r))
    assert sorted((t["task_id"], t["trial"]) for t in trials) == [("cp-01", 0), ("cp-01", 1), ("cp-01", 2),
                                                                  ("cp-02", 0), ("cp-02", 1), ("cp-02", 2)]
    assert "pass^3" in r.stdout


@pytest.mark.parametrize("command", ["eval", "report", "export", "runs", "compare"])
def test_every_command_has_help_with_defaults(command):
    r = sandworld(command, "--help")
    assert r.returncode == 0 and f"usage: sandworld {command}" in r.stdout
    assert "--data-dir" in r.stdout and "sandworld-data" in r.stdout
    assert "%%" not in r.stdout  # a description is printed as written (argparse formats only help= texts)


def test_runs_lists_the_stored_runs(reference_run):
    data, run_id, _ = reference_run
    r = sandworld("runs", "--data-dir", str(data), env={"COLUMNS": "200"})
    assert r.returncode == 0 and run_id in r.stdout


def test_report_of_an_unknown_run_says_so(tmp_path):
    r = sandworld("report", "run_nope", "--data-dir", str(tmp_path))
    assert r.returncode == 2 and "no run 'run_nope'" in r.stderr


def test_user_sim_is_passed_to_every_episode(api, tmp_path):
    r = sandworld("eval", "--agent", "reference", "--tasks", "cp-13,cp-14", "--seeds", "0-1", "--user-sim", "scripted",
                  "--url", api, "--data-dir", str(tmp_path), "--no-progress")
    run_id = run_id_of(r)
    with Store(tmp_path) as store:
        run, trials = store.run(run_id), store.trials(run_id, with_trace=True)
    assert run["meta"]["user_sim"] == "scripted" and len(trials) == 4
    assert all(t["pass"] for t in trials)
    assert all(any(e["tool"] == "ask_user" and e["ok"] for e in t["trace"]) for t in trials)


def test_the_reference_agent_passes_the_cross_app_tasks_of_a_composite(api, tmp_path):
    """A composite (``codehost+offsite-planning``) is a world to ``eval``: its
    cross-app tasks, each started as a composite episode on the server."""
    r = sandworld("eval", "--world", "codehost+offsite-planning", "--agent", "reference", "--seeds", "0-1",
                  "--url", api, "--data-dir", str(tmp_path), "--no-progress")
    run_id = run_id_of(r)
    from sw_runtime.worlds import get_world

    n = len(get_world("codehost+offsite-planning").tasks) * 2
    assert f"{run_id}: {n}/{n} passed" in r.stdout


def test_the_run_line_counts_in_the_singular_too(api, tmp_path):
    r = sandworld("eval", "--agent", "reference", "--tasks", "cp-01", "--seeds", "0", "--trials", "1", "--url", api,
                  "--data-dir", str(tmp_path), "--no-progress", env={"COLUMNS": "300"})
    assert r.returncode == 0, r.stderr
    assert "1 task × 1 seed × 1 trial = 1 episode" in r.stderr and "1 tasks" not in r.stderr


def test_the_report_counts_in_the_singular_too(api, tmp_path):
    r = sandworld("eval", "--agent", "reference", "--tasks", "cp-01", "--seeds", "0", "--trials", "1", "--url", api,
                  "--data-dir", str(tmp_path), "--report", "--no-progress")
    text = (tmp_path / "reports" / f"{run_id_of(r)}.md").read_text()
    assert "over the same 1 trial;" in text and "1 trial ran," in text and "1 trials" not in text
