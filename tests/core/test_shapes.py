"""Declared shapes and the core's queries (run on both implementations).

A shaped collection keeps its records compactly, yet everything a caller
sees is what the same store without shapes shows: the records (down to the
order of their keys), digests, diffs, and every query's answer, which for a
collection without a shape is computed the way worlds did before (a filter,
then ``list.sort`` with ``itemgetter``). Seeded random scripts hold the two
to that; a few cases pin the queries' edges.
"""

from __future__ import annotations

import pickle
import random
import tracemalloc

import orjson
import pytest

@pytest.fixture(autouse=True)
def _compact(monkeypatch):
    """Shapes honoured, whatever the environment says."""
    monkeypatch.delenv("SW_LAYOUT", raising=False)


SHAPES = {"users": ("id", "name", "tier", "age"), "orders": ("id", "status", "total", "at")}
NAMES = ["Ada", "Grace", "Linus", "Zoë", "", "日本"]
TIERS = ["gold", "silver", None, 1, True]
STATUSES = ["open", "paid", "void"]


def _record(rng: random.Random, collection: str, rid: str) -> dict:
    fields = SHAPES[collection]
    values = {
        "id": rid,
        "name": rng.choice(NAMES),
        "tier": rng.choice(TIERS),
        "age": rng.choice([rng.randrange(100), rng.randrange(100) + 0.5]),
        "status": rng.choice(STATUSES),
        "total": rng.randrange(-5, 500),
        "at": f"2026-01-0{rng.randrange(1, 10)}T00:00:00.000Z",
    }
    record = {f: values[f] for f in fields}
    roll = rng.random()
    if roll < 0.1:  # another key order: kept as a dict
        record = dict(reversed(list(record.items())))
    elif roll < 0.15:  # a field short: kept as a dict
        record.pop(rng.choice(fields))
    elif roll < 0.2:  # a field more
        record["extra"] = [1, {"a": None}]
    return record


def _script(seed: int, n: int = 300) -> list:
    rng = random.Random(seed)
    ops = []
    for _ in range(n):
        collection = rng.choice(list(SHAPES))
        rid = f"r{rng.randrange(30):02d}"
        kind = rng.choices(["insert", "put", "update", "remove", "fork"], [4, 2, 4, 2, 1])[0]
        if kind == "update":
            arg = rng.choice([{"status": rng.choice(STATUSES)}, {"total": rng.randrange(500)}, {"name": "Ada"},
                              {"new": 1}, {"age": None}])
        else:
            arg = _record(rng, collection, rid)
        ops.append((kind, collection, rid, arg))
    return ops


def _queries(rng: random.Random) -> list:
    out = []
    for _ in range(12):
        collection = rng.choice(list(SHAPES))
        fields = SHAPES[collection]
        where = rng.choice([None, {}, {fields[2]: rng.choice(TIERS + STATUSES)}, {"id": f"r{rng.randrange(30):02d}"},
                            {"missing": 1}])
        between = rng.choice([None, {}, {"id": ("r05", "r20")}, {"id": (None, "r10")}, {fields[3]: ("2026", None) if collection == "orders" else (10, 50.5)}])
        order_by = rng.choice([None, "id", fields[1], (fields[1], "id"), ("id",)])
        out.append((collection, where, between, order_by, rng.random() < 0.5, rng.choice([None, 0, 3, 100])))
    return out


def _run(impl, shapes, seed: int) -> list:
    """Everything the script's stores answer, as bytes."""
    stores = [impl.Store(collections=list(SHAPES), shapes=shapes)]
    rng = random.Random(seed + 1000)
    seen = []
    for kind, collection, rid, arg in _script(seed):
        store = stores[-1]
        if kind == "fork":
            stores.append(store.fork())
            seen.append(("diff", orjson.dumps(stores[-1].diff(stores[0]))))
            continue
        try:
            got = getattr(store, kind)(collection, rid, arg) if kind != "remove" else store.remove(collection, rid)
        except KeyError as e:
            got = ("KeyError", str(e))
        seen.append((kind, orjson.dumps(got), store.digest(), store.get(collection, rid) and
                     orjson.dumps(store.get(collection, rid))))
        for c, where, between, order_by, reverse, limit in _queries(rng):
            for call in ("scan", "select"):
                try:
                    got = getattr(store, call)(c, where, between=between, order_by=order_by, reverse=reverse,
                                               limit=limit)
                except (KeyError, TypeError) as e:
                    got = (type(e).__name__, str(e))
                seen.append((call, orjson.dumps(got)))
            try:
                seen.append(("count", store.count(c, where, between=between)))
            except TypeError as e:
                seen.append(("count", str(e)))
            try:
                seen.append(("sum", store.sum(c, "total" if c == "orders" else "age", where, between=between)))
            except (KeyError, TypeError) as e:
                seen.append(("sum", type(e).__name__, str(e)))
    for store in stores:
        seen.append(("end", store.digest(), store.recompute_digest(), orjson.dumps(store.to_dict())))
    return seen


@pytest.mark.parametrize("seed", range(12))
def test_a_shaped_store_answers_as_the_same_store_of_dicts(impl, seed):
    plain = _run(impl, None, seed)
    shaped = _run(impl, SHAPES, seed)
    assert len(plain) == len(shaped)
    for n, (a, b) in enumerate(zip(plain, shaped)):
        assert a == b, f"seed {seed}, answer {n}"


def test_the_two_cores_answer_alike():
    from .conftest import load

    assert _run(load("cython"), SHAPES, 3) == _run(load("python"), SHAPES, 3)


@pytest.fixture
def orders(impl):
    return impl.Store({"orders": {
        "o3": {"id": "o3", "status": "open", "total": 30, "at": "2026-01-02"},
        "o1": {"id": "o1", "status": "paid", "total": 10, "at": "2026-01-03"},
        "o2": {"id": "o2", "status": "open", "total": 20, "at": "2026-01-02"},
        "o4": {"status": "void", "id": "o4", "total": 40, "at": "2026-01-01"},  # another order: a dict
    }}, shapes={"orders": SHAPES["orders"]})


def test_queries_filter_sort_and_limit(orders):
    ids = [r["id"] for r in orders.select("orders", {"status": "open"})]
    assert ids == ["o2", "o3"]
    assert [r["id"] for r in orders.select("orders", order_by=("at", "id"))] == ["o4", "o2", "o3", "o1"]
    # stable like list.sort: equal keys keep their id order, reversed too
    assert [r["id"] for r in orders.select("orders", order_by="at", reverse=True)] == ["o1", "o2", "o3", "o4"]
    assert [r["id"] for r in orders.select("orders", order_by="total", reverse=True, limit=2)] == ["o4", "o3"]
    assert [rid for rid, _r in orders.scan("orders", between={"total": (20, 40)})] == ["o2", "o3"]
    assert [rid for rid, _r in orders.scan("orders", between={"at": (None, "2026-01-02")})] == ["o4"]
    assert orders.count("orders", {"status": "open"}) == 2 and orders.count("orders") == 4
    assert orders.count("orders", {"nope": 1}) == 0
    assert orders.sum("orders", "total") == 100 and orders.sum("orders", "total", {"status": "open"}) == 50
    assert orders.sum("orders", "total", {"status": "none"}) == 0
    assert list(orders.get("orders", "o4")) == ["status", "id", "total", "at"]  # its own key order


def test_query_errors(orders):
    with pytest.raises(KeyError):
        orders.select("orders", order_by="nope")
    with pytest.raises(KeyError):
        orders.sum("orders", "nope")
    with pytest.raises(ValueError):
        orders.select("orders", limit=-1)
    with pytest.raises(TypeError):
        orders.select("orders", between={"total": 5})
    with pytest.raises(KeyError):
        orders.select("nope")


def test_shapes_survive_forks_and_pickles_and_writes_return_equal_dicts(orders):
    child = orders.fork()
    assert child.shape("orders") == SHAPES["orders"] and orders.shape("orders") == SHAPES["orders"]
    new = child.update("orders", "o1", {"status": "void"})
    assert new == {"id": "o1", "status": "void", "total": 10, "at": "2026-01-03"} and list(new) == list(SHAPES["orders"])
    assert orders.get("orders", "o1")["status"] == "paid"
    assert child.diff(orders) == {"orders": {"created": [], "updated": ["o1"], "removed": []}}
    back = pickle.loads(pickle.dumps(child))
    assert back.shape("orders") == SHAPES["orders"] and back.digest() == child.digest()
    assert child.remove("orders", "o1") == new


def test_sw_layout_dicts_ignores_shapes(impl, monkeypatch):
    monkeypatch.setenv("SW_LAYOUT", "dicts")
    assert impl.Store(collections=["a"], shapes={"a": ("x",)}).shape("a") is None
    monkeypatch.delenv("SW_LAYOUT")
    assert impl.Store(collections=["a"], shapes={"a": ("x",)}).shape("a") == ("x",)


def test_a_bad_shape_is_refused(impl):
    with pytest.raises(ValueError):
        impl.Store(shapes={"a": ("x", "x")})
    with pytest.raises(TypeError):
        impl.Store(shapes={"a": (1,)})


def test_shaped_records_take_less_memory(impl):
    def held(shapes) -> int:
        """Bytes a store of 2,000 records holds, the records' own strings included."""
        tracemalloc.start()
        data = {"orders": {f"o{i:04d}": {"id": f"o{i:04d}", "status": "open", "total": i,
                                         "at": f"2026-01-01T00:00:{i % 60:02d}.000Z"} for i in range(2000)}}
        store = impl.Store(data, shapes=shapes)
        del data
        size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        assert store.count("orders") == 2000
        return size

    assert held({"orders": SHAPES["orders"]}) < 0.85 * held(None)  # the ids and times are most of the rest
