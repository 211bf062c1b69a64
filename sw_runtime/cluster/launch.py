"""Start, grow, drain and stop a cluster: shard actors on Ray, one port each.

``sandworld serve --replicas N`` calls ``Cluster.start``: it starts an
embedded local Ray (or joins one with ``address``), then N ``ShardServer``
actors, shard ``i`` on ``port + i``, spread over the alive nodes in turn
(the serving process's node first). Every shard lists every shard
(``GET /api/v1/cluster``) from the cluster's membership in Ray's GCS
(``members.py``), so a shard that moves, joins or drains is seen by all.

Where a shard may come back after its process or its node dies depends on
where its data folder is:

- **per-node storage** (the default): the actor is pinned to its node, since
  its action log is there. A crash brings it back on that node, host and
  port; a lost node leaves it down (listed ``down``) until the node returns.
- **shared storage** (``shared_storage=True``, ``serve --shared-data``: the
  data folder is on a file system every node mounts at the same path): the
  shard is pinned too (a crash brings it back where it was), but when its
  node is lost ``supervise`` (which ``serve`` runs every second) starts it on
  a surviving node; it replays its log from the shared folder and takes its
  old port there if free, else another; its new URL is in the membership.

``add_shard`` and ``drain_shard`` (``sandworld cluster add``/``drain``) grow
and shrink a running cluster.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import time
from dataclasses import dataclass

from ..config import Settings
from . import members
from .ray_setup import connect, require_ray
from .shard import ShardServer, advertised

NAMESPACE = "sandworld"
_MOVE_WAIT = 180.0  # seconds a shard moved off a lost node may take to start before it is tried again
DEFAULT_NAME = "sandworld"


@dataclass
class Shard:
    shard: int
    url: str
    actor: object  # the Ray actor handle


def actor_name(name: str, shard: int) -> str:
    """The Ray name of a shard's actor, by which ``sandworld.ray`` finds it."""
    return f"{name}-shard-{shard}"


class Cluster:
    """The shard actors of one ``serve --replicas``, and what started them."""

    def __init__(self, name: str, shards: list, owns_ray: bool, shared_storage: bool = False):
        self.name, self.shards, self.owns_ray = name, shards, owns_ray
        self.shared_storage = shared_storage
        self._moving: dict = {}  # shard -> when supervise started it on another node

    @property
    def urls(self) -> list:
        return [s.url for s in self.shards]

    @property
    def ray_address(self) -> str:
        """The address of the Ray the shards run on (for ``ray.init(address=...)``)."""
        return require_ray().get_runtime_context().gcs_address

    @classmethod
    def start(cls, replicas: int, build_app, *, host: str = "127.0.0.1", port: int = 8787,
              address: str | None = None,
              settings: Settings | None = None, name: str = DEFAULT_NAME, log_level: str = "warning",
              max_restarts: int = -1, startup_timeout: float = 180.0, protocol=None,
              shared_storage: bool = False) -> "Cluster":
        """Start ``replicas`` shards, each serving ``build_app(settings)`` (``sw_runtime.app.build_app``)
        over ``protocol(settings)`` (``sw_runtime.api.protocol.configured``, as a lone server; None:
        uvicorn's plain httptools), and wait until each listens on its port. ``shared_storage``:
        the data folder is on storage every node sees (see the module's docstring)."""
        if replicas < 1:
            raise ValueError("replicas must be at least 1")
        ray = require_ray()
        owns_ray = connect(address, NAMESPACE, host)
        settings = settings or Settings.from_env()
        # The shards run in Ray's worker processes, whose working folder is not this one:
        # a relative data folder (keys, webhooks) means the folder as seen from here.
        settings = dataclasses.replace(settings, data_dir=os.path.abspath(settings.data_dir))
        members.forget(name)  # a cluster of this name that stopped without clearing up
        members.put_config(name, {
            "host": host, "port": port, "log_level": log_level, "shared_storage": shared_storage,
            "max_restarts": max_restarts, "settings": dataclasses.asdict(settings),
            "build_app": _path_of(build_app), "protocol": _path_of(protocol) if protocol is not None else None,
        })
        nodes = _nodes(ray, replicas)
        cluster = cls(name, [], owns_ray, shared_storage)
        for i, (node_id, ip) in enumerate(nodes):
            url = f"http://{advertised(host, ip)}:{port + i}/api/v1"
            actor = _launch(ray, name, i, node_id, build_app, settings, host, port + i, url, log_level, protocol,
                            shared_storage, max_restarts, detached=False)
            cluster.shards.append(Shard(i, url, actor))
        try:
            ray.get([s.actor.ready.remote() for s in cluster.shards], timeout=startup_timeout)
        except BaseException as e:
            cluster.stop()
            if isinstance(e, ray.exceptions.RayError):
                raise RuntimeError(_last_error(str(e))) from None
            raise
        return cluster

    def supervise(self) -> list:
        """One look over a cluster on shared storage: every shard listed as
        down whose node is dead starts again on the alive node with the fewest
        shards, where it replays its log from the shared folder. Answers the
        shards it moved (none with per-node storage: those wait for their node)."""
        if not self.shared_storage:
            return []
        ray = require_ray()
        entries = members.entries(self.name)
        alive = {x["NodeID"] for x in ray.nodes() if x.get("Alive")}
        moved = []
        now = time.monotonic()
        for e in entries:
            if e["state"] != "down" or e.get("node_id") in alive or not alive:
                continue
            shard = e["shard"]
            if now - self._moving.get(shard, -_MOVE_WAIT) < _MOVE_WAIT:
                continue  # started elsewhere already, and still starting (it replays its log)
            self._moving[shard] = now
            with contextlib.suppress(ValueError):  # the dead one's name goes with it
                ray.kill(ray.get_actor(actor_name(self.name, shard), namespace=NAMESPACE), no_restart=True)
            node_id = _emptiest(ray, entries)
            actor = _start_shard(ray, self.name, shard, node_id, members.config(self.name),
                                 detached=shard >= len(self.shards))
            if shard < len(self.shards):
                self.shards[shard].actor = actor
            e.update(node_id=node_id, state="moving")  # counted on its new node for the next one
            moved.append(shard)
        return moved

    def listing(self) -> list:
        """Every shard's membership entry, in shard order (``members.entries``)."""
        return members.entries(self.name)

    def pids(self) -> list:
        """The process id of each shard's actor, in shard order."""
        ray = require_ray()
        return [info["pid"] for info in ray.get([s.actor.ready.remote() for s in self.shards])]

    def stop(self) -> None:
        """Stop every shard, those added later too (and the embedded Ray, if this cluster started it)."""
        ray = require_ray()
        actors = [s.actor for s in self.shards]
        for entry in members.entries(self.name):
            if entry["shard"] >= len(self.shards):  # added by ``sandworld cluster add``
                try:
                    actors.append(ray.get_actor(actor_name(self.name, entry["shard"]), namespace=NAMESPACE))
                except ValueError:
                    pass
        for actor in actors:
            try:
                ray.get(actor.stop.remote(), timeout=10)
            except Exception:  # already dead or stuck: killing it below is enough
                pass
            ray.kill(actor, no_restart=True)
        try:
            members.forget(self.name)
        except Exception:  # Ray is going away anyway
            pass
        if self.owns_ray:
            ray.shutdown()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _launch(ray, name: str, shard: int, node_id: str, build_app, settings: Settings, host: str, port: int, url: str,
            log_level: str, protocol, shared_storage: bool, max_restarts: int, detached: bool):
    """One shard's actor, pinned to ``node_id``: Ray restarts it there when its
    process dies. (Ray's soft affinity would let it move, but does not keep an
    actor on its node while that node lives; a lost node's shards are moved by
    ``Cluster.supervise`` instead, when the storage is shared.)"""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    own = dataclasses.replace(settings, shard=shard, peers="")
    return ray.remote(ShardServer).options(
        name=actor_name(name, shard), namespace=NAMESPACE, lifetime="detached" if detached else None,
        num_cpus=0,  # a shard uses a core when it has work; it reserves none it would block others with
        max_restarts=max_restarts, max_task_retries=0, max_concurrency=10_000,
        # No per-call status events to the GCS (Ray's task list and timeline): each
        # call would cost the shard, the caller and the GCS for a record nobody reads.
        enable_task_events=False,
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
    ).remote(build_app, own, host, port, url, log_level, protocol, name)


def _load(path: str | None):
    """The function a ``module:name`` path names (the cluster's record keeps them so)."""
    import importlib

    if path is None:
        return None
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _start_shard(ray, name: str, shard: int, node_id: str, config: dict, detached: bool):
    """Start shard ``shard`` of cluster ``name`` on ``node_id``, as the cluster's record says to."""
    ip = next(x["NodeManagerAddress"] for x in ray.nodes() if x["NodeID"] == node_id)
    port = config["port"] + shard
    url = f"http://{advertised(config['host'], ip)}:{port}/api/v1"
    return _launch(ray, name, shard, node_id, _load(config["build_app"]), Settings(**config["settings"]),
                   config["host"], port, url, config["log_level"], _load(config["protocol"]),
                   config["shared_storage"], config["max_restarts"], detached=detached)


def _emptiest(ray, entries: list) -> str:
    """The alive node holding the fewest of these shards (ties: by id)."""
    load = {x["NodeID"]: 0 for x in ray.nodes() if x.get("Alive")}
    for e in entries:
        if e.get("node_id") in load and e["state"] != "down":
            load[e["node_id"]] += 1
    return min(load, key=lambda n: (load[n], n))


def add_shard(name: str = DEFAULT_NAME, *, node_id: str | None = None, timeout: float = 180.0) -> dict:
    """Start one more shard in the running cluster ``name`` (from a process
    connected to its Ray), as the cluster started the others; answer its
    ``ready`` facts. It lives until it is drained or the cluster stops."""
    ray = require_ray()
    config = members.config(name)
    if config is None:
        raise RuntimeError(f"no cluster named {name!r} on this Ray (start one with sandworld serve --replicas N)")
    entries = members.entries(name)
    shard = max((e["shard"] for e in entries), default=-1) + 1
    actor = _start_shard(ray, name, shard, node_id or _emptiest(ray, entries), config, detached=True)
    try:
        return ray.get(actor.ready.remote(), timeout=timeout)
    except ray.exceptions.RayError as e:
        ray.kill(actor, no_restart=True)
        raise RuntimeError(_last_error(str(e))) from None


def drain_shard(shard: int, name: str = DEFAULT_NAME, *, deadline: float = 300.0) -> dict:
    """Drain one shard of the running cluster ``name``: no new episodes; it
    ends when its episodes end or after ``deadline`` seconds (each ending
    scored and stored), then leaves the cluster. Answers ``{shard, ended}``."""
    ray = require_ray()
    try:
        actor = ray.get_actor(actor_name(name, shard), namespace=NAMESPACE)
    except ValueError:
        raise RuntimeError(f"cluster {name!r} has no shard {shard}") from None
    out = ray.get(actor.drain.remote(deadline), timeout=deadline + 120)
    ray.kill(actor, no_restart=True)
    members.remove(name, shard)
    return out


def _path_of(fn) -> str:
    """``module:name`` of a module-level function (how ``add_shard`` finds it again)."""
    return f"{fn.__module__}:{fn.__qualname__}"


def _last_error(text: str) -> str:
    """The last ``SomeError: message`` line of a Ray error (whose text is the
    remote traceback): the reason, without the trace."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if re.match(r"^[A-Za-z_.]*(Error|Exception): ", line):
            return line.split(": ", 1)[1]
    return text.splitlines()[0] if text else "unknown error"


def _nodes(ray, n: int) -> list:
    """``(node_id, ip)`` for each of ``n`` shards: this process's node first,
    then the other alive nodes in turn."""
    here = ray.get_runtime_context().get_node_id()
    alive = [(x["NodeID"], x["NodeManagerAddress"]) for x in ray.nodes() if x.get("Alive")]
    alive.sort(key=lambda node: node[0] != here)
    return [alive[i % len(alive)] for i in range(n)]


