"""Every bench script runs with tiny parameters and prints its table.

No timing is asserted: this machine is noisy, and the numbers live in
bench/README.md. These only keep the suite runnable.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sw_runtime.bench_cmd import QUICK
from tests.conftest import running_server

ROOT = Path(__file__).resolve().parent.parent.parent
BENCH = ROOT / "bench"


def run(*cmd, timeout=120) -> str:
    r = subprocess.run([sys.executable, *map(str, cmd)], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    assert r.returncode == 0, f"{cmd} exited {r.returncode}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


def test_bench_core_prints_its_table():
    out = run(BENCH / "bench_core.py", *QUICK["core"])
    assert "sandworld bench_core" in out
    for label in ("cython: fork", "pure: fork", "write + digest", "full rehash"):
        assert label in out


def test_bench_memory_prints_its_table_on_the_pure_core():
    out = run(BENCH / "bench_memory.py", "--core", "pure", *QUICK["memory"])
    assert "sandworld bench_memory" in out and "per episode, just created" in out


def test_bench_batch_prints_its_table():
    out = run(BENCH / "bench_batch.py", *QUICK["batch"])
    assert "sandworld bench_batch" in out
    for label in ("(a) coinpurse /batch", "(b)", "(c) single /step", "(d) dummy noop", "(e) GRPO", "(a)/(d)", "(a)/(c)",
                  "(b)/(a)", "batch create", "latency p99", "batch submit"):
        assert label in out, label


def test_bench_composite_reports_composite_beside_single_in_one_run():
    rep = json.loads(run(BENCH / "bench_composite.py", "--episodes", "4", "--calls", "50", "--rounds", "1",
                         "--block", "2", "--json"))
    measures = {r["measure"]: r["value"] for r in rep["rows"]}
    for label in ("single: steps/s", "composite, codehost calls / single", "composite, both worlds / single"):
        assert measures[label] > 0, label


def test_bench_adapters_reports_per_step_against_batched_in_one_run():
    rep = json.loads(run(BENCH / "bench_adapters.py", "--episodes", "4", "--turns", "2", "--rounds", "1", "--json"))
    measures = {r["measure"]: r["value"] for r in rep["rows"]}
    for mode in ("verl", "skyrl"):
        assert measures[f"{mode}, per step: requests per call"] == 1.0
        assert measures[f"{mode}, batched: requests per call"] < 1.0
        assert measures[f"{mode}: batched / per step, calls/s"] > 0


def test_bench_gc_compares_each_setting_with_its_collections():
    out = run(BENCH / "bench_gc.py", "--thresholds", "700,10,10", "100000,10,10", "--rounds", "1",
              "--generations", "1", "--episodes", "60", "--seeds", "6", "--batch-size", "30",
              "--steps-per-episode", "20", "--json")
    rows = {r["measure"]: r for r in json.loads(out)["rows"]}
    for setting in ("700,10,10", "100000,10,10"):
        assert rows[f"{setting}: CPU per call"]["value"] > 0
        assert f"{setting}: batch p99" in rows
    # ~1,200 calls allocate far more than 700 objects: the small young generation is
    # collected, the 100,000 one never (its row says so)
    assert "gen 0:" in rows["700,10,10: collector time"]["note"]
    assert rows["100000,10,10: collector time"]["note"] == "none"


def test_bench_tools_times_every_tool_of_the_mix_and_the_reads_hot_and_spread():
    out = run(BENCH / "bench_tools.py", "--episodes", "40", "--seeds", "4", "--warm", "3", "--rounds", "30",
              "--repeat", "3", "--hot-episodes", "5", "--json")
    rows = {r["measure"]: r for r in json.loads(out)["rows"]}
    for tool in ("get_balance", "list_requests", "send_money", "request_money", "decline_request", "pay_request"):
        assert rows[f"(a) mix: {tool}"]["value"] > 0
    assert "1,200 calls over 40 episodes" in rows["(a) mix: every call"]["note"]
    for tool in ("get_balance", "list_requests", "list_contacts", "list_transactions"):
        assert "spread / hot" in rows[f"{tool}, hot / spread"]["note"]
    assert "80 hits of 80" in rows["a read the cache answers"]["note"]  # every one of them answered by the cache
    assert rows["dummy noop"]["value"] > 0


def test_sandworld_bench_reports_json():
    out = run("-m", "sw_runtime", "bench", "--quick", "--json", "--only", "core", "memory")
    reports = json.loads(out)
    assert [r["bench"] for r in reports] == ["bench_core", "bench_memory"]
    for rep in reports:
        assert {"nproc", "cpu", "memory", "python", "date"} <= set(rep["machine"])
        assert rep["rows"] and all({"measure", "value", "unit", "target", "met"} <= set(r) for r in rep["rows"])
        # tiny parameters measure nothing: no target is judged met or not met on them
        assert all(r["met"] is None for r in rep["rows"]), [r["measure"] for r in rep["rows"] if r["met"] is not None]


def test_locustfile_runs_headless(tmp_path):  # locust is a dev dependency: this runs in CI too
    with running_server() as url:
        host = url.removesuffix("/api/v1")
        run("-m", "locust", "-f", BENCH / "locustfile.py", "--headless", "-u", "6", "-r", "6", "-t", "8s",
            "--host", host, "--csv", tmp_path / "smoke", "--only-summary", "--sw-batch-episodes", "20",
            "--sw-batch-size", "20", timeout=60)
    with open(tmp_path / "smoke_stats.csv", newline="") as f:
        stats = {r["Name"]: r for r in csv.DictReader(f)}
    assert int(stats["Aggregated"]["Failure Count"]) == 0
    assert int(stats["create"]["Request Count"]) > 0 and int(stats["batch 20 calls"]["Request Count"]) > 0


def test_bench_worlds_prints_each_world_beside_the_other():
    out = run(BENCH / "bench_worlds.py", "--seeds", "1", "--rounds", "1", "--json")
    rows = {r["measure"]: r for r in json.loads(out)["rows"]}
    for world in ("coinpurse", "airline"):
        for what in ("generate a seed", "set up a task", "create", "reference episode", "verify"):
            assert rows[f"{world}: {what}"]["value"] > 0, (world, what)
