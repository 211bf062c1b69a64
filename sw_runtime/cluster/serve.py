"""``sandworld serve --replicas N``: run a cluster until interrupted."""

from __future__ import annotations

import signal
import sys
import threading

from .. import __version__
from ..config import Settings
from . import members
from .ray_setup import RayMissing


def serve_cluster(replicas: int, build_app, *, host: str, port: int, address: str | None, settings: Settings,
                  name: str = "sandworld", log_level: str = "warning", protocol=None,
                  shared_storage: bool = False) -> int:
    """Start the shards, print their URLs, wait for Ctrl-C or SIGTERM, stop them."""
    from .launch import Cluster

    where = f"the Ray cluster at {address}" if address else "an embedded local Ray"
    print(f"sandworld {__version__}: starting {replicas} shard(s) on {where}...", flush=True)
    try:
        cluster = Cluster.start(replicas, build_app, host=host, port=port, address=address, settings=settings,
                                name=name, log_level=log_level, protocol=protocol, shared_storage=shared_storage)
    except RayMissing as e:
        print(f"sandworld serve --replicas: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # Ray's own errors: say what failed, not a traceback
        print(f"sandworld serve --replicas: the cluster did not start: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    try:
        nodes = {e["shard"]: e for e in cluster.listing()}
        for s in cluster.shards:
            node = nodes.get(s.shard, {}).get("node") or {}
            where = f" (node {node.get('ip', '?')}{' ' + ','.join(node['labels']) if node.get('labels') else ''})"
            print(f"  shard {s.shard}: {s.url}{where}", flush=True)
        handle = "RayShards()" if name == "sandworld" else f"RayShards({name!r})"
        print(f"  Ray: {cluster.ray_address} (a trainer joins with sandworld.ray.join(address) and "
              f"steps through sandworld.ray.{handle}; docs/CLUSTER.md)", flush=True)
        print("serving; GET /api/v1/cluster on any shard lists them all. Ctrl-C stops.", flush=True)
        while not done.wait(members.BEAT):
            try:
                for shard in cluster.supervise():  # shared storage: a lost node's shards start elsewhere
                    print(f"  shard {shard}: its node is lost; starting it on another node", flush=True)
            except Exception as e:  # Ray is briefly unreachable: look again next beat
                print(f"  watching the shards failed once: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
    finally:
        cluster.stop()
    return 0
