"""A bounded soak: the server under a steady training-like load for minutes.

Starts a real server (its own temporary data folder, the action log on) and
runs ``--clients`` loops of create -> one ``/batch`` of ``--steps`` calls ->
submit on coinpurse, with one episode in ``--abandon`` left unsubmitted (it
must end by the idle timeout and free its room). Meanwhile ``/healthz`` is
probed every 0.2 s and the server's RSS sampled every 2 s. Prints the RSS
slope after warm-up (target <= 1 MiB/min), the 429 count (target 0) and
``/healthz`` p50/p99/max, plus cycles per second and the live episodes and
results stored at the end.

The issue's soak is 10 minutes (``--minutes 10``); the default is 3.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

import httpx
from sandworld.local import local_server_process

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402


def slope_mib_per_min(samples: list) -> float | None:
    """Least-squares slope of (seconds, bytes) samples, in MiB per minute."""
    if len(samples) < 3:
        return None
    n = len(samples)
    mx = sum(t for t, _ in samples) / n
    my = sum(b for _, b in samples) / n
    var = sum((t - mx) ** 2 for t, _ in samples)
    if not var:
        return None
    cov = sum((t - mx) * (b - my) for t, b in samples)
    return cov / var * 60 / 2**20


def pct(values: list, q: float):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


async def cycle_forever(http, end: float, args, stats: dict, rng: random.Random) -> None:
    tools = ["get_balance", "list_requests", "list_contacts", "list_transactions"]
    while time.monotonic() < end:
        r = await http.post("/environments/coinpurse/episodes",
                            json={"task_id": f"cp-{rng.randrange(1, 13):02d}", "seed": rng.randrange(args.seeds)})
        if r.status_code == 429:
            stats["429"] += 1
            await asyncio.sleep(0.1)
            continue
        r.raise_for_status()
        eid = r.json()["episode_id"]
        calls = [{"episode_id": eid, "tool": rng.choice(tools), "arguments": {}} for _ in range(args.steps)]
        (await http.post("/batch", json={"calls": calls})).raise_for_status()
        stats["steps"] += args.steps
        if rng.randrange(args.abandon) != 0:
            (await http.post(f"/episodes/{eid}/submit", json={"output": "done"})).raise_for_status()
        else:
            stats["abandoned"] += 1
        stats["cycles"] += 1


def probe(root: str, seconds: float, out) -> None:
    """``/healthz`` latencies, from a process of its own: a probe sharing the
    load generator's event loop would time the generator, not the server."""
    lat = []
    end = time.monotonic() + seconds
    with httpx.Client(timeout=30) as http:
        while time.monotonic() < end:
            t = time.perf_counter()
            http.get(f"{root}/healthz").raise_for_status()
            lat.append(time.perf_counter() - t)
            time.sleep(0.2)
    out.send(lat)


async def sample_rss(pid: int, start: float, end: float, rss: list) -> None:
    while time.monotonic() < end:
        rss.append((time.monotonic() - start, C.rss_bytes(pid)))
        await asyncio.sleep(2)


async def run(args) -> dict:
    data = tempfile.mkdtemp(prefix="soak-")
    serve = ("--data-dir", data, "--idle-timeout", str(args.idle_timeout), "--max-episodes", str(args.max_episodes))
    with local_server_process(*serve) as (url, proc):
        root = url.removesuffix("/api/v1")
        stats = {"429": 0, "steps": 0, "cycles": 0, "abandoned": 0}
        rss = []
        start = time.monotonic()
        end = start + args.minutes * 60
        limits = httpx.Limits(max_connections=args.clients + 2)
        mine, theirs = multiprocessing.Pipe()
        prober = multiprocessing.Process(target=probe, args=(root, args.minutes * 60, theirs))
        prober.start()
        async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
            rng = random.Random(0)
            await asyncio.gather(
                *(cycle_forever(http, end, args, stats, random.Random(rng.random())) for _ in range(args.clients)),
                sample_rss(proc.pid, start, end, rss),
            )
            health = (await http.get(f"{root}/healthz")).json()
        lat = mine.recv()
        prober.join()
        warm = args.minutes * 60 * args.warmup
        after = [(t, b) for t, b in rss if t >= warm]
        slope = slope_mib_per_min(after)
    wall = args.minutes * 60
    rows = [
        C.row("RSS slope after warm-up", slope, "MiB/min", "<= 1", None if slope is None else slope <= 1,
              f"{len(after)} samples after {warm:.0f} s of warm-up; RSS {rss[0][1] / 2**20:.0f} -> "
              f"{rss[-1][1] / 2**20:.0f} MiB"),
        C.row("429 answers", stats["429"], "", "0", stats["429"] == 0,
              f"--max-episodes {args.max_episodes}, 1 in {args.abandon} episodes abandoned "
              f"({stats['abandoned']}), idle timeout {args.idle_timeout:g} s: about "
              f"{stats['abandoned'] / wall * args.idle_timeout:.0f} open while they wait it out"),
        C.row("/healthz p50", (pct(lat, 0.5) or 0) * 1e3, "ms", "", None, f"{len(lat)} probes"),
        C.row("/healthz p99", (pct(lat, 0.99) or 0) * 1e3, "ms", "<= 100", (pct(lat, 0.99) or 0) < 0.1),
        C.row("/healthz max", max(lat) * 1e3 if lat else None, "ms"),
        C.row("cycles", stats["cycles"] / wall, "per s", "", None,
              f"create -> /batch of {args.steps} -> submit, {args.clients} clients; {stats['steps']:,} steps"),
        C.row("open episodes at the end", health["open"], "", "", None),
    ]
    return {"rows": rows}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--minutes", type=float, default=3.0, help="how long the soak runs (the issue's soak: 10)")
    p.add_argument("--warmup", type=float, default=0.3, help="share of the run left out of the RSS slope")
    p.add_argument("--clients", type=int, default=4, help="concurrent create-batch-submit loops")
    p.add_argument("--steps", type=int, default=50, help="calls per episode, in one /batch")
    p.add_argument("--abandon", type=int, default=10, help="one episode in this many is never submitted")
    # Abandoned episodes hold their room for the idle timeout: at 406 cycles/s
    # (2026-12-01) that is ~40 a second for 5 s, ~210 open, past the 200 this
    # was. 1,000 leaves room for a faster server; a leak (abandoned episodes
    # never ending) still fills it within a minute.
    p.add_argument("--max-episodes", type=int, default=1000, help="the server's open-episode cap")
    p.add_argument("--seeds", type=int, default=20,
                   help="distinct seeds (x 12 tasks): the server caches each one's start state and task setups, "
                        "so a wide range keeps the cache growing through the run and hides a leak's slope")
    p.add_argument("--idle-timeout", type=float, default=5.0, help="the server's idle timeout, seconds")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def main(argv=None) -> int:
    return C.run_main("soak", parser(), run, argv)


if __name__ == "__main__":
    sys.exit(main())
