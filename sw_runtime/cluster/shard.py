"""One shard of a cluster: a full Sandworld server inside a Ray actor.

The actor runs uvicorn on its own port in the actor's event loop, and answers
the Ray-native handle (``sandworld.ray``) on that same loop, so HTTP requests
and Ray calls reach one service and never race each other across threads.
Ray restarts a dead actor (``max_restarts``) by running ``__init__`` again in
a new process: the server comes back on the same port, with a new boot tag
in its ids, so the ids of the lost episodes answer 404 saying the server
restarted.

The class is plain Python; ``launch`` makes it a Ray actor, so this module
imports without Ray. The HTTP app comes from ``build_app`` and the HTTP
connection from ``protocol``, both handed down by whoever starts the cluster
(``sw_runtime.app`` and ``sw_runtime.api`` sit beside or above this door, so
it imports neither).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import pickle
import socket
import time

from sandworld import ray_shared, ray_socket

from ..config import Settings
from . import members
from .door import ServiceDoor
from .socket_door import SocketDoor

log = logging.getLogger("sandworld.cluster")

_STARTUP = 60.0  # seconds a shard may take to bind its port before it reports a failure
# Seconds a restarted shard waits for its port. While a shard is down, any
# outbound connection on the machine may take its port as its local port
# (when the port lies in the kernel's ephemeral range), and keeps it through
# TIME_WAIT, 60 s on Linux; SO_REUSEADDR does not pass over such a socket.
_REBIND = 90.0
# Seconds a shard that Ray brought back on another node waits for its old
# port there before it takes any free one (its URL changes; the cluster's
# membership says so, and clients learn it from GET /cluster).
_MOVED_REBIND = 5.0
_ANY_HOST = ("0.0.0.0", "::", "")


def advertised(host: str, node_ip: str) -> str:
    """The host to put in a shard's URL: the node's address when the server binds every interface."""
    host = node_ip if host in _ANY_HOST else host
    return f"[{host}]" if ":" in host else host


def _node() -> dict:
    """This process's Ray node: its id, address and custom resources (the labels
    a deployment gives its nodes, by which placement can be seen)."""
    import ray

    node_id = ray.get_runtime_context().get_node_id()
    info = next((n for n in ray.nodes() if n.get("NodeID") == node_id), {})
    labels = sorted(r for r in info.get("Resources", {})
                    if r not in ("CPU", "GPU", "memory", "object_store_memory") and not r.startswith("node:"))
    return {"id": node_id, "ip": info.get("NodeManagerAddress", ""), "labels": labels}


def _listen(host: str, port: int, shard: int, wait: float = 0.0) -> socket.socket:
    """A socket bound to ``host:port``; a port in use is tried again for ``wait`` seconds."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    deadline = time.monotonic() + wait
    while True:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past the dead shard's own connections
        try:
            sock.bind((host, port))
            return sock
        except OSError as e:
            sock.close()
            if e.errno != errno.EADDRINUSE or time.monotonic() >= deadline:
                waited = f" after waiting {wait:g} s for it" if wait else ""
                raise RuntimeError(f"shard {shard} cannot listen on {host}:{port}{waited}: {e.strerror} "
                                   "(is another server on that port? choose others with --port)") from None
        time.sleep(0.25)


def _restarted() -> bool:
    """Whether Ray runs this actor again after its process died."""
    import ray

    return bool(ray.get_runtime_context().was_current_actor_reconstructed)


class ShardServer:
    """A Sandworld server on ``host:port`` as shard ``settings.shard``."""

    def __init__(self, build_app, settings: Settings, host: str, port: int, url: str, log_level: str = "warning",
                 protocol=None, cluster: str | None = None):
        """``protocol(settings)``: uvicorn's HTTP protocol class for the shard
        (``sw_runtime.api.protocol.configured``: read timeouts, a header limit,
        errors in the envelope); None for uvicorn's plain httptools.
        ``cluster``: the cluster's name, under which the shard keeps its entry
        in the membership (``members.py``); None: a shard with fixed peers."""
        import uvicorn

        self.settings, self.host, self.port, self.url = settings, host, port, url
        self.cluster, self.state = cluster, "serving"
        self.node = _node() if cluster is not None else None
        before = members.entries(cluster) if cluster is not None else []
        was = next((e for e in before if e["shard"] == settings.shard), None)
        moved = was is not None and was.get("node_id") != self.node["id"]
        # Bind here, not in uvicorn: a port that is taken then fails this actor's
        # creation at once with the reason, instead of a server task that exits
        # quietly and a launcher left waiting for it. A restart waits for its
        # port instead: an error raised here is final for Ray (it restarts a
        # process that died, not a constructor that failed), so failing at once
        # would leave the shard down for good.
        try:
            sock = _listen(host, port, settings.shard)
        except RuntimeError:
            if not (_restarted() or moved):
                raise
            if moved:  # on another node now: its old port there may be anyone's
                log.warning("shard %d moved to node %s; port %d is in use there", settings.shard,
                            self.node["id"][:8], port)
                try:
                    sock = _listen(host, port, settings.shard, wait=_MOVED_REBIND)
                except RuntimeError:
                    sock = _listen(host, 0, settings.shard)
            else:
                log.warning("shard %d: port %d is still in use; waiting up to %g s for it", settings.shard, port,
                            _REBIND)
                sock = _listen(host, port, settings.shard, wait=_REBIND)
        self.port = sock.getsockname()[1]
        if cluster is not None and (moved or self.port != port):
            self.url = f"http://{advertised(host, self.node['ip'])}:{self.port}/api/v1"
        self.app = build_app(settings)
        if cluster is not None:
            self.app.state.service.membership = members.Membership(cluster)
        self.door = ServiceDoor(self.app.state.service)
        self.borrowed = ray_shared.Borrowed()
        # Batches from a handle on this machine, without a Ray task each (``sandworld.ray_socket``).
        self.local = None
        if ray_socket.available():
            try:
                self.local = SocketDoor(self._shared)
            except OSError as e:  # no private directory or socket to be had: the handle uses Ray
                log.warning("shard %d has no local socket (%s); its Ray handle calls go through Ray",
                            settings.shard, e)
        http = protocol(settings) if protocol is not None else "httptools"
        config = uvicorn.Config(self.app, host=host, port=self.port, loop="none", http=http,
                                log_level=log_level, access_log=False, timeout_keep_alive=30, lifespan="on")
        self.server = uvicorn.Server(config)
        # Ray runs an async actor's __init__ on the actor's running event loop:
        # the server is a task there, started again by every restart.
        self.serving = asyncio.get_running_loop().create_task(self.server.serve(sockets=[sock]))
        self.beating = asyncio.get_running_loop().create_task(self._beat()) if cluster is not None else None
        self.listening = asyncio.get_running_loop().create_task(self.local.start()) if self.local else None

    def _entry(self) -> dict:
        return {"shard": self.settings.shard, "url": self.url, "node_id": self.node["id"],
                "node": {"ip": self.node["ip"], "labels": self.node["labels"]}, "state": self.state,
                "pid": os.getpid()}

    async def _beat(self) -> None:
        """Keep this shard's entry in the membership fresh once it serves
        (a stale one is listed as down)."""
        while not self.server.started:
            if self.serving.done():
                return
            await asyncio.sleep(0.05)
        while not self.serving.done():
            try:
                members.put(self.cluster, self._entry())
            except Exception:  # the GCS is briefly unreachable: the next beat tries again
                log.warning("shard %d could not refresh its membership entry", self.settings.shard, exc_info=True)
            await asyncio.sleep(members.BEAT)

    async def ready(self) -> dict:
        """Wait until the server listens; then who this shard is."""
        waited = 0.0
        while not self.server.started:
            if self.serving.done():
                failure = self.serving.exception() or RuntimeError("the server stopped")
                raise RuntimeError(f"shard {self.settings.shard} could not serve on {self.host}:{self.port}: "
                                   f"{failure}") from failure
            if waited > _STARTUP:
                raise RuntimeError(f"shard {self.settings.shard} did not start within {_STARTUP:g} s")
            await asyncio.sleep(0.02)
            waited += 0.02
        if self.cluster is not None:
            members.put(self.cluster, self._entry())  # listed before the launcher hears it is ready
        return {"shard": self.settings.shard, "url": self.url, "pid": os.getpid(),
                "node_id": self.node["id"] if self.node else None}

    async def local_socket(self) -> tuple:
        """Where a handle on this machine sends batches without a Ray task each
        (``sandworld.ray_socket``): ``(200, {"path", "token"})``; ``(200, None)`` when
        this shard has no local socket."""
        if self.local is None:
            return 200, None
        await self.listening
        return 200, self.local.endpoint()

    async def stop(self) -> None:
        """Stop serving (the launcher calls it before killing the actor, so connections close cleanly)."""
        self.server.should_exit = True
        if self.local is not None:
            self.local.close()
        await self.serving
        if self.beating is not None:
            self.beating.cancel()
            members.remove(self.cluster, self.settings.shard)

    async def drain(self, deadline: float) -> dict:
        """Take no new episodes, wait until the open ones end or ``deadline``
        seconds pass, end (score and store) those still open, and stop. The
        launcher or ``sandworld cluster drain`` kills the actor after."""
        self.state = "draining"
        service = self.app.state.service
        if self.cluster is not None:
            members.put(self.cluster, self._entry())
        ended = await service.drain(deadline)
        await self.stop()
        return {"shard": self.settings.shard, "ended": ended}

    # -- the Ray-native door: the same JSON bytes as HTTP, no HTTP -----------------------
    # Each answers ``(status, JSON)``, the JSON as a pickle out-of-band buffer: Ray
    # writes it once into the reply instead of copying it into the pickle first,
    # and the caller reads it where Ray received it (a 1,000-call answer is 1.3 MB).

    async def batch(self, body: bytes) -> tuple:
        """``POST /batch``."""
        return _out_of_band(await self.door.batch(body))

    async def batch_shared(self, where: str, token: bytes, size: int) -> tuple:
        """``batch``, its request and answer in a block of shared memory the caller lent
        (``sandworld.ray_shared``): ``(status, answer length)``; ``(status, answer)``
        when the answer does not fit; ``(NOT_HERE, None)`` when this process cannot
        reach the block (the caller is on another machine)."""
        status, out = await self._shared(where, token, size)
        return (status, out) if out is None or isinstance(out, int) else (status, pickle.PickleBuffer(out))

    async def _shared(self, where: str, token: bytes, size: int) -> tuple:
        """A batch in a lent block: ``(status, answer length)``, ``(status, answer bytes)``
        when it does not fit, ``(NOT_HERE, None)`` (Ray's door and the local socket's)."""
        body = self.borrowed.read(where, token, size)
        if body is None:
            return ray_shared.NOT_HERE, None
        status, out = await self.door.batch(body)
        written = self.borrowed.write(where, token, out)
        return (status, written) if written is not None else (status, out)

    async def batch_shared_many(self, parts: list) -> tuple:
        """Several ``batch_shared`` calls in one actor call (each ``(where, token, size)``),
        run in turn: ``(200, [each one's answer])``. The handle sends the batches for this
        shard that waited while its calls were in flight so, paying Ray's cost of a call
        (receiving it, handing it to this loop, replying) once for all of them."""
        return 200, [await self.batch_shared(*part) for part in parts]

    async def create(self, environment: str, body: bytes, key: str | None = None) -> tuple:
        """``POST /environments/{environment}/episodes``."""
        return _out_of_band(await self.door.create(environment, body, key))

    async def create_many(self, body: bytes, key: str | None = None) -> tuple:
        """``POST /batch/episodes``."""
        return _out_of_band(await self.door.create_many(body, key))

    async def submit(self, episode_id: str, body: bytes, key: str | None = None) -> tuple:
        """``POST /episodes/{id}/submit``."""
        return _out_of_band(await self.door.submit(episode_id, body, key))

    async def submit_many(self, body: bytes, key: str | None = None) -> tuple:
        """``POST /batch/submit``."""
        return _out_of_band(await self.door.submit_many(body, key))


def _out_of_band(answer: tuple) -> tuple:
    status, body = answer
    return status, pickle.PickleBuffer(body)
