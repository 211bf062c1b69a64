"""Memory of live episodes: RSS for 100,000 coinpurse episodes in one engine.

In-process (no HTTP): an ``Engine`` warms ``--seeds`` seeds (start state and
task setup cached, one task per seed), then the baseline RSS is read; it
creates ``--episodes`` episodes over those seeds (the RSS again), then makes
``--steps`` calls in each (get_balance, send_money, decline_request, ...: two
of three write) and reads the RSS a last time. RSS comes from
/proc/self/status after ``gc.collect()``. Reported: bytes per episode beyond
the baseline, just created and after its steps (which adds its trace and the
records it changed), and bytes per step.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

CALLS = (
    ("get_balance", {}),
    ("send_money", {"contact_id": "c-001", "amount": 125, "note": "bench"}),
    ("decline_request", {"request_id": None}),  # the seed's first pending request
    ("request_money", {"contact_id": "c-002", "amount": 900, "note": "bench"}),
    ("list_requests", {"status": "pending"}),
)


def rss() -> int:
    gc.collect()
    return C.rss_bytes()


def run(args, progress) -> list:
    from sw_runtime import schemas
    from sw_runtime.config import Settings
    from sw_runtime.engine.engine import Engine
    from sw_runtime.worlds import get_world

    world = get_world("coinpurse")
    tasks = [t.id for t in world.tasks]
    engine = Engine(Settings(max_episodes=args.episodes + args.seeds + 10, seed_cache=args.seeds + 10))
    seeds = range(5000, 5000 + args.seeds)
    pending = {}
    for s in seeds:  # warm: start state + task setup per seed, then forget the episode
        ep = engine.create("coinpurse", schemas.CreateEpisode(task_id=tasks[s % len(tasks)], seed=s))
        requests = ep.store.scan("requests", {"status": "pending"})
        pending[s] = requests[0][0] if requests else "rq-01"
        del engine.episodes[ep.id]
    progress("warm seeds")
    base = rss()

    t = time.perf_counter()
    ids = []
    for i in range(args.episodes):
        s = seeds[i % len(seeds)]
        ids.append((engine.create("coinpurse", schemas.CreateEpisode(task_id=tasks[s % len(tasks)], seed=s)).id, s))
    create_s = time.perf_counter() - t
    created = rss()
    progress("create")

    t = time.perf_counter()
    for eid, s in ids:
        for tool, arguments in CALLS[: args.steps]:
            if tool == "decline_request":
                arguments = {"request_id": pending[s]}
            engine.step(eid, tool, arguments)
    step_s = time.perf_counter() - t
    stepped = rss()
    progress("steps")

    n, k = args.episodes, args.steps
    per_created = (created - base) / n
    per_stepped = (stepped - base) / n
    per_step = (stepped - created) / (n * k) if k else None
    live = len(engine.episodes)
    return [
        C.row("baseline RSS", base / 2**20, "MiB", "", None, f"{args.seeds:,} seeds cached (start states, setups)"),
        C.row(f"RSS, {live:,} live episodes", stepped / 2**20, "MiB", "", None, f"after {k} steps each"),
        C.row("per episode, just created", per_created, "bytes", "<= 8,192", per_created <= 8192,
              "beyond the baseline: the episode, its fork, its bookkeeping"),
        C.row(f"per episode, after {k} steps", per_stepped, "bytes", "", None,
              "adds the trace and the records its writes copied"),
        C.row("per step", per_step, "bytes", "", None, "trace entry, result, copied records"),
        C.row("create, in process", create_s / n * 1e6, "µs/episode", "", None, "cached seeds, no HTTP"),
        C.row("step, in process", step_s / (n * k) * 1e6 if k else None, "µs/step", "", None, "engine.step, no HTTP"),
    ]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--core", choices=["cython", "pure"], default="cython", help="the state core")
    p.add_argument("--episodes", type=int, default=100_000, help="live episodes")
    p.add_argument("--seeds", type=int, default=1000, help="distinct seeds they spread over")
    p.add_argument("--steps", type=int, default=3, choices=range(len(CALLS) + 1), metavar=f"0..{len(CALLS)}",
                   help="calls per episode (get_balance, send_money, decline_request, request_money, list_requests)")
    C.common_args(p)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    os.environ["SW_PURE"] = "1" if args.core == "pure" else "0"  # before sw_core_ext is imported
    import sw_core_ext

    want = "python" if args.core == "pure" else "cython"
    if sw_core_ext.IMPLEMENTATION != want:
        raise SystemExit(f"asked for the {want} core, loaded {sw_core_ext.IMPLEMENTATION}")
    progress = C.Progress(args.progress, total=3)
    rows = run(args, progress)
    params = {k: v for k, v in vars(args).items() if k not in ("json", "progress")}
    C.emit(C.report("bench_memory", params, rows), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
