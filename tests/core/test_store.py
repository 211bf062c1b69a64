"""Reads, writes and their errors (run on both implementations)."""

from __future__ import annotations

import copy
import pickle

import pytest


@pytest.fixture
def store(impl):
    return impl.Store(
        {
            "users": {
                "u2": {"name": "Grace", "tier": "gold", "age": 85},
                "u1": {"name": "Ada", "tier": "gold", "age": 36},
                "u3": {"name": "Linus", "tier": "silver", "age": 54},
            },
            "orders": {},
        }
    )


def test_constructor_collections(impl):
    s = impl.Store({"b": {"x": {}}}, collections=["c", "a"])
    assert s.collections == ["a", "b", "c"]
    assert s.has_collection("a") and s.has_collection("b")
    assert not s.has_collection("d")
    assert s.count("a") == 0 and s.count("b") == 1
    assert impl.Store().collections == []


def test_get_count_ids(store):
    assert store.get("users", "u1") == {"name": "Ada", "tier": "gold", "age": 36}
    assert store.get("users", "nope") is None
    assert store.count("users") == 3
    assert store.count("orders") == 0
    assert store.ids("users") == ["u1", "u2", "u3"]
    assert store.ids("orders") == []


def test_ids_returns_a_fresh_list(store):
    store.ids("users").append("zzz")
    assert store.ids("users") == ["u1", "u2", "u3"]


def test_insert(store):
    assert store.insert("orders", "o1", {"user": "u1"}) is None
    assert store.get("orders", "o1") == {"user": "u1"}
    assert store.count("orders") == 1


def test_insert_existing_raises(store):
    with pytest.raises(KeyError, match=r"users\[u1\] exists"):
        store.insert("users", "u1", {})
    assert store.get("users", "u1")["name"] == "Ada"


def test_put_inserts_then_replaces(store):
    store.put("orders", "o1", {"v": 1})
    assert store.count("orders") == 1
    store.put("orders", "o1", {"w": 2})
    assert store.get("orders", "o1") == {"w": 2}
    assert store.count("orders") == 1


def test_update_merges_shallowly_and_returns_a_new_record(store):
    before = store.get("users", "u1")
    after = store.update("users", "u1", {"tier": "platinum", "vip": True})
    assert after == {"name": "Ada", "tier": "platinum", "age": 36, "vip": True}
    assert store.get("users", "u1") == after
    assert before == {"name": "Ada", "tier": "gold", "age": 36}  # not mutated
    store.put("users", "u1", {"nested": {"a": 1, "b": 2}})
    assert store.update("users", "u1", {"nested": {"a": 3}}) == {"nested": {"a": 3}}


def test_update_missing_raises(store):
    with pytest.raises(KeyError, match=r"users\[nope\] does not exist"):
        store.update("users", "nope", {"a": 1})


def test_remove_returns_the_record(store):
    assert store.remove("users", "u2") == {"name": "Grace", "tier": "gold", "age": 85}
    assert store.get("users", "u2") is None
    assert store.count("users") == 2
    assert store.ids("users") == ["u1", "u3"]
    with pytest.raises(KeyError, match=r"users\[u2\] does not exist"):
        store.remove("users", "u2")
    store.insert("users", "u2", {"again": True})
    assert store.get("users", "u2") == {"again": True}


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.get("ghosts", "g"),
        lambda s: s.count("ghosts"),
        lambda s: s.ids("ghosts"),
        lambda s: s.scan("ghosts"),
        lambda s: s.insert("ghosts", "g", {}),
        lambda s: s.put("ghosts", "g", {}),
        lambda s: s.update("ghosts", "g", {}),
        lambda s: s.remove("ghosts", "g"),
        lambda s: s.to_dict(["users", "ghosts"]),
    ],
)
def test_unknown_collection_raises(store, call):
    with pytest.raises(KeyError, match="unknown collection: 'ghosts'"):
        call(store)


@pytest.mark.parametrize("bad", [1, None, b"u9", ("u", 9)])
def test_non_str_id_raises(store, bad):
    with pytest.raises(TypeError, match=f"record id must be str, not {type(bad).__name__}"):
        store.insert("users", bad, {})
    with pytest.raises(TypeError, match="record id must be str"):
        store.put("users", bad, {})
    assert store.count("users") == 3


def test_non_str_collection_name_raises(impl):
    with pytest.raises(TypeError, match="collection name must be str, not int"):
        impl.Store(collections=[1])
    with pytest.raises(TypeError, match="collection name must be str, not bytes"):
        impl.Store({b"users": {}})


def test_a_failed_write_changes_nothing(store):
    digest = store.digest()
    with pytest.raises(TypeError):  # a set has no canonical JSON
        store.update("users", "u1", {"tags": {"a", "b"}})
    with pytest.raises(TypeError):
        store.insert("orders", "o1", {"when": object()})
    with pytest.raises(TypeError):
        store.put("users", "u1", {1: "non-str key"})
    assert store.digest() == digest == store.recompute_digest()
    assert store.get("users", "u1")["tier"] == "gold"
    assert store.count("orders") == 0 and store.get("orders", "o1") is None


def test_scan_is_in_id_order(store):
    assert [rid for rid, _ in store.scan("users")] == ["u1", "u2", "u3"]
    child = store.fork()
    child.insert("users", "u0", {"name": "Zero"})
    child.insert("users", "u10", {"name": "Ten"})
    child.remove("users", "u2")
    assert [rid for rid, _ in child.scan("users")] == ["u0", "u1", "u10", "u3"]
    assert child.ids("users") == ["u0", "u1", "u10", "u3"]
    assert [rid for rid, _ in store.scan("users")] == ["u1", "u2", "u3"]
    assert store.scan("orders") == []


def test_scan_returns_a_fresh_list(store):
    child = store.fork()
    for s in (store, child):  # shared layers cache their scans: never hand those out
        s.scan("users").clear()
        assert len(s.scan("users")) == 3
    child.update("users", "u1", {"age": 37})
    child.scan("users").clear()
    assert [r["age"] for _, r in child.scan("users")] == [37, 85, 54]
    assert [r["age"] for _, r in child.scan("users", where={"tier": "gold"})] == [37, 85]
    assert [r["age"] for _, r in store.scan("users", where={"tier": "gold"})] == [36, 85]


def test_scan_where_is_exact_top_level_equality(impl):
    s = impl.Store(
        {
            "t": {
                "a": {"k": 1, "tag": "x", "meta": {"n": 1}},
                "b": {"k": 1, "tag": "y", "meta": {"n": 2}},
                "c": {"k": 2, "tag": "x", "meta": None},
                "d": {"tag": "x"},
                "e": {"k": None, "tag": "x"},
            }
        }
    )
    assert [r for r, _ in s.scan("t", where={"k": 1})] == ["a", "b"]
    assert [r for r, _ in s.scan("t", where={"k": 1, "tag": "x"})] == ["a"]
    assert [r for r, _ in s.scan("t", where={"k": None})] == ["e"]  # missing is not None
    assert [r for r, _ in s.scan("t", where={"meta": {"n": 2}})] == ["b"]
    assert [r for r, _ in s.scan("t", where={"n": 1})] == []  # not nested
    assert [r for r, _ in s.scan("t", where={})] == ["a", "b", "c", "d", "e"]
    assert s.scan("t", where={"k": 2}) == [("c", {"k": 2, "tag": "x", "meta": None})]


def test_unicode_and_nested_values(impl):
    record = {"名前": "Zoë 😀", "path": ["a", {"b.c": [1, [2, {"d": None}]]}], "esc": "\"\\\n\u0000\u2028"}
    s = impl.Store(collections=["données"])
    s.insert("données", "ключ", record)
    s.insert("données", "", {"empty id": True})
    assert s.get("données", "ключ") == record
    assert s.ids("données") == ["", "ключ"]
    assert s.to_dict() == {"données": {"": {"empty id": True}, "ключ": record}}
    assert s.digest() == s.recompute_digest() == impl.Store(s.to_dict()).digest()


def test_to_dict_round_trip(store):
    child = store.fork()
    child.update("users", "u1", {"age": 37})
    child.remove("users", "u3")
    child.insert("orders", "o1", {"user": "u1", "total_cents": 1999})
    dump = child.to_dict()
    assert dump == {
        "orders": {"o1": {"user": "u1", "total_cents": 1999}},
        "users": {"u1": {"name": "Ada", "tier": "gold", "age": 37}, "u2": {"name": "Grace", "tier": "gold", "age": 85}},
    }
    assert list(dump["users"]) == ["u1", "u2"]
    assert type(child)(dump).digest() == child.digest()
    assert child.to_dict(["orders"]) == {"orders": dump["orders"]}


def test_pickle_and_copy_give_an_equal_independent_store(store):
    child = store.fork()
    child.remove("users", "u1")
    for clone in (pickle.loads(pickle.dumps(child)), copy.copy(child), copy.deepcopy(child)):
        assert type(clone) is type(child)
        assert clone.to_dict() == child.to_dict() and clone.digest() == child.digest()
        clone.insert("users", "u1", {"clone": True})
        assert child.get("users", "u1") is None


def test_journal_records_each_write_and_forks_start_without_one(impl):
    """``journal``: None by default; a list every write appends (collection, id)
    to, so a caller learns what a step touched without walking the diff."""
    s = impl.Store({"a": {"x": {"v": 1}}}, collections=["b"])
    assert s.journal is None
    s.insert("b", "y", {"v": 2})  # no journal: nothing recorded, nothing fails
    s.journal = []
    s.update("a", "x", {"v": 3})
    s.put("b", "z", {"v": 4})
    s.remove("b", "y")
    s.insert("b", "w", {"v": 5})
    assert s.journal == [("a", "x"), ("b", "z"), ("b", "y"), ("b", "w")]
    child = s.fork()
    assert child.journal is None
    child.update("a", "x", {"v": 9})
    assert len(s.journal) == 4
