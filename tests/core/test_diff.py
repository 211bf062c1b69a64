"""``Store.diff``: what changed between two states."""

from __future__ import annotations

import random

import pytest

from . import reference


@pytest.fixture
def base(impl):
    return impl.Store(
        {
            "users": {"u1": {"n": 1}, "u2": {"n": 2}, "u3": {"n": 3}},
            "orders": {"o1": {"total": 100}},
            "empty": {},
        }
    )


def change(created=(), updated=(), removed=()):
    return {"created": list(created), "updated": list(updated), "removed": list(removed)}


def test_no_change(base):
    assert base.diff(base) == {}
    assert base.fork().diff(base) == {}


def test_created_updated_removed(base):
    child = base.fork()
    child.insert("users", "u4", {"n": 4})
    child.insert("users", "u0", {"n": 0})
    child.update("users", "u2", {"n": 20})
    child.remove("users", "u3")
    assert child.diff(base) == {"users": change(["u0", "u4"], ["u2"], ["u3"])}
    assert base.diff(child) == {"users": change(["u3"], ["u2"], ["u0", "u4"])}


def test_unchanged_collections_are_left_out(base):
    child = base.fork()
    child.insert("orders", "o2", {"total": 5})
    assert list(child.diff(base)) == ["orders"]


def test_writes_that_cancel_out_are_not_changes(base):
    child = base.fork()
    child.update("users", "u1", {"n": 100})
    child.update("users", "u1", {"n": 1})  # back to the original
    child.remove("users", "u2")
    child.insert("users", "u2", {"n": 2})  # removed, then re-inserted as it was
    child.put("users", "u3", {"n": 3})  # replaced by an equal record
    child.insert("orders", "tmp", {})
    grandchild = child.fork()
    grandchild.remove("orders", "tmp")  # inserted, then removed, across a fork
    assert grandchild.diff(base) == {}
    assert grandchild.digest() == base.digest()


def test_reinsert_with_other_content_is_an_update(base):
    child = base.fork()
    child.remove("users", "u1")
    child = child.fork()
    child.insert("users", "u1", {"n": "new"})
    assert child.diff(base) == {"users": change(updated=["u1"])}


def test_diff_between_siblings(base):
    left, right = base.fork(), base.fork()
    left.update("users", "u1", {"side": "left"})
    left.insert("orders", "o2", {"total": 2})
    right.update("users", "u1", {"side": "right"})
    right.remove("users", "u2")
    right.update("users", "u3", {"n": 3})  # equal to the base: no change
    assert left.diff(right) == {"orders": change(created=["o2"]), "users": change(["u2"], ["u1"])}
    assert right.diff(left) == {"orders": change(removed=["o2"]), "users": change(updated=["u1"], removed=["u2"])}
    cousin = right.fork()
    cousin.insert("users", "u9", {})
    assert cousin.diff(left) == reference.diff(cousin.to_dict(), left.to_dict())


def test_unrelated_stores_and_missing_collections(impl, base):
    other = impl.Store({"users": {"u1": {"n": 1}, "u2": {"n": "two"}}, "extra": {"x": {}}, "void": {}})
    assert other.diff(base) == {
        "extra": change(created=["x"]),
        "orders": change(removed=["o1"]),
        "users": change(updated=["u2"], removed=["u3"]),
    }
    assert other.diff(base) == reference.diff(other.to_dict(), base.to_dict())
    assert base.diff(other) == reference.diff(base.to_dict(), other.to_dict())


def test_diff_across_a_flattened_chain(impl, base):
    store = base
    for g in range(impl.MAX_DEPTH * 2 + 3):
        store = store.fork()
        store.put("users", f"g{g}", {"g": g})
        store.update("users", "u1", {"g": g})
    store.remove("orders", "o1")
    assert store.diff(base) == reference.diff(store.to_dict(), base.to_dict())
    assert base.diff(store) == reference.diff(base.to_dict(), store.to_dict())


def test_a_fork_written_in_any_order_lists_its_changes_sorted(impl, base):
    """A state against the start it was forked from (a submit's diff): its own
    writes are the candidates, in id order whatever order they came in."""
    rng = random.Random(11)
    child = base.fork()
    for n in rng.sample(range(60), 60):
        op = rng.choice(["insert", "update", "same", "remove"])
        rid = f"u{n}"
        if op == "insert" or child.get("users", rid) is None:
            child.put("users", rid, {"n": n * 7})
        elif op == "update":
            child.update("users", rid, {"n": -n})
        elif op == "same":
            child.update("users", rid, dict(child.get("users", rid)))  # equal: not a change
        else:
            child.remove("users", rid)
    child.remove("users", "u1")
    child.update("users", "u2", {"n": 2})  # as at the start
    child.insert("orders", "o0", {"total": 0})
    assert child.diff(base) == reference.diff(child.to_dict(), base.to_dict())
    assert base.diff(child) == reference.diff(base.to_dict(), child.to_dict())
