"""Same world, task, seed and calls give the same digests in any process:
different PYTHONHASHSEEDs, the Cython core and the pure-Python twin."""

from __future__ import annotations

import httpx
import pytest

from sw_core_ext import Store
from sw_runtime.worlds import registry
from tests.conftest import running_server

SEEDS = (0, 1, 2)


def reference_runs():
    for world in registry().values():
        for task in world.tasks:
            for seed in SEEDS:
                start = Store(world.generate(seed), collections=world.collections)
                setup = task.setup(start.fork())
                yield world.name, task.id, seed, setup


def play(url: str) -> dict:
    """Run every task's reference solution; return each run's digests."""
    out = {}
    with httpx.Client(base_url=url, timeout=60) as http:
        for env, task_id, seed, setup in reference_runs():
            ep = http.post(f"/environments/{env}/episodes", json={"task_id": task_id, "seed": seed}).json()
            eid = ep["episode_id"]
            for tool, args in setup.solution:
                assert http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": args}).json()["ok"]
            ev = http.post(f"/episodes/{eid}/submit", json={"output": setup.output}).json()
            assert ev["pass"] is True and ev["score"] == 1.0, (env, task_id, seed, ev["checks"])
            trace = http.get(f"/episodes/{eid}").json()["trace"]
            out[(env, task_id, seed)] = (ep["seed_digest"], [e["state_digest"] for e in trace], ev["digest"])
    return out


@pytest.mark.slow
def test_digests_agree_across_processes_hash_seeds_and_cores():
    with running_server(env={"PYTHONHASHSEED": "1", "SW_PURE": "0"}) as a_url:
        assert httpx.get(a_url.removesuffix("/api/v1") + "/healthz").json()["core"] == "cython"
        a = play(a_url)
    with running_server(env={"PYTHONHASHSEED": "4242", "SW_PURE": "1"}) as b_url:
        assert httpx.get(b_url.removesuffix("/api/v1") + "/healthz").json()["core"] == "python"
        b = play(b_url)
    assert a.keys() == b.keys() and len(a) >= 13 * len(SEEDS)
    for key in a:
        assert a[key] == b[key], key
