"""What the garbage collector costs the (a) workload, per threshold setting.

Runs the (a) mix of ``bench_batch.py`` (coinpurse ``/batch`` of 1,000 calls,
40 % balance reads, 30 % listings, 30 % writes, over a generation of live
episodes) through the service in process, with the action log on: no HTTP,
so the collector's share is not lost in the socket's noise. Each setting of
``--thresholds`` runs in a Python process of its own (the collector is
process-wide), set up as the server sets itself up (``settle_memory``:
everything loaded is frozen first), and the settings take turns over
``--rounds`` rounds, so each sees the same machine.

Per setting: CPU per call, the collector's collections, total time and
longest pause by generation, and each batch's wall time (p50, p99, max).
The server's own setting is ``sw_runtime.app.GC_THRESHOLDS``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
from bench_batch import SeedFacts, coinpurse_call, percentile  # noqa: E402

_OLD = "50000,50,1000"  # the server's setting before 2026-12-01: one young generation of 50,000


def thresholds(text: str) -> tuple:
    parts = tuple(int(p) for p in text.split(","))
    if len(parts) != 3 or min(parts) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give three positive integers, e.g. 5000,10,50000")
    return parts


# -- one setting, in its own process ----------------------------------------------------


async def _child(args) -> dict:
    import orjson

    from sw_runtime.app import settle_memory
    from sw_runtime.config import Settings
    from sw_runtime.service import Service
    from sw_runtime.worlds import get_world

    settle_memory(args.child)  # as the server sets itself up, with this setting
    spent: dict = {}
    began = [0.0]

    def watch(phase, info):
        if phase == "start":
            began[0] = time.perf_counter()
            return
        took = time.perf_counter() - began[0]
        n, total, longest = spent.get(info["generation"], (0, 0.0, 0.0))
        spent[info["generation"]] = (n + 1, total + took, max(longest, took))

    svc = Service(Settings(data_dir=tempfile.mkdtemp(prefix="bench-gc-")))
    await svc.start()
    tasks = [t.id for t in get_world("coinpurse").tasks]
    rng = random.Random(args.rng_seed)
    facts: dict = {}
    cpu, calls, batches = 0.0, 0, []
    gc.callbacks.append(watch)
    for g in range(args.generations):
        items = [{"environment": "coinpurse", "task_id": tasks[i % len(tasks)],
                  "seed": 1000 + (g * args.episodes + i) % args.seeds} for i in range(args.episodes)]
        eps = []
        for i in range(0, len(items), 1000):
            answer = await svc.create_many(orjson.dumps({"episodes": items[i:i + 1000]}))
            eps += [(r["episode_id"], items[i + k]["seed"]) for k, r in enumerate(orjson.loads(answer.body)["results"])]
        frags = []
        for _ in range(args.steps_per_episode):
            for eid, seed in eps:
                f = facts.get(seed) or facts.setdefault(seed, SeedFacts(seed))
                frags.append(orjson.dumps(coinpurse_call(rng, eid, f)))
        bodies = [b'{"calls":[' + b",".join(frags[i:i + args.batch_size]) + b"]}"
                  for i in range(0, len(frags) - args.batch_size + 1, args.batch_size)]
        t0 = time.process_time()
        for body in bodies:
            t = time.perf_counter()
            await svc.batch(body)
            batches.append(time.perf_counter() - t)
        cpu += time.process_time() - t0
        calls += len(bodies) * args.batch_size
    gc.callbacks.remove(watch)
    await svc.stop()
    return {"cpu": cpu, "calls": calls, "batches": batches, "gc": {str(k): v for k, v in spent.items()}}


# -- the comparison ---------------------------------------------------------------------


async def run(args) -> dict:
    settings = list(dict.fromkeys(args.thresholds or [_server_thresholds(), thresholds(_OLD), (700, 10, 10)]))
    seen: dict = {s: {"cpu": 0.0, "calls": 0, "batches": [], "gc": {}} for s in settings}
    for r in range(args.rounds):
        for s in settings if r % 2 == 0 else settings[::-1]:
            cmd = [sys.executable, __file__, "--child", ",".join(map(str, s)), "--generations", str(args.generations),
                   "--episodes", str(args.episodes), "--seeds", str(args.seeds), "--batch-size", str(args.batch_size),
                   "--steps-per-episode", str(args.steps_per_episode), "--rng-seed", str(args.rng_seed + r)]
            done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
            if done.returncode != 0:
                raise RuntimeError(f"the run with thresholds {s} failed:\n{done.stderr[-3000:]}")
            got, total = json.loads(done.stdout), seen[s]
            total["cpu"] += got["cpu"]
            total["calls"] += got["calls"]
            total["batches"] += got["batches"]
            for gen, (n, spent, longest) in got["gc"].items():
                n0, spent0, longest0 = total["gc"].get(gen, (0, 0.0, 0.0))
                total["gc"][gen] = (n0 + n, spent0 + spent, max(longest0, longest))
    server = tuple(_server_thresholds())
    rows = []
    for s, t in seen.items():
        name = ",".join(map(str, s)) + (" (the server's)" if s == server else "")
        gcs = t["gc"]
        spent = sum(v[1] for v in gcs.values())
        longest = max((v[2] for v in gcs.values()), default=0.0)
        lat = t["batches"]
        by_gen = "; ".join(f"gen {g}: {n:,} collections, {sec:.2f} s, longest {lo * 1e3:.1f} ms"
                           for g, (n, sec, lo) in sorted(gcs.items()))
        rows += [
            C.row(f"{name}: CPU per call", t["cpu"] / t["calls"] * 1e6, "µs", "", None,
                  f"{t['calls']:,} calls in {args.rounds} rounds"),
            C.row(f"{name}: collector time", spent / t["calls"] * 1e6, "µs per call", "", None, by_gen or "none"),
            C.row(f"{name}: longest pause", longest * 1e3, "ms"),
            C.row(f"{name}: batch p99", percentile(lat, 0.99) * 1e3, "ms", "", None,
                  f"p50 {percentile(lat, 0.5) * 1e3:.1f} ms, max {max(lat) * 1e3:.1f} ms, {len(lat):,} batches "
                  f"of {args.batch_size}"),
        ]
    return {"rows": rows}


def _server_thresholds() -> tuple:
    from sw_runtime.app import GC_THRESHOLDS

    return GC_THRESHOLDS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--thresholds", type=thresholds, nargs="+", metavar="G0,G1,G2",
                   help="settings to compare (gc.set_threshold's three numbers); default: the server's, "
                        f"{_OLD} (before 2026-12-01) and CPython's 700,10,10")
    p.add_argument("--rounds", type=int, default=2, help="rounds; each runs every setting once, in turns")
    p.add_argument("--generations", type=int, default=4,
                   help="generations of episodes per run: the heap grows, as on a server that has run a while")
    p.add_argument("--episodes", type=int, default=2000, help="live episodes per generation")
    p.add_argument("--seeds", type=int, default=500, help="distinct seeds the episodes spread over")
    p.add_argument("--batch-size", type=int, default=1000, help="calls per /batch")
    p.add_argument("--steps-per-episode", type=int, default=180, help="calls per episode (under the step limit)")
    p.add_argument("--rng-seed", type=int, default=0, help="seed of the workload's random choices")
    p.add_argument("--child", type=thresholds, help=argparse.SUPPRESS)  # one run, its figures as JSON
    C.common_args(p)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.child:
        print(json.dumps(asyncio.run(_child(args))))
        return 0
    return C.run_main("bench_gc", parser(), run, argv)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
