"""Throughput of a cluster, measured in one run: 1 and 2 shard actors, through
HTTP and through the Ray-native handle (``sandworld.ray.RayShards``).

Starts two shards on an embedded local Ray (``Cluster.start``, as
``sandworld serve --replicas 2`` does) and drives them from this process,
with the coinpurse ``/batch`` mix of ``bench_batch.py`` (a): 40 % get_balance,
30 % list_requests, 30 % writes, ``--batch-size`` calls per batch over
``--episodes`` live episodes per shard, digests and traces on. A batch holds
calls of one shard, as a client's batch is after it is split by shard.

- HTTP: pre-encoded ``POST /batch`` requests on raw keep-alive connections,
  ``--inflight`` per shard (``bench_batch.py``'s lean client);
- Ray: the same bodies through ``RayShards.batch_async(body, shard=s,
  copy=False)``, ``--inflight`` per shard: told the shard as HTTP posts to its
  URL, the answer a view read where it lies, over the shard's local socket
  (``--ray-split``: the handle finds the shard from the ids; ``--ray-copy``:
  the answer copied into bytes; ``--ray-no-socket``: every batch an actor call).

"1 actor" sends everything to shard 0; "2 actors" to both. The four
configurations take turns, ``--rounds`` times, each round starting one
configuration later, so a busy machine and the shards' growing heaps weigh on
each alike; each figure is calls answered per second of timed wall time,
beside the CPU of the shards, of this process (the caller) and of Ray's own
processes (GCS, raylet, agents). Then the ratios the cluster is for, each
with its target and whether it is met:

- HTTP, 2 actors / 1 actor, calls per second (>= 1.7 on a quiet machine);
- Ray handle / HTTP, calls per shard CPU-second (>= 1), at 1 and 2 actors;
- Ray handle / HTTP, calls per caller CPU-second: calls per second per core
  of the calling process (>= 1), at 1 and 2 actors;
- Ray handle / HTTP wall clock, for information (other processes move it).

The CPU ratios are the ones to compare on a shared machine: both sides of a
ratio come from the same run, and neither counts other processes' time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import bench_batch as B  # noqa: E402

from sandworld.local import free_ports  # noqa: E402

CONFIGS = (("HTTP", 1), ("HTTP", 2), ("Ray", 1), ("Ray", 2))


class Tally:
    """Timed calls, wall time and CPU of one configuration, over its rounds."""

    def __init__(self):
        self.calls = self.wall = self.client = self.shards = self.ray = self.busy = 0.0
        self.paths: dict = {}  # the Ray handle's batches by the path they went

    def rate(self) -> float | None:
        return self.calls / self.wall if self.wall else None

    def per_shard_cpu(self) -> float | None:
        """Calls per second of the shards' CPU: what a shard does with a whole core, less
        sensitive than the wall-clock rate to other processes of a busy machine."""
        return self.calls / self.shards if self.shards else None

    def per_caller_cpu(self) -> float | None:
        """Calls per second of this process's CPU: what one caller core drives."""
        return self.calls / self.client if self.client else None

    def note(self) -> str:
        if not self.wall:
            return ""
        others = max(0.0, self.busy - self.shards - self.client - self.ray) / self.wall
        paths = ", ".join(f"{v:,} batches by {k}" for k, v in self.paths.items() if v)
        return (f"{self.per_shard_cpu() or 0:,.0f} calls per shard CPU-second, {self.per_caller_cpu() or 0:,.0f} "
                f"per caller CPU-second; shards CPU {self.shards / self.wall:.0%}, caller "
                f"{self.client / self.wall:.0%}, Ray's own processes {self.ray / self.wall:.0%}, "
                f"other processes {others:.2f} CPU" + (f"; {paths}" if paths else ""))


async def measure(kind: str, n: int, generations: list, pids: list, ray_pids: list, shards, seconds: float,
                  inflight: int, tally: Tally, ray_split: bool = False, ray_copy: bool = False) -> None:
    """Send each shard's batches until ``seconds`` of wall time; add to ``tally``."""
    ports = [int(u.split(":")[2].split("/")[0]) for u in shards.urls[:n]]
    conns = []
    if kind == "HTTP":
        conns = [[await C.Conn.open("127.0.0.1", p) for _ in range(inflight)] for p in ports]
        queues = [iter(generations[s]) for s in range(n)]
    else:  # the same bodies, without their HTTP head
        queues = [iter([raw[raw.index(b"\r\n\r\n") + 4:] for raw in generations[s]]) for s in range(n)]
    done = 0
    paths0 = dict(getattr(shards.handle, "paths", {})) if kind == "Ray" else {}
    cpu0 = [C.cpu_seconds(p) for p in pids[:n]]
    ray0 = _cpu(ray_pids)
    t0, c0, b0 = time.perf_counter(), time.process_time(), C.machine_busy_seconds()
    deadline = t0 + seconds

    async def http_worker(conn, queue):
        nonlocal done
        for raw in queue:
            if time.perf_counter() > deadline:
                break
            status, body = await conn.request(raw)
            if status != 200:
                raise RuntimeError(f"HTTP {status}: {body[:300]!r}")
            done += 1

    async def ray_worker(queue, shard):
        nonlocal done
        # As the HTTP side posts to the shard's URL, the handle is told the shard (unless --ray-split)
        # and answers a view of the answer where it lies (unless --ray-copy).
        given = None if ray_split else shard
        for raw in queue:
            if time.perf_counter() > deadline:
                break
            await shards.handle.batch_async(raw, shard=given, copy=ray_copy)
            done += 1

    if kind == "HTTP":
        workers = [http_worker(c, queues[s]) for s in range(n) for c in conns[s]]
    else:
        workers = [ray_worker(queues[s], s) for s in range(n) for _ in range(inflight)]
    await asyncio.gather(*workers)
    tally.wall += time.perf_counter() - t0
    tally.client += time.process_time() - c0
    tally.busy += C.machine_busy_seconds() - b0
    tally.shards += sum(C.cpu_seconds(p) - c for p, c in zip(pids[:n], cpu0))
    tally.ray += _cpu(ray_pids) - ray0
    tally.calls += done * shards.batch_size
    for k, v in paths0.items():
        tally.paths[k] = tally.paths.get(k, 0) + shards.handle.paths[k] - v
    for row in conns:
        for c in row:
            c.close()


def _cpu(pids: list) -> float:
    total = 0.0
    for p in pids:
        try:
            total += C.cpu_seconds(p)
        except OSError:  # it ended
            pass
    return total


def ray_processes(shard_pids: list) -> list:
    """Ray's own processes (GCS, raylet, agents, idle workers): every process under this one but the shards."""
    children: dict = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat[stat.rindex(")") + 2:].split()[1]), []).append(int(entry.name))
    found, todo = [], [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return [p for p in found if p not in shard_pids]


class Shards:
    """The cluster under test: its URLs, its Ray handle, a workload per shard."""

    def __init__(self, cluster, handle, workloads, batch_size):
        self.cluster, self.handle, self.workloads, self.batch_size = cluster, handle, workloads, batch_size
        self.urls = cluster.urls


async def run(args, progress) -> dict:
    with tempfile.TemporaryDirectory(prefix="sandworld-bench-cluster-") as scratch:
        return await _run(args, progress, args.data_dir or scratch)


async def _run(args, progress, data_dir: str) -> dict:
    from sandworld.ray import RayShards
    from sw_runtime.api import protocol
    from sw_runtime.app import build_app
    from sw_runtime.cluster.launch import Cluster
    from sw_runtime.config import Settings

    # The shards keep their action logs in data_dir/shard-N: a throwaway folder unless asked, so that no
    # later server started in this checkout replays the bench's episodes.
    settings = Settings.from_env(data_dir=data_dir)
    cluster = Cluster.start(2, build_app, port=free_ports(2), settings=settings, protocol=protocol.configured)
    try:
        pids = cluster.pids()
        ray_pids = ray_processes(pids)
        handle = RayShards(local_socket=not args.ray_no_socket)
        rng = random.Random(args.rng_seed)
        workloads = []
        ports = [int(url.split(":")[2].split("/")[0]) for url in cluster.urls]
        for port in ports:
            workloads.append(B.Workload(await C.Conn.open("127.0.0.1", port), args, rng))
        shards = Shards(cluster, handle, workloads, args.batch_size)
        tallies = {cfg: Tally() for cfg in CONFIGS}
        per_round = args.seconds / args.rounds
        for r in range(args.rounds):
            # The shards keep every generation's episodes, so a later turn of a round runs on a bigger
            # heap (more for the garbage collector to walk): each round starts one configuration later.
            for kind, n in CONFIGS[r % len(CONFIGS):] + CONFIGS[:r % len(CONFIGS)]:
                # each turn gets fresh episodes, made while the clock is stopped
                generations = []
                for w, port in zip(workloads[:n], ports):
                    # a fresh connection: the one kept since the last turn may have idled past the
                    # shard's keep-alive timeout while a busy machine ran the other turns
                    w.conn.close()
                    w.conn = await C.Conn.open("127.0.0.1", port)
                    generations.append(await w.batch_generation("coinpurse"))
                await measure(kind, n, generations, pids, ray_pids, shards, per_round, args.inflight,
                              tallies[(kind, n)], args.ray_split, args.ray_copy)
                progress(f"round {r + 1}: {kind}, {n} actor(s)")
        rows = []
        for kind, n in CONFIGS:
            t = tallies[(kind, n)]
            rows.append(C.row(f"{kind}, {n} actor{'s' if n > 1 else ''}", t.rate(), "calls/s", note=t.note()))
        rows += ratios(tallies)
        params = {k: getattr(args, k) for k in ("seconds", "rounds", "episodes", "seeds", "batch_size",
                                                 "steps_per_episode", "inflight", "rng_seed", "ray_split",
                                                 "ray_copy", "ray_no_socket")}
        return C.report("bench_cluster", params, rows)
    finally:
        cluster.stop()


def _ratio(a, b):
    return a / b if a is not None and b else None


def ratios(tallies: dict) -> list:
    """The figures the cluster is for: HTTP 2 actors / 1 actor (wall clock), and the Ray handle
    against HTTP per shard CPU-second and per caller CPU-second (the issue's two measures), with
    its wall-clock ratio beside them for information."""
    rows = []
    scale = _ratio(tallies[("HTTP", 2)].rate(), tallies[("HTTP", 1)].rate())
    rows.append(C.row("HTTP: 2 actors / 1 actor", scale, "x", ">= 1.7 (quiet machine)",
                      None if scale is None else scale >= 1.7, "calls per second, wall clock"))
    for n in (1, 2):
        ray, http = tallies[("Ray", n)], tallies[("HTTP", n)]
        actors = f"{n} actor{'s' if n > 1 else ''}"
        for what, measure, note in (("per shard CPU", "per_shard_cpu", "calls per shard CPU-second"),
                                    ("per caller core", "per_caller_cpu",
                                     "calls per second per CPU-second of the calling process")):
            ratio = _ratio(getattr(ray, measure)(), getattr(http, measure)())
            rows.append(C.row(f"Ray / HTTP {what}, {actors}", ratio, "x", ">= 1",
                              None if ratio is None else ratio >= 1.0, note))
        wall = _ratio(ray.rate(), http.rate())
        rows.append(C.row(f"Ray / HTTP wall, {actors}", wall, "x",
                          note="for information: a busy machine moves it"))
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=20.0, help="timed seconds per configuration, over all rounds")
    p.add_argument("--rounds", type=int, default=4, help="turns each configuration takes (they alternate)")
    p.add_argument("--episodes", type=int, default=1000, help="live episodes per shard per generation")
    p.add_argument("--seeds", type=int, default=200, help="distinct seeds the episodes spread over")
    p.add_argument("--batch-size", type=int, default=1000, help="calls per /batch")
    p.add_argument("--steps-per-episode", type=int, default=180, help="calls per episode (under the 200-step limit)")
    p.add_argument("--inflight", type=int, default=2, help="batches in flight per shard")
    p.add_argument("--ray-split", action="store_true",
                   help="the Ray handle finds each batch's shard from its ids (default: told it, as HTTP posts to its URL)")
    p.add_argument("--ray-copy", action="store_true",
                   help="the Ray handle answers bytes of their own (default: a view of the answer where it lies)")
    p.add_argument("--ray-no-socket", action="store_true",
                   help="the Ray handle sends every batch as an actor call (default: over the shard's local socket)")
    p.add_argument("--rng-seed", type=int, default=0, help="seed of the workload's random choices")
    p.add_argument("--data-dir", default=None,
                   help="the shards' data folder (their action logs); default: a temporary one, removed after")
    C.common_args(p)
    args = p.parse_args(argv)
    C.use_uvloop()
    progress = C.Progress(args.progress, len(CONFIGS) * args.rounds)
    C.emit(asyncio.run(run(args, progress)), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
