"""``sandworld eval`` as people run it: resume, Ctrl-C, several worlds, exports, pipes,
and the first mistakes a newcomer makes (no server, a URL without /api/v1)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from sandworld.evaluation.store import Store
from sandworld.local import free_port
from tests.client.test_eval import run_id_of, sandworld


def test_resume_runs_only_the_missing_trials(api, tmp_path):
    r = sandworld("eval", "--agent", "reference", "--tasks", "cp-01,cp-02", "--seeds", "0-1", "--url", api,
                  "--data-dir", str(tmp_path), "--no-progress", "--scoring", "informative")
    run_id = run_id_of(r)
    with Store(tmp_path) as store:
        before = {(t["task_id"], t["seed"]): t["episode_id"] for t in store.trials(run_id)}
    # as if the run had been stopped after two trials
    db = sqlite3.connect(tmp_path / "sandworld.db")
    with db:
        db.execute("DELETE FROM trials WHERE run_id = ? AND task_id = 'cp-02'", (run_id,))
        db.execute("UPDATE runs SET status = 'interrupted' WHERE run_id = ?", (run_id,))
    db.close()
    r = sandworld("eval", "--resume", run_id, "--url", api, "--data-dir", str(tmp_path), "--no-progress")
    assert run_id_of(r) == run_id and "resuming, 2 trials to go" in r.stderr
    with Store(tmp_path) as store:
        run, after = store.run(run_id), {(t["task_id"], t["seed"]): t for t in store.trials(run_id)}
    assert run["status"] == "finished" and len(after) == 4 and all(t["pass"] for t in after.values())
    assert all(after[k]["episode_id"] == before[k] for k in before if k[0] == "cp-01")  # kept, not rerun
    assert all(after[k]["episode_id"] != before[k] for k in before if k[0] == "cp-02")
    assert all(t["evaluation"]["scoring"] == "informative" for t in after.values())  # the run's own options
    bad = sandworld("eval", "--resume", "run_nope", "--url", api, "--data-dir", str(tmp_path))
    assert bad.returncode == 2 and "no run 'run_nope'" in bad.stderr


def _eval_with_agent(api, tmp_path, source: str) -> subprocess.Popen:
    """``sandworld eval`` of coinpurse over ten seeds, one trial at a time,
    with the agent ``solve`` of ``source``."""
    (tmp_path / "slow_agent.py").write_text(textwrap.dedent(source))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("SANDWORLD_API_URL", None)
    return subprocess.Popen([sys.executable, "-m", "sw_runtime", "eval", "--agent", "slow_agent:solve", "--seeds",
                             "0-9", "--concurrency", "1", "--url", api, "--data-dir", str(tmp_path / "data"),
                             "--no-progress"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _ctrl_c(proc: subprocess.Popen, within: float) -> str:
    """SIGINT, then the eval's stderr once it has exited, which must be within ``within`` s."""
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        # Stop it and close its pipes here: left to the collector, they were
        # reported as unraisable warnings inside whichever test ran next.
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"eval did not stop within {within:g} s of Ctrl-C; its stderr:\n{err[-3000:]}") from None
    assert proc.returncode == 130, err
    return err


@pytest.mark.slow
def test_ctrl_c_keeps_what_finished_and_exits_without_a_traceback(api, tmp_path):
    proc = _eval_with_agent(api, tmp_path, """
        import time

        def solve(env, obs):
            env.step("get_balance")
            time.sleep(0.5)
            return "done"
    """)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        db = tmp_path / "data" / "sandworld.db"
        if db.exists():
            with Store(tmp_path / "data") as store:
                runs = store.runs()
                if runs and runs[0]["n_trials"] >= 2:
                    break
        time.sleep(0.2)
    err = _ctrl_c(proc, within=60)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    with Store(tmp_path / "data") as store:
        run = store.runs()[0]
    assert run["status"] == "interrupted" and run["n_trials"] >= 2, (run, err[-3000:])
    assert f"sandworld eval --resume {run['run_id']}" in err


def test_ctrl_c_does_not_wait_for_an_agent_in_a_long_call(api, tmp_path):
    # An agent waiting on a slow model: Ctrl-C stops the run now, not when the call returns.
    proc = _eval_with_agent(api, tmp_path, f"""
        import pathlib
        import time

        def solve(env, obs):
            env.step("get_balance")
            pathlib.Path({str(tmp_path / "calling")!r}).touch()
            time.sleep(600)
    """)
    deadline = time.monotonic() + 60
    while not (tmp_path / "calling").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    if not (tmp_path / "calling").exists():
        proc.kill()
        raise AssertionError(f"the agent never started; the eval's stderr:\n{proc.communicate()[1][-3000:]}")
    err = _ctrl_c(proc, within=30)
    assert "Traceback" not in err
    with Store(tmp_path / "data") as store:
        run = store.runs()[0]
    assert run["status"] == "interrupted" and run["n_trials"] == 0  # the unfinished trial is not stored
    assert f"sandworld eval --resume {run['run_id']}" in err


def test_several_worlds_in_one_run(api, tmp_path):
    r = sandworld("eval", "--world", "coinpurse,dummy", "--agent", "reference", "--tasks", "cp-01,dm-*",
                  "--seeds", "0", "--url", api, "--data-dir", str(tmp_path), "--no-progress")
    run_id = run_id_of(r)
    with Store(tmp_path) as store:
        run, trials = store.run(run_id), store.trials(run_id)
    assert run["world"] == "coinpurse,dummy" and run["meta"]["tasks"] == ["coinpurse/cp-01", "dummy/dm-01"]
    assert sorted((t["world"], t["task_id"]) for t in trials) == [("coinpurse", "cp-01"), ("dummy", "dm-01")]
    assert all(t["pass"] for t in trials) and "dummy/dm-01" in r.stdout


def test_export_as_chat_messages_and_parquet_and_into_a_closed_pipe(api, tmp_path):
    run_id = run_id_of(sandworld("eval", "--agent", "reference", "--tasks", "cp-12", "--seeds", "0-1", "--url", api,
                                 "--data-dir", str(tmp_path), "--no-progress"))
    r = sandworld("export", run_id, "--format", "messages", "--out", "-", "--data-dir", str(tmp_path))
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == 2
    messages = rows[0]["messages"]
    assert [m["role"] for m in messages[:2]] == ["system", "user"] and messages[-1]["role"] == "assistant"
    calls = [m for m in messages if m.get("tool_calls")]
    results = [m for m in messages if m["role"] == "tool"]
    assert len(calls) == len(results) >= 2
    assert [r["tool_call_id"] for r in results] == [c["tool_calls"][0]["id"] for c in calls]
    assert json.loads(calls[0]["tool_calls"][0]["function"]["arguments"]) is not None
    assert rows[0]["tools"][0]["type"] == "function" and rows[0]["metadata"]["pass"] is True

    import pyarrow.parquet as pq

    out = tmp_path / "run.parquet"
    r = sandworld("export", run_id, "--format", "parquet", "--out", str(out), "--data-dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    table = pq.read_table(out)
    assert table.num_rows == 2 and {"task_id", "seed", "pass", "score", "trace"} <= set(table.column_names)
    assert json.loads(table.column("trace")[0].as_py())[0]["seq"] == 1

    # `| head` closes the pipe early: no BrokenPipe traceback
    cmd = f"{sys.executable} -m sw_runtime export {run_id} --out - --data-dir {tmp_path} | head -c 10"
    piped = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60)
    assert len(piped.stdout) == 10 and "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr


def test_no_server_is_said_at_once_with_what_to_do(tmp_path):
    root = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    began = time.monotonic()
    r = sandworld("eval", "--url", f"{root}/api/v1", "--data-dir", str(tmp_path))
    took = time.monotonic() - began
    assert r.returncode == 2 and f"no server at {root}" in r.stderr and "start one with ./scripts/serve" in r.stderr
    assert took < 10, took  # it used to retry silently for about 16 s


def test_a_url_without_api_v1_gets_a_hint(api, tmp_path):
    root = api.removesuffix("/api/v1")
    r = sandworld("eval", "--url", root, "--data-dir", str(tmp_path))
    assert r.returncode == 2 and f"does not end in /api/v1: try {root}/api/v1" in r.stderr


def test_a_user_simulator_the_server_cannot_run_stops_the_run(api, tmp_path):
    r = sandworld("eval", "--agent", "reference", "--tasks", "cp-14", "--seeds", "0-4", "--user-sim", "gpt-9",
                  "--url", api, "--data-dir", str(tmp_path), "--no-progress")
    assert r.returncode == 2 and "the server refused to start an episode" in r.stderr
    assert "SW_USER_SIM_URL" in r.stderr and "passed" not in r.stdout


@pytest.mark.parametrize("command", ["compare"])
def test_compare_has_help(command):
    r = sandworld(command, "--help")
    assert r.returncode == 0 and "RUN_A" in r.stdout and "Newcombe" in r.stdout


def test_a_server_that_answered_before_is_waited_for_while_it_restarts(api):
    """Only a server never reached is given up on at once: one that answered and then
    refuses (restarting) is retried as long as the Retry allows."""
    from sandworld import SandworldEnv
    from sandworld.transport import Retry
    from tests.client.helpers import FaultProxy

    port = free_port()
    with FaultProxy(api).running(port=port) as url:
        env = SandworldEnv(url, retry=Retry(attempts=40, backoff=0.1, max_backoff=0.3))
        env.reset("coinpurse", task_id="cp-01")
    # the proxy is gone; it comes back on the same port after 2.5 s, longer than connect_wait
    with FaultProxy(api).running(port=port, delay=2.5):
        assert env.step("get_balance").ok
    env.close()
