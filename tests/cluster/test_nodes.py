"""A cluster over two real Ray nodes on one machine: placement by node, a
lost node survived with shared storage, a lost node without it, and shards
added and drained live.

The head (``ray start --head``) and a second node (``ray start --address``)
are separate processes, each with a custom resource naming it, so where a
shard runs shows in ``GET /cluster``. Losing a node is killing its
raylet and its workers by PID, as a machine that dies takes them."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter

import httpx
import pytest

from sandworld import SandworldClient, SandworldEnv, errors, routing
from sandworld.routing import shard_of

from .conftest import quiet_ports, serve_replicas

pytestmark = pytest.mark.slow

RAY = os.path.join(os.path.dirname(sys.executable), "ray")


def _env(token: str) -> dict:
    # Two Ray nodes on one machine: Ray's one-machine switch (which sandworld.ray.join sets in this
    # process when an earlier test joined a loopback cluster) refuses a second node, so it stays out.
    inherited = {k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
    return {**inherited, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token,
            # notice a lost node within a few seconds, not Ray's default half minute
            "RAY_health_check_period_ms": "500", "RAY_health_check_failure_threshold": "4",
            "RAY_health_check_timeout_ms": "1000", "RAY_health_check_initial_delay_ms": "1000"}


def _processes() -> dict:
    """pid -> (parent pid, command line), for every process of this machine."""
    table = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        table[int(pid)] = (ppid, cmd)
    return table


def process_tree(match) -> list:
    """The processes whose command line ``match`` accepts, and every process under them."""
    table = _processes()
    roots = [p for p, (_, cmd) in table.items() if match(cmd)]
    found, todo = set(roots), list(roots)
    while todo:
        parent = todo.pop()
        for p, (ppid, _) in table.items():
            if ppid == parent and p not in found:
                found.add(p)
                todo.append(p)
    return sorted(found)


def kill(pids) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def ray_start(args: list, env: dict) -> None:
    out = subprocess.run([RAY, "start", *args, "--disable-usage-stats", "--node-ip-address=127.0.0.1"],
                         env=env, capture_output=True, text=True, timeout=120, start_new_session=True)
    assert out.returncode == 0, out.stdout + out.stderr


@contextlib.contextmanager
def two_nodes():
    """A Ray head and a second node of its own, in a session folder of their
    own (so nothing here touches another Ray on this machine); yields the
    head's address, the environment that reaches it, and a function that
    starts the second node again."""
    env = _env(secrets.token_hex(16))
    port = quiet_ports(1)
    temp = tempfile.mkdtemp(prefix="sw-ray-")
    ray_start(["--head", f"--port={port}", "--num-cpus=1", '--resources={"sw_node_a": 1}',
               "--include-dashboard=false", f"--temp-dir={temp}"], env)
    address = f"127.0.0.1:{port}"

    def join(label: str):
        ray_start([f"--address={address}", "--num-cpus=1", f'--resources={{"{label}": 1}}'], env)

    join("sw_node_b")
    try:
        yield address, env, join
    finally:  # every process of this session, by its folder (ray stop would stop every Ray here)
        kill(process_tree(lambda cmd: temp in cmd))


def kill_node(label: str) -> None:
    """A node's raylet (the one whose resources name ``label``) and every worker under it."""
    pids = process_tree(lambda cmd: "raylet/raylet" in cmd and label in cmd)
    assert pids, f"the raylet of {label} was not found"
    kill(pids)


def labels(url: str) -> list:
    """Each shard's node label, in shard order."""
    return [s["node"]["labels"][0] for s in listing(url)]


def listing(url: str) -> list:
    return httpx.get(f"{url}/cluster", timeout=10).json()["shards"]


def wait_for(what, check, timeout: float = 150.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = check()
        except httpx.TransportError:
            got = None
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.5)


def test_two_nodes_placement_a_lost_node_and_shards_added_and_drained(tmp_path, monkeypatch):
    with two_nodes() as (address, env, join):
        with serve_replicas(4, "--address", address, "--shared-data", "--data-dir", str(tmp_path / "shared"),
                            env=env) as c:
            lost = _placement_and_node_loss(c)
            _add_and_drain(c, address, env, monkeypatch, tmp_path / "shared")
        join(lost)  # the node comes back, for a cluster whose storage is per node
        with serve_replicas(2, "--address", address, "--name", "pernode", "--data-dir", str(tmp_path / "pernode"),
                            env=env) as c:
            _lost_without_shared_storage(c)


def _placement_and_node_loss(c) -> str:
    """Answers the label of the node it lost."""
    shards = listing(c.urls[0])
    # placement by node: the serving process's node first, then the other in turn
    home, away = labels(c.urls[0])[:2]
    assert {home, away} == {"sw_node_a", "sw_node_b"} and labels(c.urls[0]) == [home, away, home, away]
    assert all(s["state"] == "serving" for s in shards) and len({s["node_id"] for s in shards}) == 2
    with SandworldClient(c.urls[0]) as client:  # one URL given: it uses all four
        envs = [SandworldEnv(client=client) for _ in range(8)]
        for e in envs:
            e.reset("coinpurse", task_id="cp-12", seed=2)
            e.step("list_requests", {"status": "pending"})
            e.step("pay_request", {"request_id": "rq-16"})
        assert Counter(shard_of(e.episode_id) for e in envs) == {0: 2, 1: 2, 2: 2, 3: 2}
        lost = [e for e in envs if shard_of(e.episode_id) in (1, 3)]
        before = {e.episode_id: client.episode(e.episode_id) for e in lost}
        kill_node(away)  # not the node serve runs on: its driver owns the shards
        # Ray starts shards 1 and 3 on the surviving node; they replay their logs from the shared folder
        moved = wait_for("shards 1 and 3 on the surviving node", lambda: all(
            s["state"] == "serving" and s["node"]["labels"] == [home]
            for s in listing(c.urls[0]) if s["shard"] in (1, 3)) and listing(c.urls[0]))
        assert len(moved) == 4
        for e in lost:  # every acknowledged step is back, with its digests; the client finds the new URL
            now = client.episode(e.episode_id)
            assert now["trace"] == before[e.episode_id]["trace"] and now["digest"] == before[e.episode_id]["digest"]
            assert e.step("get_balance").step == 3
        assert client.shards() == {s["shard"]: s["url"] for s in listing(c.urls[0])} | {0: c.urls[0]}
    return away


def _add_and_drain(c, address, env, monkeypatch, data_dir):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "sw_runtime", "cluster", *args, "--address", address],
                              env=env, capture_output=True, text=True, timeout=300)

    monkeypatch.setattr(routing, "REFRESH", 0.0)  # the client reads the listing before every start
    with SandworldClient(c.urls[0]) as client:
        client.create_episode("coinpurse", task_id="cp-01")
        out = cli("add")
        assert out.returncode == 0, out.stderr
        assert "shard 4:" in out.stdout
        assert [s["shard"] for s in listing(c.urls[0])] == [0, 1, 2, 3, 4]
        made = [client.create_episode("coinpurse", task_id="cp-01") for _ in range(5)]
        assert 4 in {shard_of(o.episode_id) for o in made}  # the new shard takes new episodes
        # drain shard 2 while one of its episodes is open: no new episodes go there; it ends that one
        keep = next(o for o in made if shard_of(o.episode_id) == 2)
        draining = subprocess.Popen([sys.executable, "-m", "sw_runtime", "cluster", "drain", "2", "--deadline", "8",
                                     "--address", address], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
        wait_for("shard 2 draining", lambda: any(s["shard"] == 2 and s["state"] == "draining"
                                                 for s in listing(c.urls[0])), timeout=60)
        during = [client.create_episode("coinpurse", task_id="cp-01") for _ in range(6)]
        assert 2 not in {shard_of(o.episode_id) for o in during}
        out, err = draining.communicate(timeout=120)
        assert draining.returncode == 0, err
        ended = int(re.search(r"(\d+) open episode\(s\) ended \(drained\)", out).group(1))
        assert ended >= 1
        assert [s["shard"] for s in listing(c.urls[0])] == [0, 1, 3, 4]
        # its open episodes were ended, scored and stored in its results
        with contextlib.closing(sqlite3.connect(data_dir / "shard-02" / "results.sqlite")) as db:
            rows = dict(db.execute("SELECT episode_id, ended_by FROM results WHERE ended_by = 'drained'").fetchall())
        assert len(rows) == ended and rows[keep.episode_id] == "drained"
        with pytest.raises(errors.SandworldError):
            client.step(keep.episode_id, "get_balance")
        listed = cli("list")
        assert listed.returncode == 0 and "shard" in listed.stdout


def _lost_without_shared_storage(c):
    home, away = labels(c.urls[0])
    assert home != away
    with SandworldClient(c.urls[0], retry=routing_retry()) as client:
        envs = [SandworldEnv(client=client) for _ in range(2)]
        for e in envs:
            e.reset("coinpurse", task_id="cp-01")
        on_lost = next(e for e in envs if shard_of(e.episode_id) == 1)
        kill_node(away)
        wait_for("shard 1 listed as down", lambda: [s for s in listing(c.urls[0]) if s["shard"] == 1][0]["state"]
                 == "down", timeout=60)
        t0 = time.monotonic()
        with pytest.raises(errors.ShardDown) as e:
            on_lost.step("get_balance")
        assert e.value.shard == 1 and "shard 1" in str(e.value)
        assert time.monotonic() - t0 < 60  # an error, not a hang
        time.sleep(5)  # the shard stays down: its log is on the lost node's storage
        assert [s for s in listing(c.urls[0]) if s["shard"] == 1][0]["state"] == "down"
        other = next(e for e in envs if shard_of(e.episode_id) == 0)
        assert other.step("get_balance").step == 1  # the other shard answers on


def routing_retry():
    from sandworld import Retry

    return Retry(attempts=3, backoff=0.2, max_backoff=1.0)
