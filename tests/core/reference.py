"""An independent, deliberately plain implementation of the state digest
(docs/DIGEST.md), built from hashlib and the standard json module only.

It produced golden_digests.json and checks both implementations; it shares no
code with sw_core_ext, so a bug there cannot hide here. No floats: the digest
is only defined for states without them.
"""

from __future__ import annotations

import hashlib
import json

DOMAIN = b"sandworld-state-v1"


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def record_hash(collection: str, rid: str, record) -> int:
    return int.from_bytes(hashlib.sha256(canonical([collection, rid, record])).digest(), "big")


def accumulator(state: dict) -> int:
    """``state`` is a dump: collection -> {id: record}."""
    total = 0
    for collection, records in state.items():
        for rid, record in records.items():
            total += record_hash(collection, rid, record)
    return total % 2**256


def digest_of_acc(acc: int) -> str:
    return "sha256:" + hashlib.sha256(DOMAIN + acc.to_bytes(32, "big")).hexdigest()


def digest(state: dict) -> str:
    return digest_of_acc(accumulator(state))


def diff(mine: dict, base: dict) -> dict:
    """What ``Store.diff`` must return, from two dumps: per collection the ids
    created, updated (canonical bytes differ) and removed going from ``base``
    to ``mine``; collections without changes are left out."""
    out = {}
    for name in sorted(set(mine) | set(base)):
        a, b = base.get(name, {}), mine.get(name, {})
        change = {
            "created": sorted(set(b) - set(a)),
            "updated": sorted(rid for rid in set(a) & set(b) if canonical(a[rid]) != canonical(b[rid])),
            "removed": sorted(set(a) - set(b)),
        }
        if any(change.values()):
            out[name] = change
    return out
