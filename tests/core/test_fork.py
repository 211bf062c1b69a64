"""Copy-on-write forks: isolation, sharing and long chains."""

from __future__ import annotations

import time

import pytest

from . import reference


def test_a_fork_shares_records_until_written(impl):
    parent = impl.Store({"t": {"a": {"v": 1}, "b": {"v": 2}}})
    child = parent.fork()
    assert child.get("t", "a") is parent.get("t", "a")
    assert child.digest() == parent.digest()
    assert child.to_dict() == parent.to_dict()
    child.update("t", "a", {"v": 10})
    assert parent.get("t", "a") == {"v": 1}
    assert child.get("t", "b") is parent.get("t", "b")


def test_isolation_over_three_generations(impl):
    root = impl.Store({"t": {f"r{i}": {"v": i} for i in range(10)}, "u": {}})
    children = [root.fork(), root.fork()]
    grandchildren = [child.fork() for child in children for _ in range(2)]
    root_before = root.to_dict()

    # Each generation writes after it was forked from; all writes differ.
    root.insert("u", "root", {"by": "root"})
    root.update("t", "r0", {"v": "root"})
    for i, child in enumerate(children):
        child.insert("u", f"child{i}", {"by": i})
        child.update("t", "r1", {"v": f"child{i}"})
        child.remove("t", "r2")
    for i, grandchild in enumerate(grandchildren):
        grandchild.put("t", "r3", {"v": f"grandchild{i}"})
        grandchild.remove("t", f"r{4 + i}")
        if i % 2:
            grandchild.remove("t", "r2")
            grandchild.insert("t", "r2", {"back": i})

    stores = [root, *children, *grandchildren]
    digests = [s.digest() for s in stores]
    assert len(set(digests)) == len(stores)
    for s in stores:  # each digest is exactly what its own records give
        assert s.digest() == s.recompute_digest() == reference.digest(s.to_dict())

    assert root.get("u", "child0") is None and root.get("t", "r1") == {"v": 1}
    assert root.count("t") == 10 and root.get("t", "r3") == {"v": 3}
    assert children[0].get("u", "root") is None and children[0].get("t", "r0") == {"v": 0}
    assert children[1].get("t", "r1") == {"v": "child1"}
    assert children[0].get("t", "r3") == {"v": 3}
    # Grandchildren see their parent's state at fork time: before its writes.
    assert grandchildren[0].get("t", "r1") == {"v": 1} and grandchildren[0].get("t", "r2") == {"v": 2}
    assert grandchildren[0].get("t", "r3") == {"v": "grandchild0"} and grandchildren[0].get("t", "r4") is None
    assert grandchildren[1].get("t", "r2") == {"back": 1} and grandchildren[1].get("t", "r5") is None
    assert grandchildren[2].get("t", "r6") is None and grandchildren[2].get("t", "r5") == {"v": 5}
    assert grandchildren[3].get("t", "r7") is None and grandchildren[2].get("t", "r7") == {"v": 7}
    assert [g.count("t") for g in grandchildren] == [9, 9, 9, 9]
    assert [c.count("t") for c in children] == [9, 9]
    root_before["t"]["r0"] = {"v": "root"}
    root_before["u"]["root"] = {"by": "root"}
    assert root.to_dict() == root_before


def test_a_fork_of_a_fork_then_parent_writes(impl):
    s = impl.Store(collections=["t"])
    s.insert("t", "a", {"v": 1})
    snapshot = s.fork()
    s.remove("t", "a")
    s.insert("t", "a", {"v": 2})
    again = s.fork()
    s.update("t", "a", {"v": 3})
    assert [x.get("t", "a") for x in (snapshot, again, s)] == [{"v": 1}, {"v": 2}, {"v": 3}]
    assert snapshot.digest() == impl.Store({"t": {"a": {"v": 1}}}).digest()


def test_long_fork_chain_past_max_depth(impl):
    """Writes between forks push the layer chain far past MAX_DEPTH (where it
    is flattened); every generation keeps its own state."""
    depth = 3 * impl.MAX_DEPTH + 5
    store = impl.Store({"t": {f"k{i:02}": {"n": i} for i in range(20)}, "log": {}})
    model = store.to_dict()
    generations = [(store, model)]
    for g in range(depth):
        store = store.fork()
        model = {name: dict(records) for name, records in model.items()}
        store.insert("log", f"g{g:03}", {"g": g})
        model["log"][f"g{g:03}"] = {"g": g}
        rid = f"k{g % 20:02}"
        if store.get("t", rid) is None:
            store.put("t", rid, {"g": g})
            model["t"][rid] = {"g": g}
        else:
            model["t"][rid] = store.update("t", rid, {"g": g})
        if g % 3 == 0:
            victim = f"k{(g * 7) % 20:02}"
            if store.get("t", victim) is None:
                store.insert("t", victim, {"n": "back", "g": g})
                model["t"][victim] = {"n": "back", "g": g}
            else:
                store.remove("t", victim)
                del model["t"][victim]
        generations.append((store, model))
    for s, m in generations:
        assert s.to_dict() == m
        assert s.count("t") == len(m["t"]) and s.ids("t") == sorted(m["t"])
        assert s.digest() == s.recompute_digest() == reference.digest(m)
    first, last = generations[0][0], generations[-1][0]
    assert sorted(last.diff(first)["log"]["created"]) == sorted(generations[-1][1]["log"])


def test_fork_cost_does_not_grow_with_record_count(impl):
    """O(1) in records: forking 10,000 records costs about what 20 cost (a copy
    would be ~500x). Minimum of many runs, generous bound: not flaky."""

    def fork_time(n: int) -> float:
        s = impl.Store({"t": {f"r{i}": {"i": i} for i in range(n)}, "u": {}, "v": {}})
        best = float("inf")
        for _ in range(300):
            s.update("t", "r0", {"i": -1})  # a write, so each fork freezes a layer
            start = time.perf_counter()
            s.fork()
            best = min(best, time.perf_counter() - start)
        return best

    small, large = fork_time(20), fork_time(10_000)
    assert large < 20 * small + 20e-6


def test_identity_is_shared_by_forks_until_one_writes(impl):
    s = impl.Store({"a": {"1": {"v": 1}}})
    child = s.fork()
    grandchild = child.fork()
    assert s.identity is child.identity is grandchild.identity
    child.update("a", "1", {"v": 2})
    assert child.identity is not s.identity and grandchild.identity is s.identity
    s.insert("a", "2", {"v": 3})
    assert s.identity is not grandchild.identity and s.identity is not child.identity
    # every kind of write drops it
    for write in (lambda st: st.put("a", "9", {}), lambda st: st.remove("a", "1"),
                  lambda st: st.insert("a", "8", {}), lambda st: st.update("a", "1", {"w": 0})):
        st = grandchild.fork()
        before = st.identity
        write(st)
        assert st.identity is not before
    # a write of equal values is still a new identity (the records are new objects)
    st = grandchild.fork()
    before = st.identity
    st.update("a", "1", {"v": 1})
    assert st.identity is not before and st.digest() == grandchild.digest()


def test_identity_can_be_set_by_its_owner(impl):
    s = impl.Store({"a": {"1": {"v": 1}}})
    token = object()
    s.identity = token
    assert s.identity is token and s.fork().identity is token
    with pytest.raises(TypeError):
        s.identity = None


WRITES = {
    "insert": lambda st, c: st.insert(c, "new", {"v": 0}),
    "put": lambda st, c: st.put(c, "1", {"v": 5}),
    "update": lambda st, c: st.update(c, "1", {"v": 6}),
    "remove": lambda st, c: st.remove(c, "1"),
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_collections_identity_is_shared_by_forks_until_one_writes_to_that_collection(impl, write):
    s = impl.Store({"a": {"1": {"v": 1}}, "b": {"1": {"v": 2}}})
    a_before, b_before = s.identity_of(("a",)), s.identity_of(("b",))
    child = s.fork()
    assert child.identity_of(("a",)) is a_before and child.identity_of(("b",)) is b_before
    WRITES[write](child, "a")
    assert child.identity_of(("a",)) is not a_before
    assert child.identity_of(("b",)) is b_before  # the write was to another collection
    assert s.identity_of(("a",)) is a_before and s.identity_of(("b",)) is b_before  # the parent's are its own
    # the same from the parent's side: a token made after the fork is shared as well
    s2 = impl.Store({"a": {"1": {"v": 1}}, "b": {"1": {"v": 2}}})
    child2 = s2.fork()
    a_token, b_token = child2.identity_of(("a",)), child2.identity_of(("b",))
    assert s2.identity_of(("a",)) is a_token and s2.identity_of(("b",)) is b_token
    WRITES[write](s2, "b")
    assert s2.identity_of(("b",)) is not b_token and child2.identity_of(("b",)) is b_token
    assert s2.identity_of(("a",)) is a_token


def test_identity_of_answers_a_token_a_tuple_of_tokens_or_the_stores_identity(impl):
    s = impl.Store({"a": {"1": {"v": 1}}}, collections=("b", "c"))
    a, b = s.identity_of(("a",)), s.identity_of(("b",))
    assert a is not None and a is not b
    assert s.identity_of(("a",)) is a  # made once, then kept
    assert s.identity_of(("a", "b")) == (a, b) and s.identity_of(("b", "a")) == (b, a)
    assert s.identity_of(None) is s.identity
    assert set(s.identities) == {a, b, s.identity_of(("c",))} and len(s.identities) == 3
    with pytest.raises(KeyError):
        s.identity_of(("nope",))


def test_collection_identities_can_be_set_by_their_owner(impl):
    s = impl.Store({"a": {"1": {"v": 1}}, "b": {"1": {"v": 2}}})
    other = s.fork()
    other.update("a", "1", {"v": 1})  # the same records, a new token
    assert other.identity_of(("a",)) is not s.identity_of(("a",))
    other.identities = s.identities
    assert other.identity_of(("a", "b")) == s.identity_of(("a", "b"))
    token = object()
    s.identities = (token, s.identity_of(("b",)))
    child = s.fork()
    assert s.identity_of(("a",)) is token and child.identity_of(("a",)) is token
    assert s.identities == child.identities
    child.update("a", "1", {"v": 3})
    assert child.identity_of(("a",)) is not token and s.identity_of(("a",)) is token
    with pytest.raises(TypeError):
        s.identities = (token, None)
    with pytest.raises(ValueError):
        s.identities = (token,)


def test_stores_with_the_same_collection_token_hold_the_same_records_in_the_same_key_order(impl):
    """Random forks and writes, tokens asked for at random times (before and
    after forks): equal tokens always mean equal records, compared as bytes
    without sorting keys; and the tokens were shared, so this says something."""
    import random

    import orjson

    rng = random.Random(12)
    names = ("a", "b", "c")
    stores = [impl.Store({n: {str(i): {"v": i, "n": n} for i in range(4)} for n in names})]
    for step in range(400):
        st = rng.choice(stores)
        roll = rng.random()
        if roll < 0.25:
            stores.append(st.fork())
        elif roll < 0.4:
            st.identity_of((rng.choice(names),))
        else:
            c, rid = rng.choice(names), str(rng.randrange(6))
            record = {"n": c, "v": step} if rng.random() < 0.5 else {"v": step, "n": c}  # key order differs
            if st.get(c, rid) is None:
                st.insert(c, rid, record)
            elif rng.random() < 0.2:
                st.remove(c, rid)
            else:
                st.put(c, rid, record)
    shared = 0
    for n in names:
        by_token: dict = {}
        for st in stores:
            by_token.setdefault(id(st.identity_of((n,))), []).append(orjson.dumps(st.scan(n)))
        for dumps in by_token.values():
            assert len(set(dumps)) == 1
            shared += len(dumps) - 1
    assert shared > 20
