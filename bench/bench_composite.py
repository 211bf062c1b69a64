"""/batch steps/s on composite episodes beside single-world ones, in one run.

Starts one real server and, in turns (so a noisy machine hits both alike),
drives three workloads, a block of batches each per turn, through ``POST /api/v1/batch``, each a batch of
``--calls`` calls spread over ``--episodes`` open episodes:

- **single**: codehost episodes, reads and writes of codehost alone;
- **composite, codehost calls**: codehost+offsite-planning episodes, the
  same codehost calls (what a composite costs a call to one of its worlds);
- **composite, both worlds**: the same episodes, half the calls to codehost
  and half to Slack and Calendar (the cross-app mix a real task makes).

Figures are steps per wall second and per server CPU-second (the server's own
user+system time over the timed rounds), and each composite figure as a ratio
of the single one measured in the same run. ``bench/README.md`` records them.

    .venv/bin/python bench/bench_composite.py            # the defaults: 64 episodes, 1,000-call batches
    .venv/bin/python bench/bench_composite.py --json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Conn, common_args, cpu_seconds, post, row, run_main, server  # noqa: E402

API = "/api/v1"
PAIR = ["codehost", "offsite-planning"]

CODEHOST = [
    ("repos.get", {"owner": "acme", "repo": "api"}),
    ("issues.listForRepo", {"owner": "acme", "repo": "api", "state": "open"}),
    ("pulls.list", {"owner": "acme", "repo": "web"}),
    ("issues.createComment", {"owner": "acme", "repo": "api", "issue_number": 1, "body": "Looking into it"}),
]
OFFICE = [
    ("slack.conversations.list", {}),
    ("slack.conversations.history", {"channel": "C_GENERAL", "limit": 5}),
    ("calendar.calendarList.list", {}),
    ("slack.chat.postMessage", {"channel": "C_GENERAL", "text": "Standup moved to 10:00"}),
]


def calls_body(ids: list, tools: list, n: int) -> bytes:
    calls = [{"episode_id": ids[i % len(ids)], "tool": tools[i % len(tools)][0], "arguments": tools[i % len(tools)][1]}
             for i in range(n)]
    return orjson.dumps({"calls": calls})


async def create(conn: Conn, body: dict, path: str, n: int) -> list:
    ids = []
    for _ in range(n):
        ep = await conn.json(post(path, orjson.dumps(body)), expect=201)
        ids.append(ep["episode_id"])
    return ids


async def run(args) -> dict:
    with server(args=("--durability", "none", "--step-limit", "100000")) as (host, port, pid):
        conn = await Conn.open(host, port)
        single = await create(conn, {"seed": 1}, f"{API}/environments/codehost/episodes", args.episodes)
        both = await create(conn, {"environments": PAIR, "seed": 1}, f"{API}/episodes", args.episodes)
        mix = [t for pair in zip(CODEHOST, OFFICE) for t in pair]
        workloads = {
            "single": post(f"{API}/batch", calls_body(single, CODEHOST, args.calls)),
            "composite, codehost calls": post(f"{API}/batch", calls_body(both, CODEHOST, args.calls)),
            "composite, both worlds": post(f"{API}/batch", calls_body(both, mix, args.calls)),
        }
        for raw in workloads.values():  # warm up: every tool once, and the answers' caches
            await conn.json(raw)
        wall = dict.fromkeys(workloads, 0.0)
        cpu = dict.fromkeys(workloads, 0.0)
        for _ in range(args.rounds):
            for name, raw in workloads.items():
                # a block of batches per turn: the server's CPU time is counted in 10 ms ticks
                c0, t0 = cpu_seconds(pid), time.perf_counter()
                for _ in range(args.block):
                    status, _body = await conn.request(raw)
                    if status != 200:
                        raise RuntimeError(f"/batch answered {status}")
                wall[name] += time.perf_counter() - t0
                cpu[name] += cpu_seconds(pid) - c0
        conn.close()
    steps = args.calls * args.rounds * args.block
    rows = []
    base_wall, base_cpu = steps / wall["single"], steps / max(cpu["single"], 1e-9)
    for name in workloads:
        per_wall, per_cpu = steps / wall[name], steps / max(cpu[name], 1e-9)
        rows.append(row(f"{name}: steps/s", per_wall, "steps/s"))
        rows.append(row(f"{name}: per server CPU-second", per_cpu, "steps/s"))
        if name != "single":
            rows.append(row(f"{name} / single", per_cpu / base_cpu, "x",
                            note=f"per server CPU-second (wall: {per_wall / base_wall:.2f}x)"))
    return {"rows": rows}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--episodes", type=int, default=64, help="open episodes per workload (default 64)")
    p.add_argument("--calls", type=int, default=1000, help="calls per /batch (default 1,000)")
    p.add_argument("--rounds", type=int, default=8, help="turns of the three workloads (default 8)")
    p.add_argument("--block", type=int, default=10, help="batches per workload in each turn (default 10)")
    common_args(p)
    return run_main("composite", p, run, argv)


if __name__ == "__main__":
    raise SystemExit(main())
