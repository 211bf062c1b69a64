"""What the action log costs the hot path, measured in one run.

Starts two servers side by side, one keeping the action log
(``--durability write``, the default, or ``--mode fsync``) and one without
(``--durability none``), and drives the (a) workload of ``bench_batch.py``
(coinpurse ``/batch`` of 1,000 calls, 40 % reads of the balance, 30 % list,
30 % writes) on each in alternating rounds, so both see the same machine.
Prints steps/s with the log, without, and the ratio (target >= 0.8), plus
the log's size per step.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
import bench_batch as B  # noqa: E402


async def run(args) -> dict:
    data = tempfile.mkdtemp(prefix="bench-log-")
    on_args = ("--data-dir", data, "--durability", args.mode)
    with C.server(args.core, args=on_args) as on, C.server(args.core, args=("--durability", "none")) as off:
        sides = {}
        for name, (host, port, pid) in (("on", on), ("off", off)):
            setup = await C.Conn.open(host, port)
            w = B.Workload(setup, args, random.Random(args.rng_seed))
            for s in w.seeds:
                w.seed_facts(s)
            await w.episodes_for("coinpurse", min(args.episodes, len(w.seeds) * 2))  # warm-up
            setup.close()
            sides[name] = (w, (host, port), B.Meter(pid), [0])
        for r in range(1, args.rounds + 1):
            for name in ("on", "off") if r % 2 else ("off", "on"):
                w, (host, port), meter, n = sides[name]
                # fresh connections each round: the other side's round may outlast the keep-alive
                w.conn = await C.Conn.open(host, port)
                conns = [await C.Conn.open(host, port) for _ in range(args.inflight)]
                done, _, _ = await B.drive(conns, lambda w=w: w.batch_generation("coinpurse"), meter,
                                           seconds=args.seconds * r / args.rounds)
                n[0] += done
                for c in (w.conn, *conns):
                    c.close()
    rate = {k: v[3][0] * args.batch_size / v[2].wall for k, v in sides.items()}
    steps_on = sides["on"][3][0] * args.batch_size
    log_bytes = sum(f.stat().st_size for f in Path(data).rglob("actions.log"))
    ratio = rate["on"] / rate["off"]
    cpu = {k: v[2].per_cpu(v[3][0] * args.batch_size) for k, v in sides.items()}
    cpu_ratio = cpu["on"] / cpu["off"] if cpu["on"] and cpu["off"] else None
    return {"rows": [
        C.row(f"(a) with the log ({args.mode})", rate["on"], "steps/s", "", None, sides["on"][2].note(steps_on)),
        C.row("(a) without (--durability none)", rate["off"], "steps/s", "", None,
              sides["off"][2].note(sides["off"][3][0] * args.batch_size)),
        C.row("with / without", ratio, "", ">= 0.8", ratio >= 0.8, f"{args.rounds} alternating rounds"),
        C.row("with / without, per server CPU-second", cpu_ratio, "", ">= 0.8",
              None if cpu_ratio is None else cpu_ratio >= 0.8, "less sensitive to a busy machine"),
        C.row("log bytes per step", log_bytes / max(1, steps_on), "bytes", "", None,
              f"{log_bytes / 2**20:.0f} MiB of log for the run"),
    ]}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--mode", choices=["write", "fsync"], default="write", help="the logging server's durability")
    p.add_argument("--core", choices=["cython", "pure"], default="cython", help="the servers' state core")
    p.add_argument("--seconds", type=float, default=8.0, help="timed seconds per side")
    p.add_argument("--rounds", type=int, default=4, help="alternating rounds the seconds are split into")
    p.add_argument("--episodes", type=int, default=2000, help="live episodes per generation")
    p.add_argument("--seeds", type=int, default=500, help="distinct seeds the episodes spread over")
    p.add_argument("--batch-size", type=int, default=1000, help="calls per /batch")
    p.add_argument("--steps-per-episode", type=int, default=180, help="calls per episode (under the step limit)")
    p.add_argument("--inflight", type=int, default=2, help="/batch requests in flight")
    p.add_argument("--rng-seed", type=int, default=0, help="seed of the workload's random choices")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def main(argv=None) -> int:
    return C.run_main("bench_log", parser(), run, argv)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
