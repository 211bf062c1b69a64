"""A shard's local socket: batches between ``sandworld.ray.RayShards`` and a
shard on the same machine without a Ray task each.

A Ray actor call costs the shard about 0.5 ms more than an HTTP request
(Ray receives the task on its own threads, hands it to the actor's event
loop, and replies), and the caller as much again (submitting the task, the
core worker's threads). With the batch's bytes already in a shared block
(``sandworld.ray_shared``), all a call has to carry is where the block is.
So a shard also listens on a Unix domain socket, in a directory of its own
that only its user may enter (mode 0700), served on the actor's own event
loop (the loop of its HTTP server and its service, so nothing races). The
handle learns the socket's path and a random token from the actor
(``ShardServer.local_socket``, one Ray call), connects once per call it keeps
in flight, and proves the token; then each call is one small frame each way:

- request: ``count``, then per batch its block's token, the request's size
  and the block's path;
- answer: per batch its ``status``, where its answer is (``IN_BLOCK``, or
  ``INLINE`` when it did not fit the block) and its length (the status
  ``ray_shared.NOT_HERE``: the shard cannot reach that block); then the
  ``INLINE`` answers' bytes, in turn.

Ray stays what places, finds and restarts the shards, and the path of every
call this one cannot make: a broken connection (the shard died) sends the
call through the Ray actor, which waits out the restart, and the handle asks
the restarted shard for its new socket; a shard on another machine (its path
is not reachable from here) or one that refuses the token is called through
Ray from then on. Linux only, with the shared blocks.
"""

from __future__ import annotations

import asyncio
import socket
import struct

from . import ray_shared

TOKEN = 32  # bytes of the token a connection starts with
OK = b"SWOK"  # the shard's answer to the right token (to a wrong one it closes the connection)
COUNT = struct.Struct("<I")  # batches in a request
PART = struct.Struct("<16sIH")  # a batch's block token, its request's size, the length of its block's path
ANSWER = struct.Struct("<iiI")  # status, where the answer is, its length
IN_BLOCK, INLINE = 0, 1
HELLO_WAIT = 10.0  # seconds either side waits for the other's first bytes


def available() -> bool:
    return hasattr(socket, "AF_UNIX") and ray_shared.available()


class Broken(Exception):
    """The connection failed or ended mid-call: the shard died, or is restarting."""


class Refused(Exception):
    """The socket is not reachable from here (another machine), or refused the token."""


class Line:
    """One connection to a shard's socket, carrying one call at a time."""

    __slots__ = ("sock",)

    def __init__(self, sock: socket.socket):
        self.sock = sock

    @classmethod
    async def open(cls, path: str, token: bytes) -> "Line":
        """Connect and prove ``token``; ``Refused`` when the socket is not there or says no,
        ``Broken`` when it is there but nobody answers (its shard died)."""
        loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        line = cls(sock)
        try:
            try:
                await loop.sock_connect(sock, path)
            except (FileNotFoundError, PermissionError, NotADirectoryError) as e:
                raise Refused(f"{path}: {e.strerror}") from None
            except OSError as e:  # there, but not accepting: the shard that made it is gone
                raise Broken(f"{path}: {e.strerror}") from None
            await loop.sock_sendall(sock, token)
            try:
                hello = await asyncio.wait_for(line._exactly(loop, len(OK)), HELLO_WAIT)
            except (Broken, asyncio.TimeoutError):
                raise Refused(f"{path} refused the token") from None
            if hello != OK:
                raise Refused(f"{path} is not a shard's socket")
        except BaseException:
            sock.close()
            raise
        return line

    async def call(self, parts: list) -> list:
        """Each batch's ``(status, out)`` for ``parts`` (``(where, token, size)`` each, as
        ``batch_shared_many`` takes them): ``out`` the answer's length in its block, the
        answer's bytes, or None (``NOT_HERE``). ``Broken`` when the connection fails."""
        loop = asyncio.get_running_loop()
        frame = [COUNT.pack(len(parts))]
        for where, token, size in parts:
            path = where.encode()
            frame += (PART.pack(token, size, len(path)), path)
        try:
            await loop.sock_sendall(self.sock, b"".join(frame))
            heads = await self._exactly(loop, ANSWER.size * len(parts))
            out = []
            for status, kind, length in ANSWER.iter_unpack(heads):
                if status == ray_shared.NOT_HERE:
                    out.append((status, None))
                elif kind == INLINE:
                    out.append((status, await self._exactly(loop, length)))
                else:
                    out.append((status, length))
            return out
        except OSError as e:
            raise Broken(str(e)) from None

    async def _exactly(self, loop, n: int) -> bytes:
        buf = bytearray(n)
        view, got = memoryview(buf), 0
        while got < n:
            k = await loop.sock_recv_into(self.sock, view[got:])
            if not k:
                raise Broken("the shard closed the connection")
            got += k
        return bytes(buf)

    def close(self) -> None:
        self.sock.close()
