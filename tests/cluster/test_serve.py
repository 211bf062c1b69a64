"""``sandworld serve --replicas N``: the README's tour and the GRPO example
run unchanged against two shards, and the command says what is wrong when
it cannot start one."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import httpx
import pytest

from tests.client.test_examples import example
from tests.cluster.conftest import serve_replicas
from tests.test_readme import bash_blocks, json_values

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _episodes(url: str) -> int:
    return httpx.get(url.removesuffix("/api/v1") + "/healthz").json()["episodes"]


@pytest.mark.slow
def test_the_command_prints_every_shard_and_the_ray_address(cluster):
    out = cluster.output()
    for i, url in enumerate(cluster.urls):
        assert f"shard {i}: {url}" in out
    assert cluster.ray_address
    assert "Traceback" not in out and "Token authentication" not in out  # Ray's start-up notices kept out


@pytest.mark.slow
def test_the_readme_tour_runs_unchanged_against_two_shards(cluster):
    tour = bash_blocks(ROOT / "README.md")[1]
    script = "set -euo pipefail\n" + tour.replace("http://127.0.0.1:8787/api/v1", cluster.urls[0])
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    envs, step, batch, submit = json_values(r.stdout)
    assert step["ok"] is True and [res["ok"] for res in batch["results"]] == [True, True, True]
    assert submit["pass"] is True and submit["score"] == 1.0


@pytest.mark.slow
def test_grpo_rollouts_run_unchanged_spread_over_both_shards(cluster):
    before = [_episodes(u) for u in cluster.urls]
    r = example("grpo_rollouts.py", "--tasks", "cp-02,cp-12", "--seeds", "0-1", "--group", "8",
                env={"SANDWORLD_API_URL": cluster.urls[0]})
    assert r.returncode == 0, r.stderr
    assert "32 rollouts in 4 groups" in r.stdout
    grew = [_episodes(u) - b for u, b in zip(cluster.urls, before)]
    assert grew == [16, 16]  # each group of 8 split over the two shards


def _serve(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sw_runtime", "serve", *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, **(env or {})})


def test_replicas_without_ray_says_how_to_install_it(tmp_path):
    fake = tmp_path / "ray"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('No module named ray')\n")
    # the fake first, then whatever the run had (a worktree puts its own packages there)
    r = _serve("--replicas", "2", env={"PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path),
                                                                                os.environ.get("PYTHONPATH")]))})
    assert r.returncode == 2
    assert "Ray is not installed" in r.stderr and "pip install 'sandworld-runtime[cluster]'" in r.stderr


@pytest.mark.parametrize("args, says", [
    (["--replicas", "0"], "--replicas must be 1 or more"),
    (["--replicas", "2", "--shard", "3"], "with --replicas the shards are numbered"),
    (["--address", "auto"], "say how many with --replicas N"),
])
def test_serve_refuses_flags_that_do_not_go_together(args, says):
    r = _serve(*args)
    assert r.returncode == 2 and says in r.stderr


def test_serve_help_documents_the_cluster_flags():
    r = _serve("--help")
    assert r.returncode == 0 and "--replicas N" in r.stdout and "--address RAY_ADDRESS" in r.stdout


@pytest.mark.slow
def test_address_joins_an_existing_ray_instead_of_starting_one(cluster):
    # the session cluster's Ray stands for a Ray cluster someone else started
    with serve_replicas(1, "--address", cluster.ray_address, "--name", "joined") as joined:
        assert f"on the Ray cluster at {cluster.ray_address}" in joined.output()
        assert joined.ray_address == cluster.ray_address
        listing = httpx.get(f"{joined.urls[0]}/cluster").json()
        assert listing["shard"] == 0
        assert [(s["shard"], s["url"], s["state"]) for s in listing["shards"]] == [(0, joined.urls[0], "serving")]
        created = httpx.post(f"{joined.urls[0]}/environments/coinpurse/episodes", json={"task_id": "cp-01"})
        assert created.status_code == 201
    # leaving stops its own shards only: the cluster it joined keeps serving
    assert all(httpx.get(u.removesuffix("/api/v1") + "/healthz").status_code == 200 for u in cluster.urls)


@pytest.mark.slow
def test_shards_find_keys_in_the_data_folder_as_named_from_where_serve_ran(cluster, tmp_path):
    # `sandworld keys` makes a key in ./data; the shards (Ray workers, another working folder) must read the same
    made = subprocess.run([sys.executable, "-m", "sw_runtime", "keys", "create", "--data-dir", "data",
                           "--project", "cluster-test"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    key = re.search(r"^(sw_\S+)$", made.stdout, flags=re.M).group(1)
    with serve_replicas(1, "--address", cluster.ray_address, "--name", "keyed", "--auth", "keys",
                        "--data-dir", "data", cwd=tmp_path) as keyed:
        url = f"{keyed.urls[0]}/environments"
        assert httpx.get(url).status_code == 401
        assert httpx.get(url, headers={"authorization": f"Bearer {key}"}).status_code == 200
