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
import socket
import time

from ..config import Settings
from .door import ServiceDoor

log = logging.getLogger("sandworld.cluster")

_STARTUP = 60.0  # seconds a shard may take to bind its port before it reports a failure
# Seconds a restarted shard waits for its port. While a shard is down, any
# outbound connection on the machine may take its port as its local port
# (when the port lies in the kernel's ephemeral range), and keeps it through
# TIME_WAIT, 60 s on Linux; SO_REUSEADDR does not pass over such a socket.
_REBIND = 90.0


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
                 protocol=None):
        """``protocol(settings)``: uvicorn's HTTP protocol class for the shard
        (``sw_runtime.api.protocol.configured``: read timeouts, a header limit,
        errors in the envelope); None for uvicorn's plain httptools."""
        import uvicorn

        self.settings, self.host, self.port, self.url = settings, host, port, url
        # Bind here, not in uvicorn: a port that is taken then fails this actor's
        # creation at once with the reason, instead of a server task that exits
        # quietly and a launcher left waiting for it. A restart waits for its
        # port instead: an error raised here is final for Ray (it restarts a
        # process that died, not a constructor that failed), so failing at once
        # would leave the shard down for good.
        try:
            sock = _listen(host, port, settings.shard)
        except RuntimeError:
            if not _restarted():
                raise
            log.warning("shard %d: port %d is still in use; waiting up to %g s for it", settings.shard, port, _REBIND)
            sock = _listen(host, port, settings.shard, wait=_REBIND)
        self.app = build_app(settings)
        self.door = ServiceDoor(self.app.state.service)
        http = protocol(settings) if protocol is not None else "httptools"
        config = uvicorn.Config(self.app, host=host, port=port, loop="none", http=http,
                                log_level=log_level, access_log=False, timeout_keep_alive=30, lifespan="on")
        self.server = uvicorn.Server(config)
        # Ray runs an async actor's __init__ on the actor's running event loop:
        # the server is a task there, started again by every restart.
        self.serving = asyncio.get_running_loop().create_task(self.server.serve(sockets=[sock]))

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
        return {"shard": self.settings.shard, "url": self.url, "pid": os.getpid()}

    async def stop(self) -> None:
        """Stop serving (the launcher calls it before killing the actor, so connections close cleanly)."""
        self.server.should_exit = True
        await self.serving

    # -- the Ray-native door: the same JSON bytes as HTTP, no HTTP -----------------------

    async def batch(self, body: bytes) -> tuple:
        """``POST /batch``: ``(status, JSON bytes)``."""
        return await self.door.batch(body)

    async def create(self, environment: str, body: bytes, key: str | None = None) -> tuple:
        """``POST /environments/{environment}/episodes``."""
        return await self.door.create(environment, body, key)

    async def create_many(self, body: bytes, key: str | None = None) -> tuple:
        """``POST /batch/episodes``."""
        return await self.door.create_many(body, key)

    async def submit(self, episode_id: str, body: bytes, key: str | None = None) -> tuple:
        """``POST /episodes/{id}/submit``."""
        return await self.door.submit(episode_id, body, key)

    async def submit_many(self, body: bytes, key: str | None = None) -> tuple:
        """``POST /batch/submit``."""
        return await self.door.submit_many(body, key)
