"""Where a coinpurse call's time goes, tool by tool, in process.

Three figures, CPU time at ``Episode.answer`` (the engine's step, no
HTTP, no batch plumbing) unless said, on live episodes shaped like bench_batch.py's (a):

- **the (a) mix, per tool**: ``--episodes`` episodes on ``--seeds`` seeds,
  stepped round-robin (every call to another episode, as a 1,000-call
  ``/batch`` does), with the read cache on as the server runs it, and off;
- **the same reads, hot and spread**: each read tool with the cache off,
  ``--repeat`` times in a row on one episode ("hot": its records stay in the
  CPU's caches), and once per episode round-robin ("spread"). The gap is
  what waiting on memory costs a call. Then the same again as 1,000-call
  batches through ``Engine.batch_parts`` (the compiled loop a ``/batch``
  runs, which prefetches the episodes a few calls ahead; ``SW_PREFETCH=0``
  turns that off);
- **the engine's own share**: a read the cache answers, and dummy's
  ``noop``: what a step costs around a tool that does (almost) nothing.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

READS = ("get_balance", "list_requests", "list_contacts", "list_transactions")


class Lab:
    """An engine with live coinpurse episodes that took ``warm`` steps of the (a) mix."""

    def __init__(self, args, cache: bool):
        import msgspec
        import orjson

        from bench_batch import SeedFacts, coinpurse_call
        from sw_runtime import schemas
        from sw_runtime.engine.engine import Engine
        from sw_runtime.engine.read_cache import READS as cache_
        from sw_runtime.config import Settings
        from sw_runtime.worlds import get_world

        steps = args.warm + args.rounds + 2 * (args.repeat + 2) * len(READS) + 10  # every call below, on one episode
        self.engine = Engine(Settings(step_limit=steps))
        cache_.clear()
        cache_.hits = cache_.misses = 0
        if not cache:
            cache_.resize(0)
        self.cache = cache_
        self.rng = random.Random(args.rng_seed)
        self.call, self.dumps = coinpurse_call, orjson.dumps
        self.schemas, self.raw = schemas, msgspec.Raw
        tasks = [t.id for t in get_world("coinpurse").tasks]
        self.facts = {s: SeedFacts(s) for s in range(1000, 1000 + args.seeds)}
        self.episodes = []
        for i in range(args.episodes):
            seed = 1000 + i % args.seeds
            req = msgspec.json.decode(orjson.dumps({"seed": seed, "task_id": tasks[i % len(tasks)]}),
                                      type=schemas.CreateEpisode)
            self.episodes.append((self.engine.create("coinpurse", req), seed))
        self.mix(args.warm)  # the (a) shape: stores with writes of their own

    def call_of(self, ep, tool: str):
        """A batch's call of ``tool`` on ``ep`` with no arguments, decoded as the server decodes it."""
        return self.schemas.Call(episode_id=ep.id, tool=tool, arguments=self.raw(b"{}"))

    def batches(self, calls: list, size: int = 1000) -> None:
        for i in range(0, len(calls), size):
            self.engine.batch_parts(calls[i:i + size], [b""])

    def calls(self, rounds: int) -> list:
        out = []
        for _ in range(rounds):
            for ep, seed in self.episodes:
                c = self.call(self.rng, "", self.facts[seed])
                out.append((ep.answer, c["tool"], self.dumps(c["arguments"])))
        return out

    def mix(self, rounds: int) -> dict:
        """Step ``rounds`` calls per episode round-robin: {tool: (calls, seconds)}."""
        spent = defaultdict(lambda: [0, 0.0])
        clock = time.process_time
        todo = self.calls(rounds)
        gc.collect()
        hits, misses = self.cache.hits, self.cache.misses
        for answer, tool, args in todo:
            t = clock()
            answer(tool, args)
            s = spent[tool]
            s[0] += 1
            s[1] += clock() - t
        looked = self.cache.hits - hits + self.cache.misses - misses
        self.hit_rate = (self.cache.hits - hits) / looked if looked else None
        return spent


def per_call(fn, n: int) -> float:
    gc.collect()
    t = time.process_time()
    fn()
    return (time.process_time() - t) / n * 1e6


async def run(args) -> dict:
    rows = []
    cached = Lab(args, cache=True)
    on = cached.mix(args.rounds)
    lab = Lab(args, cache=False)
    off = lab.mix(args.rounds)
    total_on = sum(s for _n, s in on.values())
    for tool in sorted(on, key=lambda t: -on[t][1]):
        n, s = on[tool]
        n_off, s_off = off.get(tool, (0, 0.0))
        rows.append(C.row(f"(a) mix: {tool}", s / n * 1e6, "µs per call", "", None,
                          f"{s / total_on:.0%} of the mix's time with the read cache; "
                          f"{s_off / max(1, n_off) * 1e6:.2f} µs without it"))
    n_all = sum(n for n, _s in on.values())
    rows.append(C.row("(a) mix: every call", total_on / n_all * 1e6, "µs per call", "", None,
                      f"{n_all:,} calls over {args.episodes:,} episodes; {cached.hit_rate:.0%} of the pure reads hit "
                      "the read cache"))

    eps = [ep for ep, _seed in lab.episodes]
    for tool in READS:
        hot = per_call(lambda: [ep.answer(tool, b"{}") for ep in eps[: args.hot_episodes] for _ in range(args.repeat)],
                       args.hot_episodes * args.repeat)
        spread = per_call(lambda: [ep.answer(tool, b"{}") for _ in range(2) for ep in eps], 2 * len(eps))
        rows.append(C.row(f"{tool}, hot / spread", spread, "µs per call (spread)", "", None,
                          f"hot {hot:.2f} µs: {args.repeat} in a row on one episode; spread: round-robin over "
                          f"{len(eps):,} episodes; spread / hot {spread / hot:.2f}, cache off"))

    # The same reads as a /batch runs them (Engine.batch_parts: the compiled
    # loop, which prefetches the episodes ahead of the call it runs), 1,000
    # calls per batch: hot, each episode ``repeat`` calls in a row; spread,
    # every call to the next episode.
    for tool in READS:
        hot_calls = [lab.call_of(ep, tool) for ep in eps[: args.hot_episodes] for _ in range(args.repeat)]
        spread_calls = [lab.call_of(ep, tool) for _ in range(2) for ep in eps]
        hot = per_call(lambda: lab.batches(hot_calls), len(hot_calls))
        spread = per_call(lambda: lab.batches(spread_calls), len(spread_calls))
        rows.append(C.row(f"{tool}, hot / spread in /batch", spread, "µs per call (spread)", "", None,
                          f"hot {hot:.2f} µs; through Engine.batch_parts, 1,000 calls a batch; spread / hot "
                          f"{spread / hot:.2f}, cache off"))

    cached = Lab(args, cache=True)
    eps = [ep for ep, _seed in cached.episodes]
    [ep.answer("get_balance", b"{}") for ep in eps]  # now each episode's next one is a hit
    hits = cached.cache.hits
    hit = per_call(lambda: [ep.answer("get_balance", b"{}") for _ in range(2) for ep in eps], 2 * len(eps))
    rows.append(C.row("a read the cache answers", hit, "µs per call", "", None,
                      f"get_balance again, round-robin; {cached.cache.hits - hits:,} hits of {2 * len(eps):,}"))
    noop = _noop(args)
    rows.append(C.row("dummy noop", noop, "µs per call", "", None,
                      "decode, run, encode and record a step whose tool does nothing"))
    return {"rows": rows}


def _noop(args) -> float:
    import msgspec

    from sw_runtime import schemas
    from sw_runtime.config import Settings
    from sw_runtime.engine.engine import Engine

    engine = Engine(Settings(step_limit=args.rounds + 1))
    req = msgspec.json.decode(b'{"seed": 1}', type=schemas.CreateEpisode)
    eps = [engine.create("dummy", req) for _ in range(args.episodes)]
    return per_call(lambda: [ep.answer("noop", b"{}") for _ in range(args.rounds) for ep in eps],
                    args.rounds * len(eps))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--episodes", type=int, default=1000, help="live episodes, stepped round-robin")
    p.add_argument("--seeds", type=int, default=100, help="distinct seeds the episodes spread over")
    p.add_argument("--warm", type=int, default=20, help="(a)-mix steps each episode takes before anything is timed")
    p.add_argument("--rounds", type=int, default=100, help="timed (a)-mix calls per episode")
    p.add_argument("--repeat", type=int, default=50, help="calls in a row on one episode for 'hot'")
    p.add_argument("--hot-episodes", type=int, default=200, help="episodes the hot loop goes through")
    p.add_argument("--rng-seed", type=int, default=0, help="seed of the workload's random choices")
    C.common_args(p)
    return p


def main(argv=None) -> int:
    return C.run_main("bench_tools", parser(), run, argv)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
