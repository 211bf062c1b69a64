"""Start and stop a cluster: N shard actors on Ray, one port each.

``sandworld serve --replicas N`` calls ``Cluster.start``: it starts an
embedded local Ray (or joins one with ``address``), then N ``ShardServer``
actors, shard ``i`` on ``port + i``. Every shard knows every shard's URL
(``GET /api/v1/cluster``). Each actor is pinned to the node it first started
on, so when Ray restarts it after a crash it comes back on the same host and
port, and the cluster's URLs stay true.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass

from ..config import Settings
from .ray_setup import connect, require_ray
from .shard import ShardServer

NAMESPACE = "sandworld"
DEFAULT_NAME = "sandworld"
_ANY_HOST = ("0.0.0.0", "::", "")


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

    def __init__(self, name: str, shards: list, owns_ray: bool):
        self.name, self.shards, self.owns_ray = name, shards, owns_ray

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
              max_restarts: int = -1, startup_timeout: float = 180.0, protocol=None) -> "Cluster":
        """Start ``replicas`` shards, each serving ``build_app(settings)`` (``sw_runtime.app.build_app``)
        over ``protocol(settings)`` (``sw_runtime.api.protocol.configured``, as a lone server; None:
        uvicorn's plain httptools), and wait until each listens on its port."""
        if replicas < 1:
            raise ValueError("replicas must be at least 1")
        ray = require_ray()
        owns_ray = connect(address, NAMESPACE)
        settings = settings or Settings.from_env()
        # The shards run in Ray's worker processes, whose working folder is not this one:
        # a relative data folder (keys, webhooks) means the folder as seen from here.
        settings = dataclasses.replace(settings, data_dir=os.path.abspath(settings.data_dir))
        nodes = _nodes(ray, replicas)
        urls = [f"http://{_advertised(host, ip)}:{port + i}/api/v1" for i, (_, ip) in enumerate(nodes)]
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        remote = ray.remote(ShardServer)
        shards = []
        for i, (node_id, _) in enumerate(nodes):
            own = dataclasses.replace(settings, shard=i, peers=",".join(urls))
            actor = remote.options(
                name=actor_name(name, i), namespace=NAMESPACE, lifetime=None,
                num_cpus=0,  # a shard uses a core when it has work; it reserves none it would block others with
                max_restarts=max_restarts, max_task_retries=0, max_concurrency=10_000,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            ).remote(build_app, own, host, port + i, urls[i], log_level, protocol)
            shards.append(Shard(i, urls[i], actor))
        cluster = cls(name, shards, owns_ray)
        try:
            ray.get([s.actor.ready.remote() for s in shards], timeout=startup_timeout)
        except BaseException as e:
            cluster.stop()
            if isinstance(e, ray.exceptions.RayError):
                raise RuntimeError(_last_error(str(e))) from None
            raise
        return cluster

    def pids(self) -> list:
        """The process id of each shard's actor, in shard order."""
        ray = require_ray()
        return [info["pid"] for info in ray.get([s.actor.ready.remote() for s in self.shards])]

    def stop(self) -> None:
        """Stop every shard (and the embedded Ray, if this cluster started it)."""
        ray = require_ray()
        for s in self.shards:
            try:
                ray.get(s.actor.stop.remote(), timeout=10)
            except Exception:  # already dead or stuck: killing it below is enough
                pass
            ray.kill(s.actor, no_restart=True)
        if self.owns_ray:
            ray.shutdown()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


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


def _advertised(host: str, node_ip: str) -> str:
    """The host to put in a shard's URL: the node's address when the server binds every interface."""
    host = node_ip if host in _ANY_HOST else host
    return f"[{host}]" if ":" in host else host

