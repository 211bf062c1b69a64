"""A shard's local socket (``sandworld.ray_socket``): the batches of a Ray
handle on this machine, one small frame each way instead of a Ray task.

A door: it decodes a frame, hands each batch's block coordinates to the
shard's shared-block batch (which reads the request in the caller's block,
calls ``ServiceDoor.batch``, the service call HTTP makes, and writes the
answer back there), and encodes the answers. It runs on the actor's event
loop, beside the HTTP server and the Ray methods.

The socket lives in a directory only this user may enter (``mkdtemp``: mode
0700), and a connection is served only once it has sent the shard's random
token, which only Ray hands out (``ShardServer.local_socket``).
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import hmac
import logging
import os
import secrets
import shutil
import socket
import tempfile

from sandworld.ray_socket import ANSWER, COUNT, HELLO_WAIT, IN_BLOCK, INLINE, OK, PART, TOKEN

log = logging.getLogger("sandworld.cluster")

_PREFIX = "sandworld-shard-"
_MAX_PARTS = 4096  # batches one frame may carry (the handle sends the ones that waited, a handful)


class SocketDoor:
    """The listener; ``answer(where, token, size)`` is the shard's shared-block batch,
    answering ``(status, length in the block | bytes | None)``."""

    def __init__(self, answer):
        self.answer = answer
        self.token = secrets.token_bytes(TOKEN)
        _sweep()
        self.dir = tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-")  # mode 0700
        self.path = os.path.join(self.dir, "batch.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.batches = 0  # batches answered here (the tests read it)
        self.server = None

    async def start(self) -> None:
        self.server = await asyncio.start_unix_server(self._serve, sock=self.sock)

    def endpoint(self) -> dict:
        return {"path": self.path, "token": self.token}

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            token = await asyncio.wait_for(reader.readexactly(TOKEN), HELLO_WAIT)
            if not hmac.compare_digest(token, self.token):
                return
            writer.write(OK)
            while True:
                (count,) = COUNT.unpack(await reader.readexactly(COUNT.size))
                if count > _MAX_PARTS:
                    return
                parts = []
                for _ in range(count):
                    block_token, size, n = PART.unpack(await reader.readexactly(PART.size))
                    parts.append(((await reader.readexactly(n)).decode(), block_token, size))
                heads, inline = [], []
                for part in parts:  # in turn, as ``batch_shared_many`` runs them
                    status, out = await self.answer(*part)
                    if out is None or isinstance(out, int):
                        heads.append(ANSWER.pack(status, IN_BLOCK, out or 0))
                    else:
                        heads.append(ANSWER.pack(status, INLINE, len(out)))
                        inline.append(out)
                self.batches += count
                writer.write(b"".join(heads))
                for out in inline:
                    writer.write(out)
                if inline:
                    await writer.drain()
        except (asyncio.IncompleteReadError, asyncio.TimeoutError, ConnectionError, UnicodeDecodeError):
            pass  # the handle went away (or never said the token): its calls go through Ray
        finally:
            writer.close()

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        else:
            self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _sweep() -> None:
    """Remove the socket directories of this user's shards whose processes died
    (a killed shard leaves its own behind; Ray starts a new process in its place)."""
    if not os.path.isdir("/proc/self"):  # no way to tell a live process from a dead one
        return
    for path in glob.glob(os.path.join(tempfile.gettempdir(), f"{_PREFIX}*-*")):
        pid = os.path.basename(path)[len(_PREFIX):].split("-", 1)[0]
        with contextlib.suppress(OSError, ValueError):
            if os.stat(path).st_uid == os.getuid() and not os.path.exists(f"/proc/{int(pid)}"):
                shutil.rmtree(path, ignore_errors=True)
