"""The state core alone, on both implementations (Cython and pure Python).

Times, per operation:
- fork of a 100-record state and of a 100,000-record state (and their ratio:
  copy-on-write means a fork must not grow with the state);
- a write (``update`` of one record) plus the state digest after it, on a fork;
- the digest of a 100-record state and of a 100,000-record state (the digest
  is kept incrementally, so it must not grow with the state either);
- a write+fork chain on the 100,000-record state (each link writes, as a
  payment would: update the account, insert a transaction; then forks and goes
  on in the fork): mean and max µs per fork over ``--chain`` links. Every 24th
  fork flattens the layer chain (``MAX_DEPTH``), so the max is that flattening
  (with, inside the same fork, freeing the layers it replaced).

Each figure is the best of ``--repeat`` rounds of ``--number`` operations
(the chain: one run of ``--chain`` links).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

IMPLEMENTATIONS = {"cython": "sw_core_ext._store", "pure": "sw_core_ext._store_py"}
COLLECTIONS = ("account", "requests", "transactions")


def state(n: int) -> dict:
    """A coinpurse-like state of ``n`` records over three collections."""
    tx = {f"tx-{i:06d}": {"id": f"tx-{i:06d}", "type": "payment", "direction": "out", "amount": 100 + i % 9000,
                          "counterparty": f"Person {i % 97}", "note": "Thai takeout", "created_at":
                          "2026-03-05T12:00:00.000Z"} for i in range(n - 1 - n // 10)}
    rq = {f"rq-{i:06d}": {"id": f"rq-{i:06d}", "amount": 2500, "status": "pending", "handle": f"@p-{i % 97}",
                          "note": "Brunch"} for i in range(n // 10)}
    acct = {"acct": {"id": "acct", "balance": 84218, "daily_limit": 60000, "sent_today": 0}}
    return {"account": acct, "requests": rq, "transactions": tx}


def best(fn, number: int, repeat: int) -> float:
    """Seconds per call of ``fn(number)`` (which runs the operation ``number`` times), best round."""
    rounds = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn(number)
        rounds.append((time.perf_counter() - t) / number)
    return min(rounds)


def chain(store, links: int) -> tuple:
    """Mean and max seconds per fork along a write+fork chain of ``links`` links
    (the cyclic garbage collector paused: its pauses are not the core's)."""
    link = store.fork()  # freeze the seed's records into the chain's first layer
    times = []
    clock = time.perf_counter
    gc.collect()
    gc.disable()
    try:
        for i in range(links):
            link.update("account", "acct", {"balance": i})
            link.insert("transactions", f"chain-{i:06d}", {"id": f"chain-{i:06d}", "amount": i})
            t = clock()
            link = link.fork()
            times.append(clock() - t)
    finally:
        gc.enable()
    return sum(times) / len(times), max(times)


def measure(mod, small: int, large: int, number: int, repeat: int, links: int) -> dict:
    stores = {n: mod.Store(state(n), collections=COLLECTIONS) for n in (small, large)}

    def forks(store):
        def run(k):
            fork = store.fork
            for _ in range(k):
                fork()
        return run

    def digests(store):
        def run(k):
            digest = store.digest
            for _ in range(k):
                digest()
        return run

    def write_digest(store):
        child = store.fork()

        def run(k):
            update, digest = child.update, child.digest
            for i in range(k):
                update("account", "acct", {"balance": i})
                digest()
        return run

    def rehash(store):
        def run(k):
            for _ in range(k):
                store.recompute_digest()
        return run

    out = {}
    for n, s in stores.items():
        out[f"fork_{n}"] = best(forks(s), number, repeat)
        out[f"write_digest_{n}"] = best(write_digest(s), number, repeat)
        out[f"digest_{n}"] = best(digests(s), number, repeat)
        # a full rehash is what an incremental digest saves: few rounds, it is slow
        out[f"rehash_{n}"] = best(rehash(s), max(1, min(number, 200_000 // n)), min(repeat, 3))
    out["chain_mean"], out["chain_max"] = chain(mod.Store(state(large), collections=COLLECTIONS), links)
    return out


def run(args, progress) -> list:
    results = {}
    for name in args.cores:
        mod = importlib.import_module(IMPLEMENTATIONS[name])
        results[name] = measure(mod, args.small, args.large, args.number, args.repeat, args.chain)
        progress(name)
    us = 1e6
    rows = []
    small, large = args.small, args.large
    for name, r in results.items():
        cy = name == "cython"

        def pair(label, key, unit="µs", target_small="", met_small=None, ratio_target="", note=""):
            ratio = r[f"{key}_{large}"] / r[f"{key}_{small}"]
            return [
                C.row(f"{name}: {label}, {small:,} records", r[f"{key}_{small}"] * us, unit, target_small,
                      met_small, note),
                C.row(f"{name}: {label}, {large:,} records", r[f"{key}_{large}"] * us, unit),
                C.row(f"{name}: {label}, ratio {large:,} / {small:,}", ratio, "", ratio_target,
                      (ratio <= 1.5) if ratio_target else None),
            ]

        rows += pair("fork", "fork", target_small="<= 5" if cy else "",
                     met_small=(r[f"fork_{small}"] * us <= 5) if cy else None, ratio_target="<= 1.5" if cy else "",
                     note="fork of a start state, as each new episode does")
        rows += pair("write + digest", "write_digest", note="update one record on a fork, then digest()")
        rows += pair("digest", "digest", note="digest() of an unchanged state (kept incrementally)")
        rows += pair("full rehash", "rehash", note="recompute_digest(): what the incremental digest avoids")
        chain_note = f"{args.chain} links of update + insert + fork; every 24th fork flattens the layer chain"
        rows += [
            C.row(f"{name}: write+fork chain, {large:,} records, mean per fork", r["chain_mean"] * us, "µs",
                  note=chain_note),
            C.row(f"{name}: write+fork chain, {large:,} records, max per fork", r["chain_max"] * us, "µs",
                  note="the worst fork of the chain: a flattening"),
        ]
    return rows


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--cores", nargs="+", choices=sorted(IMPLEMENTATIONS), default=["cython", "pure"],
                   help="implementations to time")
    p.add_argument("--small", type=int, default=100, help="records in the small state")
    p.add_argument("--large", type=int, default=100_000, help="records in the large state")
    p.add_argument("--number", type=int, default=20_000, help="operations per round")
    p.add_argument("--repeat", type=int, default=5, help="rounds; the best counts")
    p.add_argument("--chain", type=int, default=96, help="links of the write+fork chain (flattens every 24th)")
    C.common_args(p)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    progress = C.Progress(args.progress, total=len(args.cores))
    rows = run(args, progress)
    params = {k: v for k, v in vars(args).items() if k not in ("json", "progress")}
    C.emit(C.report("bench_core", params, rows), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
