"""Seeded random operation scripts, replayed on stores and on a plain model.

A script is a list of operations on a growing list of stores (index 0 is the
first store; ``("fork", i)`` appends a fork of store i):
``(kind, i, collection, id, argument)`` with kind insert/put/update/remove.
"""

from __future__ import annotations

import random

COLLECTIONS = ("users", "orders", "flights")
# Few ids and values, so that duplicate inserts, missing records, removals of
# forked records, re-inserts and updates back to an old value all happen.
IDS = [f"r{i}" for i in range(20)] + ["é", "日本", "", "a.b"]
FIELDS = ["status", "total_cents", "tags", "meta", "名前"]
SCALARS = [0, 1, -1, 2**63 - 1, True, False, None, "", "open", "closed", "Zoë 😀", "\n\"\\"]


def _value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth < 2 and roll < 0.15:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if depth < 2 and roll < 0.3:
        return {rng.choice(FIELDS): _value(rng, depth + 1) for _ in range(rng.randrange(3))}
    return rng.choice(SCALARS)


def _record(rng: random.Random) -> dict:
    return {rng.choice(FIELDS): _value(rng) for _ in range(rng.randrange(1, 4))}


def random_script(seed: int, length: int, max_stores: int = 40) -> list:
    rng = random.Random(seed)
    stores = 1
    script = []
    for _ in range(length):
        # Recent stores are written more, as in an episode.
        i = max(0, stores - 1 - int(rng.expovariate(0.3)))
        if rng.random() < 0.03 and stores < max_stores:
            script.append(("fork", i))
            stores += 1
            continue
        kind = rng.choice(("insert", "insert", "put", "update", "update", "remove", "remove"))
        argument = None if kind == "remove" else _record(rng)
        script.append((kind, i, rng.choice(COLLECTIONS), rng.choice(IDS), argument))
    return script


def apply(stores: list, op: tuple) -> str:
    """Apply one operation to real stores; the outcome is "ok" or "KeyError"."""
    if op[0] == "fork":
        stores.append(stores[op[1]].fork())
        return "ok"
    kind, i, collection, rid, argument = op
    method = getattr(stores[i], kind)
    try:
        method(collection, rid) if kind == "remove" else method(collection, rid, argument)
    except KeyError:
        return "KeyError"
    return "ok"


def apply_to_model(models: list, op: tuple) -> str:
    """The same operation on dumps (collection -> {id: record})."""
    if op[0] == "fork":
        models.append({name: dict(records) for name, records in models[op[1]].items()})
        return "ok"
    kind, i, collection, rid, argument = op
    records = models[i][collection]
    exists = rid in records
    if kind == "insert":
        if exists:
            return "KeyError"
        records[rid] = argument
    elif kind == "put":
        records[rid] = argument
    elif not exists:
        return "KeyError"
    elif kind == "update":
        records[rid] = {**records[rid], **argument}
    else:
        del records[rid]
    return "ok"
