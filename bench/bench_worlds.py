"""What a world costs per episode, world beside world: create, a reference episode, verify.

In process, the engine alone (no HTTP), for each world of ``--worlds``
(default coinpurse and airline, issue 29's comparison with tau2-bench's
airline domain, whose reset and reward run a Python environment per
episode):

- **generate**: ``generate(seed)``, the seeded start state built from
  nothing, the first time a seed is used (the engine keeps it after that);
- **create**: ``engine.create`` of a task on a seed already generated and
  set up (the episode: its fork of the start state, its checks, its clock);
- **set up a task**: the task's ``setup`` on a seed's start state, the first
  time (instruction, checks and reference solution computed from the state);
- **reference episode**: every call of the task's reference solution;
- **verify**: ``engine.submit`` with the reference output (every check,
  ``no_collateral``'s diff, the score).

Each figure is the median over ``--rounds`` rounds of every task on
``--seeds`` seeds, in microseconds per episode (and per call for the
episode).

    python bench/bench_worlds.py
    python bench/bench_worlds.py --worlds airline quickbasket --seeds 20 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402


def measure(world_name: str, seeds: int, rounds: int) -> dict:
    from sw_runtime import schemas
    from sw_runtime.engine.engine import Engine
    from sw_runtime.worlds import registry

    world = registry()[world_name]
    engine = Engine()
    gen, setups = [], []
    for seed in range(seeds):
        t = time.perf_counter()
        world.generate(seed)
        gen.append(time.perf_counter() - t)
        store = engine.seeds.get(world, seed).store
        for task in world.tasks:
            t = time.perf_counter()
            task.setup(store.fork())
            setups.append(time.perf_counter() - t)
    for seed in range(seeds):  # warm: the engine's seed cache and every task's setup on it
        for task in world.tasks:
            engine.create(world_name, schemas.CreateEpisode(task_id=task.id, seed=seed))
    create, play, verify, calls = [], [], [], 0
    for _ in range(rounds):
        c = p = v = 0.0
        n = 0
        for seed in range(seeds):
            for task in world.tasks:
                t0 = time.perf_counter()
                ep = engine.create(world_name, schemas.CreateEpisode(task_id=task.id, seed=seed))
                t1 = time.perf_counter()
                for tool, args in ep.setup.solution:
                    engine.step(ep.id, tool, args)
                t2 = time.perf_counter()
                engine.submit(ep.id, ep.setup.output)
                t3 = time.perf_counter()
                c, p, v = c + t1 - t0, p + t2 - t1, v + t3 - t2
                n += 1
                calls += len(ep.setup.solution)
        create.append(c / n)
        play.append(p / n)
        verify.append(v / n)
    episodes = rounds * seeds * len(world.tasks)
    return {"generate": statistics.median(gen), "setup": statistics.median(setups), "create": statistics.median(create),
            "episode": statistics.median(play), "verify": statistics.median(verify),
            "calls": calls / episodes, "tasks": len(world.tasks)}


async def run(args) -> dict:
    rows = []
    for name in args.worlds:
        m = measure(name, args.seeds, args.rounds)
        us = 1e6
        note = f"{m['tasks']} tasks x {args.seeds} seeds"
        rows += [
            C.row(f"{name}: generate a seed", m["generate"] * us, "µs", note="the first episode of a seed"),
            C.row(f"{name}: set up a task", m["setup"] * us, "µs", note="the first episode of a task on a seed"),
            C.row(f"{name}: create", m["create"] * us, "µs/episode", note=note),
            C.row(f"{name}: reference episode", m["episode"] * us, "µs/episode",
                  note=f"{m['calls']:.1f} calls, {m['episode'] / m['calls'] * us:.1f} µs per call"),
            C.row(f"{name}: verify", m["verify"] * us, "µs/episode", note="submit: every check and the score"),
        ]
    return {"rows": rows}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--worlds", nargs="+", default=["coinpurse", "airline"], help="the worlds, side by side")
    p.add_argument("--seeds", type=int, default=10, help="seeds per world (default %(default)s)")
    p.add_argument("--rounds", type=int, default=3, help="rounds; each figure is their median (default %(default)s)")
    C.common_args(p)
    return C.run_main("bench_worlds", p, run, argv)


if __name__ == "__main__":
    sys.exit(main())
