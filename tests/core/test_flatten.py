"""Long write+fork chains: flattening (every ``MAX_DEPTH`` forks) must keep
every generation's reads, scans, diffs and digests exact, on both cores.

Correctness only, no timing: the cost of a flattening is in bench_core.py.
"""

from __future__ import annotations

import random

import pytest

from . import reference

_MOD = 2**256
RECORDS = 2000
FORKS = 200


class Model:
    """What a store must hold: plain dicts, and the digest accumulator kept
    with the reference's own record hash."""

    def __init__(self, state: dict):
        self.state = {name: dict(records) for name, records in state.items()}
        self.acc = reference.accumulator(self.state)

    def copy(self) -> "Model":
        other = Model.__new__(Model)
        other.state = {name: dict(records) for name, records in self.state.items()}
        other.acc = self.acc
        return other

    def set(self, name: str, rid: str, record) -> None:
        records = self.state[name]
        if rid in records:
            self.acc -= reference.record_hash(name, rid, records[rid])
        records[rid] = record
        self.acc = (self.acc + reference.record_hash(name, rid, record)) % _MOD

    def delete(self, name: str, rid: str) -> None:
        self.acc = (self.acc - reference.record_hash(name, rid, self.state[name].pop(rid))) % _MOD


def write(store, model: Model, rng: random.Random, g: int, removed: list) -> None:
    """A few random writes to collection "t" (updates, puts, inserts in the
    middle and at the end, removes, remove + re-insert in one link, re-inserts
    of ids removed generations ago) and one insert into "log"."""
    t = model.state["t"]
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        live = sorted(t)
        if op < 0.3 and live:
            rid = rng.choice(live)
            model.set("t", rid, store.update("t", rid, {"g": g}))
        elif op < 0.4:
            rid = f"r{rng.randrange(RECORDS * 2):05}"  # live or not
            store.put("t", rid, {"put": g})
            model.set("t", rid, {"put": g})
        elif op < 0.6:
            rid = f"r{rng.randrange(RECORDS * 2):05}"
            if rid not in t:
                store.insert("t", rid, {"new": g})
                model.set("t", rid, {"new": g})
        elif op < 0.8 and live:
            rid = rng.choice(live)
            assert store.remove("t", rid) == t[rid]
            model.delete("t", rid)
            removed.append(rid)
        elif op < 0.9 and live:
            rid = rng.choice(live)
            store.remove("t", rid)
            store.insert("t", rid, {"back": g})
            model.set("t", rid, {"back": g})
        elif removed:
            rid = removed.pop(rng.randrange(len(removed)))
            if rid not in t:
                store.insert("t", rid, {"again": g})
                model.set("t", rid, {"again": g})
    store.insert("log", f"g{g:03}", {"g": g})
    model.set("log", f"g{g:03}", {"g": g})


def expected_diff(mine: dict, base: dict) -> dict:
    """``reference.diff`` with records compared by ``==`` (canonical bytes
    compare the same for these records: ints and strings only), to be quick."""
    out = {}
    for name in sorted(set(mine) | set(base)):
        a, b = base.get(name, {}), mine.get(name, {})
        change = {
            "created": sorted(b.keys() - a.keys()),
            "updated": sorted(rid for rid in a.keys() & b.keys() if a[rid] != b[rid]),
            "removed": sorted(a.keys() - b.keys()),
        }
        if any(change.values()):
            out[name] = change
    return out


def check(store, model: Model, rng: random.Random, full: bool = False) -> None:
    state = model.state
    assert store.collections == sorted(state)
    for name, records in state.items():
        assert store.count(name) == len(records)
        assert store.ids(name) == sorted(records)
        assert store.scan(name) == sorted(records.items())
    probes = rng.sample(range(RECORDS * 2), 20)
    for rid in (f"r{i:05}" for i in probes):
        assert store.get("t", rid) == state["t"].get(rid)
    assert store.accumulator == model.acc
    assert store.digest() == reference.digest_of_acc(model.acc)
    if full:
        assert store.scan("t", where={"g": 3}) == [(k, v) for k, v in sorted(state["t"].items()) if v.get("g") == 3]
        assert store.recompute_digest() == store.digest() == reference.digest(state)
        assert store.to_dict() == state


@pytest.mark.parametrize("scan_every", [0, 1, 5], ids=["never-scanned", "scanned-each-link", "scanned-now-and-then"])
def test_long_write_fork_chain(impl, scan_every):
    """200 forks with writes between them on 2,000 records (flattened about
    every MAX_DEPTH forks), with side branches forked off along the way. Read
    during the chain (scanning at each link, at some, or never: scans cache
    sorted ids in layers, which flattening may reuse) and again at the end,
    after every descendant flattened; diffs across and between flattenings."""
    rng = random.Random(f"flatten-{scan_every}")
    seed = {
        "t": {f"r{i * 2:05}": {"n": i} for i in range(RECORDS)},  # even ids: inserts land in between
        "log": {},
        "still": {f"s{i:03}": {"i": i} for i in range(50)},  # never written
    }
    store = impl.Store(seed)
    model = Model(seed)
    removed: list = []
    chain = [(store, model.copy())]
    branches = []
    for g in range(FORKS):
        store = store.fork()
        write(store, model, rng, g, removed)
        if scan_every and g % scan_every == 0:
            check(store, model, rng)
        chain.append((store, model.copy()))
        if g % 37 == 5:  # a side branch shares the chain's layers, then writes its own
            branch, branch_model = store.fork(), model.copy()
            write(branch, branch_model, rng, 1000 + g, [])
            branches.append((g + 1, branch, branch_model))
    assert len(chain) == FORKS + 1

    for k, (s, m) in enumerate(chain):
        check(s, m, rng, full=(k % 25 == 0 or k == FORKS))
    for _, b, bm in branches:
        check(b, bm, rng, full=True)

    depth = impl.MAX_DEPTH
    pairs = [(0, FORKS), (FORKS - 1, FORKS), (depth - 1, depth + 2), (depth, 2 * depth + 1), (3, 150)]
    pairs += [(k, k + 1) for k in range(0, FORKS, 9)]
    first, last = chain[0][1].state, chain[-1][1].state
    assert expected_diff(last, first) == reference.diff(last, first)
    for a, b in pairs:
        (sa, ma), (sb, mb) = chain[a], chain[b]
        assert sb.diff(sa) == expected_diff(mb.state, ma.state)
        assert sa.diff(sb) == expected_diff(ma.state, mb.state)
    for k, b, bm in branches:
        for other in (k, min(k + depth + 1, FORKS)):
            s, m = chain[other]
            assert b.diff(s) == expected_diff(bm.state, m.state)
            assert s.diff(b) == expected_diff(m.state, bm.state)


def test_flattening_drops_tombstones_and_keeps_reinserted_ids(impl):
    """Records removed, re-inserted and removed again across the layers that
    one flattening merges: the flat state holds exactly the live ones."""
    s = impl.Store({"t": {f"k{i}": {"i": i} for i in range(10)}})
    model = {f"k{i}": {"i": i} for i in range(10)}
    history = []
    for g in range(impl.MAX_DEPTH * 2 + 1):
        s = s.fork()
        rid = f"k{g % 4}"
        if rid in model:
            assert s.remove("t", rid) == model.pop(rid)
        else:
            s.insert("t", rid, {"g": g})
            model[rid] = {"g": g}
        s.insert("t", f"new{g:02}", {"g": g})
        model[f"new{g:02}"] = {"g": g}
        if g % 2:  # inserted and removed in the same layer
            s.remove("t", f"new{g:02}")
            del model[f"new{g:02}"]
        if g % 3 == 0 and f"new{g - 2:02}" in model:  # removed a layer or two above its insert
            s.remove("t", f"new{g - 2:02}")
            del model[f"new{g - 2:02}"]
        history.append((s, {"t": dict(model)}))
    for store, dump in history:
        assert store.to_dict() == dump
        assert store.ids("t") == sorted(dump["t"])
        assert store.count("t") == len(dump["t"])
        assert store.digest() == store.recompute_digest() == reference.digest(dump)
    (first, first_dump), (last, last_dump) = history[0], history[-1]
    assert last.diff(first) == reference.diff(last_dump, first_dump)
    assert first.diff(last) == reference.diff(first_dump, last_dump)
