"""Who is in a cluster: each shard's URL, node and state, kept in Ray's GCS.

A shard writes its own entry when it starts (and again when Ray restarts it,
perhaps on another node and port), refreshes it every ``BEAT`` seconds, and
marks it ``draining`` when asked to drain; the launcher and ``sandworld
cluster add`` write the cluster's own record (how to start one more shard).
Every shard's ``GET /api/v1/cluster`` reads the entries, so a client that asks
any shard learns where every shard is now. An entry not refreshed for
``STALE`` seconds is listed as ``down``: its node is gone and Ray has not
brought the shard back (yet, or ever: without shared storage it stays where
its log is).

The GCS outlives any worker node (it lives on the head), which is why the
entries are kept there and not in a shard.
"""

from __future__ import annotations

import json
import time

BEAT = 1.0  # seconds between a shard's refreshes of its entry
STALE = 6.0  # seconds without a refresh after which a shard is listed as down
_NS = "sandworld"


def _kv():
    from ray.experimental import internal_kv

    return internal_kv


def _key(cluster: str, shard: int) -> bytes:
    return f"cluster/{cluster}/shard/{shard:06d}".encode()


def _config_key(cluster: str) -> bytes:
    return f"cluster/{cluster}/config".encode()


def put_config(cluster: str, config: dict) -> None:
    """How the cluster was started (``sandworld cluster add`` starts a shard the same way)."""
    _kv()._internal_kv_put(_config_key(cluster), json.dumps(config).encode(), overwrite=True, namespace=_NS)


def config(cluster: str) -> dict | None:
    raw = _kv()._internal_kv_get(_config_key(cluster), namespace=_NS)
    return json.loads(raw) if raw else None


def put(cluster: str, entry: dict) -> None:
    """Write one shard's entry (``shard``, ``url``, ``node_id``, ``state``…), stamped now."""
    entry = {**entry, "seen": time.time()}
    _kv()._internal_kv_put(_key(cluster, entry["shard"]), json.dumps(entry).encode(), overwrite=True, namespace=_NS)


def remove(cluster: str, shard: int) -> None:
    _kv()._internal_kv_del(_key(cluster, shard), namespace=_NS)


def forget(cluster: str) -> None:
    """Remove every entry of ``cluster`` (when it stops)."""
    kv = _kv()
    for key in kv._internal_kv_list(f"cluster/{cluster}/".encode(), namespace=_NS):
        kv._internal_kv_del(key, namespace=_NS)


def entries(cluster: str, now: float | None = None) -> list:
    """Every shard's entry in shard order, each with its ``state``: as written
    (``serving``, ``draining``), or ``down`` when it is stale."""
    kv = _kv()
    now = time.time() if now is None else now
    out = []
    for key in kv._internal_kv_list(f"cluster/{cluster}/shard/".encode(), namespace=_NS):
        raw = kv._internal_kv_get(key, namespace=_NS)
        if not raw:
            continue
        entry = json.loads(raw)
        if now - entry.get("seen", 0) > STALE:
            entry["state"] = "down"
        out.append(entry)
    return sorted(out, key=lambda e: e["shard"])


class Membership:
    """What a shard's service answers ``GET /cluster`` from (``Service.membership``)."""

    def __init__(self, cluster: str):
        self.cluster = cluster

    def shards(self) -> list:
        """``[{shard, url, node_id, node, state}]``, in shard order."""
        return [{k: e.get(k) for k in ("shard", "url", "node_id", "node", "state")} for e in entries(self.cluster)]
