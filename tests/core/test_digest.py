"""The state digest: incremental upkeep, order independence, both
implementations agreeing, and the SHA-256 backends."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import pytest

from . import reference, scripts
from .conftest import load

RECORDS = {f"r{i}": {"i": i, "name": f"record {i}", "tags": ["x", i]} for i in range(30)}


def test_digest_format(impl):
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", impl.Store().digest())
    assert impl.DIGEST_DOMAIN == b"sandworld-state-v1"


def test_accumulator_is_the_sum_of_record_hashes(impl):
    s = impl.Store({"t": RECORDS})
    expected = sum(impl.record_hash("t", rid, r) for rid, r in RECORDS.items()) % 2**256
    assert s.accumulator == expected
    assert s.digest() == impl.digest_of_acc(expected) == reference.digest({"t": RECORDS})


def test_digest_of_acc_range(impl):
    assert impl.digest_of_acc(0) == impl.Store().digest()
    assert impl.digest_of_acc(2**256 - 1) == reference.digest_of_acc(2**256 - 1)
    for bad in (2**256, -1):
        with pytest.raises(OverflowError):
            impl.digest_of_acc(bad)


def test_digest_follows_writes(impl):
    s = impl.Store({"t": {"a": {"v": 1}}})
    empty, one = impl.Store().digest(), s.digest()
    s.update("t", "a", {"v": 2})
    two = s.digest()
    s.update("t", "a", {"v": 1})
    assert s.digest() == one != two
    s.remove("t", "a")
    assert s.digest() == empty


def test_digest_tells_where_a_record_lives(impl):
    record = {"v": 1}
    variants = [
        impl.Store({"a": {"x": record}}),
        impl.Store({"b": {"x": record}}),
        impl.Store({"a": {"y": record}}),
        impl.Store({"a": {"x": {"v": True}}}),  # 1 == True in Python, not in JSON
        impl.Store({"a": {"x": {"v": "1"}}}),
    ]
    assert len({s.digest() for s in variants}) == len(variants)


def test_order_independence(impl):
    """One final state reached by different operation orders: one digest."""
    target = impl.Store({"t": RECORDS, "u": {"a": {"v": 1}}}, collections=["empty"]).digest()
    for seed in range(5):
        rng = random.Random(seed)
        items = [("t", rid, r) for rid, r in RECORDS.items()] + [("u", "a", {"v": 1})]
        rng.shuffle(items)
        names = ["t", "u", "empty"]
        rng.shuffle(names)
        s = impl.Store(collections=names)
        for k, (collection, rid, record) in enumerate(items):
            if k % 7 == 0:
                s = s.fork()
            if k % 3 == 0:  # a detour: wrong content first, then fixed
                s.insert(collection, rid, {"wrong": k})
                s.put(collection, rid, record)
            elif k % 3 == 1:
                s.insert(collection, rid, record)
                s.remove(collection, rid)
                s.insert(collection, rid, record)
            else:
                s.put(collection, rid, {**record, "extra": True})
                s.update(collection, rid, {"extra": None})
                s.put(collection, rid, record)
        assert s.digest() == target


def test_incremental_digest_matches_recompute_after_random_ops(impl):
    """4000 seeded operations with forks between them, mirrored on plain
    dicts. Regularly, every store's digest must equal a recomputation, the
    reference digest of the model, and a fresh store's; diffs must match."""
    script = scripts.random_script(seed=7, length=4000)
    stores = [impl.Store(collections=scripts.COLLECTIONS)]
    models = [{name: {} for name in scripts.COLLECTIONS}]
    rng = random.Random(11)
    for step, op in enumerate(script, 1):
        assert scripts.apply(stores, op) == scripts.apply_to_model(models, op), (step, op)
        if step % 200 and step != len(script):
            continue
        for store, model in zip(stores, models):
            assert store.to_dict() == model
            assert [store.count(c) for c in model] == [len(r) for r in model.values()]
            assert store.digest() == store.recompute_digest() == reference.digest(model)
            assert impl.Store(model).digest() == store.digest()
            for c, records in model.items():
                expected = [(rid, r) for rid, r in sorted(records.items()) if r.get("status") == "open"]
                assert store.scan(c, where={"status": "open"}) == expected
        for _ in range(10):
            i, j = rng.randrange(len(stores)), rng.randrange(len(stores))
            assert stores[i].diff(stores[j]) == reference.diff(models[i], models[j])
    assert len(stores) > 30  # the script did fork
    assert {op[0] for op in script} == {"fork", "insert", "put", "update", "remove"}


def test_both_implementations_agree_on_a_script():
    """Same script, same outcome and digest after every operation."""
    script = scripts.random_script(seed=2024, length=3000)
    results = []
    for name in ("cython", "python"):
        module = load(name)
        stores = [module.Store(collections=scripts.COLLECTIONS)]
        log = []
        for op in script:
            outcome = scripts.apply(stores, op)
            log.append((outcome, stores[-1 if op[0] == "fork" else op[1]].digest()))
        dumps = [s.to_dict() for s in stores]
        diffs = [stores[i].diff(stores[0]) for i in range(len(stores))]
        results.append((log, dumps, diffs))
    assert results[0] == results[1]


@pytest.mark.parametrize("cap", ["libcrypto-oneshot", "hashlib"])
def test_sha256_fallbacks_agree(cap):
    """The Cython core hashes with libcrypto's SHA256_Init/Update/Final when
    it finds them, else SHA256(), else hashlib; SW_SHA256 caps the choice
    (here in a child process). Every backend gives the same digests."""
    state = {"t": RECORDS, "ü": {"ключ": {"v": [1, {"n": None}]}}, "big": {"x": {"s": "x" * 5000}}}
    program = (
        "import json, sys; from sw_core_ext import _store as m; "
        "s = m.Store(json.loads(sys.argv[1])); "
        "print(json.dumps([m.SHA256_BACKEND, s.digest(), str(m.record_hash('t', 'r1', {}))]))"
    )
    env = {**os.environ, "SW_SHA256": cap}
    out = subprocess.run(
        [sys.executable, "-c", program, json.dumps(state)], env=env, check=True, capture_output=True, text=True
    ).stdout
    backend, digest, record_hash = json.loads(out)
    module = load("cython")
    assert backend == cap
    assert digest == module.Store(state).digest() == reference.digest(state)
    assert int(record_hash) == module.record_hash("t", "r1", {}) == reference.record_hash("t", "r1", {})


def test_sha256_backend_is_known():
    assert load("cython").SHA256_BACKEND in ("libcrypto", "libcrypto-oneshot", "hashlib")


def test_limb_arithmetic_carries_and_borrows():
    """The Cython accumulator adds and subtracts in four 64-bit limbs. Hashes
    almost never make a limb carry chain or an equal-limb borrow happen, so
    feed the limb code crafted values."""
    limb_add = load("cython")._limb_arith
    m = 2**64
    edges = [0, 1, m - 1, m, m + 1, m**2 - 1, m**2, m**3 - 1, m**3, m**4 - 1, m**4 - m, (m - 1) * m**2 + 5]
    rng = random.Random(3)
    edges += [rng.getrandbits(256) for _ in range(50)]
    edges += [sum(rng.choice([0, 1, m - 1]) * m**i for i in range(4)) for _ in range(50)]
    for a in edges:
        for b in edges:
            assert limb_add(a, b) == (a + b) % m**4, (a, b)
            assert limb_add(a, b, True) == (a - b) % m**4, (a, b)
