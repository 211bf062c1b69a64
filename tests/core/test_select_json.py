"""``Store.select_json``: ``select``'s answer as one ``orjson.Fragment`` of its
JSON (run on both implementations).

Its bytes must be exactly ``orjson.dumps(select(...))``'s, whatever the store
went through: rows and records that are not rows, shaped and shapeless
collections, updates, removes, forks, pickles, and rows whose dict a read
built before (or after) their JSON was made. The seeded random scripts of
test_shapes.py drive it; a few cases pin what it keeps and does not.
"""

from __future__ import annotations

import pickle
import random
import sys
import tracemalloc

import orjson
import pytest

from .test_shapes import SHAPES, _queries, _script


@pytest.fixture(autouse=True)
def _compact(monkeypatch):
    """Shapes honoured, whatever the environment says."""
    monkeypatch.delenv("SW_LAYOUT", raising=False)


def _both(store, c, where, between, order_by, reverse, limit, json_first=True):
    """``(select_json's bytes, orjson.dumps(select))``, or the error each
    raised; ``json_first``: select_json called first."""
    out = {}
    for call in ("select_json", "select") if json_first else ("select", "select_json"):
        try:
            got = getattr(store, call)(c, where, between=between, order_by=order_by, reverse=reverse, limit=limit)
        except (KeyError, TypeError, ValueError) as e:
            out[call] = (type(e).__name__, str(e))
            continue
        if call == "select_json":
            assert type(got) is orjson.Fragment
        out[call] = orjson.dumps(got)
    return out["select_json"], out["select"]


def _check(impl, shapes, seed: int) -> int:
    """Play ``seed``'s script, comparing select_json with select after every
    step (each query in both orders, so a row's JSON is made both before and
    after a read built its dict); now and then the store is pickled and the
    script goes on on the restored copy. The number of comparisons."""
    stores = [impl.Store(collections=list(SHAPES), shapes=shapes)]
    rng = random.Random(seed + 2000)
    n = 0
    for kind, collection, rid, arg in _script(seed):
        store = stores[-1]
        if kind == "fork":
            stores.append(store.fork())
            continue
        try:
            getattr(store, kind)(collection, rid, arg) if kind != "remove" else store.remove(collection, rid)
        except KeyError:
            pass
        if rng.random() < 0.05:  # by value: the restored store has rows of its own, no JSON made yet
            stores[-1] = pickle.loads(pickle.dumps(store))
            store = stores[-1]
        for query in _queries(rng):
            as_json, plain = _both(store, *query, json_first=rng.random() < 0.5)
            assert as_json == plain, (seed, n, query)
            n += 1
        for older in stores[:-1]:  # a fork's parent (and its rows) as they were
            query = (collection, None, None, "id", False, None)
            a, b = _both(older, *query)
            assert a == b
    for store in stores:
        for c in SHAPES:
            a, b = _both(store, c, None, None, None, False, None)
            assert a == b == orjson.dumps(list(store.to_dict([c])[c].values()))
    return n


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("shaped", [True, False], ids=["shaped", "shapeless"])
def test_select_json_is_the_bytes_of_select(impl, seed, shaped):
    assert _check(impl, SHAPES if shaped else None, seed) > 1000


def test_select_json_with_sw_layout_dicts(impl, monkeypatch):
    monkeypatch.setenv("SW_LAYOUT", "dicts")  # shapes ignored: every record a dict, encoded each time
    assert _check(impl, SHAPES, 5) > 1000


def test_a_row_listed_as_json_then_read_gives_its_dict(impl):
    store = impl.Store({"orders": {
        "o1": {"id": "o1", "status": "paid", "total": 10, "at": "2026-01-03"},
        "o2": {"status": "open", "id": "o2", "total": 20, "at": "2026-01-02"},  # another key order: a dict
        "o3": {"id": "o3", "status": "open", "total": 30, "at": "2026-01-02", "extra": [1, {"a": None}]},
    }, "notes": {"n1": {"text": "日本", "x": 1.5}}}, shapes={"orders": SHAPES["orders"]})
    listed = orjson.dumps(store.select_json("orders", order_by=("at", "id")))
    assert listed == orjson.dumps(store.select("orders", order_by=("at", "id")))
    assert store.get("orders", "o1") == {"id": "o1", "status": "paid", "total": 10, "at": "2026-01-03"}
    assert list(store.get("orders", "o1")) == list(SHAPES["orders"]) and list(store.get("orders", "o2"))[0] == "status"
    assert orjson.dumps(store.select_json("notes")) == b'[{"text":"\xe6\x97\xa5\xe6\x9c\xac","x":1.5}]'
    assert orjson.dumps(store.select_json("orders", {"status": "none"})) == b"[]"
    assert orjson.dumps({"orders": store.select_json("orders", limit=1), "n": 1}) == \
        orjson.dumps({"orders": store.select("orders", limit=1), "n": 1})
    # A write makes a new row: its JSON is its own, the old row's stays the parent's.
    child = store.fork()
    child.update("orders", "o1", {"status": "void"})
    assert b'"void"' in orjson.dumps(child.select_json("orders")) and b'"void"' not in orjson.dumps(
        store.select_json("orders"))
    child.remove("orders", "o1")
    assert orjson.dumps(child.select_json("orders")) == orjson.dumps(child.select("orders"))
    with pytest.raises(KeyError):
        store.select_json("nope")
    with pytest.raises(ValueError):
        store.select_json("orders", limit=-1)


def test_a_pickle_carries_no_json_and_select_json_keeps_no_dicts(impl):
    data = {"orders": {f"o{i:04d}": {"id": f"o{i:04d}", "status": "open", "total": i,
                                     "at": f"2026-01-01T00:00:{i % 60:02d}.000Z"} for i in range(2000)}}
    shapes = {"orders": SHAPES["orders"]}

    def grown(store, call) -> int:
        """Bytes ``call`` leaves held in ``store`` (its answer dropped)."""
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        call(store)
        size = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        return size

    def listed(s):
        s.select_json("orders")

    def selected(s):
        s.select("orders")

    store = impl.Store(data, shapes=shapes)
    made = grown(store, listed)  # every row's JSON, kept
    assert made > 0 and grown(store, listed) < made / 20  # made once
    # select_json kept no dict: the first select after it builds every row's
    # (measured against the dicts' own size: the allocator's free lists make
    # a comparison of two runs noisy).
    after = grown(store, selected)
    assert after > 0.9 * 2000 * sys.getsizeof(store.get("orders", "o0001"))
    assert grown(store, selected) < after / 20
    # A pickle holds records, not their JSON (pickling builds the rows' dicts: to_dict).
    pickled = pickle.dumps(impl.Store(data, shapes=shapes))
    listed_first = impl.Store(data, shapes=shapes)
    listed_first.select_json("orders")
    assert pickle.dumps(listed_first) == pickled
    back = pickle.loads(pickled)
    assert orjson.dumps(back.select_json("orders")) == orjson.dumps(back.select("orders"))
