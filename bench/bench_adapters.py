"""Trainer adapters stepping many episodes at once: one request per step against ``/batch``.

Starts one real server and drives ``--episodes`` concurrent episodes through
the adapters' own stepping code, in turns (so a noisy machine weighs on both
alike), each turn once per step and once batched:

- **verl**: ``VerlEpisode.act`` on one generated turn per call (Hermes
  ``<tool_call>`` text parsed, stepped, answered as a tool message), the
  episodes as tasks of one event loop as verl's agent-loop worker runs them;
  per step (``batcher=None``: one ``POST /step`` each) against an
  ``AsyncStepBatcher`` (their concurrent steps coalesce into ``/batch``);
- **skyrl**: ``SandworldTextEnv.step`` in a pool of 32 threads, as SkyRL's
  generator runs env steps (``max_env_workers``), with ``batch_window`` 0
  (one request per step) against the default (a shared ``StepBatcher``).

Every episode makes ``--turns`` turns of one call (reads and writes of
coinpurse, most succeed). Figures: calls per wall second, the client's CPU
per 1,000 calls (this process's user+system time: the adapters, the HTTP
client and the batcher), the server's, requests per call, and the batched /
per-step ratio of each, all from one run. ``bench/README.md`` records them.

    .venv/bin/python bench/bench_adapters.py            # the defaults: 64 episodes, 20 turns, 3 rounds
    .venv/bin/python bench/bench_adapters.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import common_args, cpu_seconds, row, run_main, server  # noqa: E402

from sandworld import AsyncSandworldClient, AsyncStepBatcher  # noqa: E402
from sandworld.integrations.verl import VerlEpisode  # noqa: E402

MIX = [("get_balance", {}), ("list_requests", {"status": "pending"}), ("list_contacts", {}),
       ("request_money", {"handle": "@theo-park", "amount": 1, "note": "bench"}), ("list_transactions", {})]


def turn(i: int) -> str:
    tool, arguments = MIX[i % len(MIX)]
    return f"<tool_call>\n{json.dumps({'name': tool, 'arguments': arguments})}\n</tool_call>"


def _clock(pid: int) -> tuple:
    return time.perf_counter(), time.process_time(), cpu_seconds(pid)


def _figures(start: tuple, pid: int, calls: int, requests: int) -> dict:
    wall, client, served = (b - a for a, b in zip(start, _clock(pid)))
    return {"wall": wall, "client": client, "server": served, "calls": calls, "requests": requests}


async def verl_round(url: str, pid: int, args, batched: bool) -> dict:
    async with AsyncSandworldClient(url, max_connections=args.episodes) as client:
        batcher = AsyncStepBatcher(client) if batched else None
        episodes = [VerlEpisode(client, "coinpurse", batcher) for _ in range(args.episodes)]
        await asyncio.gather(*(e.start(task_id="cp-04", seed=i % 8) for i, e in enumerate(episodes)))

        async def play(k: int, episode: VerlEpisode):
            for i in range(args.turns):
                (message,) = await episode.act(turn(k + i))
                assert message["role"] == "tool"

        start = _clock(pid)
        await asyncio.gather(*(play(k, e) for k, e in enumerate(episodes)))
        calls = args.episodes * args.turns
        return _figures(start, pid, calls, batcher.requests if batched else calls)


async def skyrl_round(url: str, pid: int, args, batched: bool) -> dict:
    import skyrl_gym

    from sandworld.integrations.skyrl import SandworldTextEnv, register_worlds

    register_worlds(base_url=url, worlds=["coinpurse"])
    config = {"base_url": url, **({} if batched else {"batch_window": 0})}
    envs = [skyrl_gym.make("sandworld/coinpurse", env_config=config,
                           extras={"task_id": "cp-04", "seed": i % 8, "max_turns": args.turns + 1})
            for i in range(args.episodes)]
    loop = asyncio.get_running_loop()
    with ThreadPoolExecutor(max_workers=32) as pool:
        await asyncio.gather(*(loop.run_in_executor(pool, e.init, []) for e in envs))
        _, batcher = SandworldTextEnv._connection(url, 0.002)
        before = batcher.requests

        async def play(k: int, env):
            for i in range(args.turns):
                out = await loop.run_in_executor(pool, env.step, turn(k + i))
                assert not out["done"]

        start = _clock(pid)
        await asyncio.gather(*(play(k, e) for k, e in enumerate(envs)))
        calls = args.episodes * args.turns
        return _figures(start, pid, calls, batcher.requests - before if batched else calls)


async def run(args) -> dict:
    rounds = {"verl": verl_round, "skyrl": skyrl_round}
    modes = [m for m in args.adapters.split(",") if m]
    got = {(m, b): [] for m in modes for b in (False, True)}
    with server(args=("--durability", "none", "--step-limit", "100000")) as (host, port, pid):
        url = f"http://{host}:{port}/api/v1"
        for _ in range(args.rounds):
            for mode in modes:
                for batched in (False, True):
                    got[(mode, batched)].append(await rounds[mode](url, pid, args, batched))
    rows = []
    for mode in modes:
        rate = {}
        for batched in (False, True):
            runs = got[(mode, batched)]
            calls = sum(r["calls"] for r in runs)
            wall, client, served = (sum(r[k] for r in runs) for k in ("wall", "client", "server"))
            label = f"{mode}, {'batched' if batched else 'per step'}"
            rate[batched] = (calls / wall, client / calls)
            rows += [row(f"{label}: calls/s", calls / wall, "calls/s"),
                     row(f"{label}: client CPU", 1e6 * client / calls, "µs / call"),
                     row(f"{label}: server CPU", 1e6 * served / calls, "µs / call"),
                     row(f"{label}: requests per call", sum(r["requests"] for r in runs) / calls, "")]
        rows += [row(f"{mode}: batched / per step, calls/s", rate[True][0] / rate[False][0], "x"),
                 row(f"{mode}: per step / batched, client CPU", rate[False][1] / rate[True][1], "x")]
    return {"rows": rows, "load_average": os.getloadavg()[0]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--episodes", type=int, default=64, help="concurrent episodes (default 64)")
    p.add_argument("--turns", type=int, default=20, help="one-call turns per episode per round (default 20)")
    p.add_argument("--rounds", type=int, default=3, help="turns of per-step and batched, alternating (default 3)")
    p.add_argument("--adapters", default="verl,skyrl", help="which adapters: verl, skyrl (default both)")
    common_args(p)
    return run_main("bench_adapters", p, run, argv)


if __name__ == "__main__":
    sys.exit(main())
