"""Batches through shared memory, between ``sandworld.ray.RayShards`` and a
shard on the same machine.

A 1,000-call batch answers about 1.3 MB of JSON. Carried in a Ray actor
call's reply, those bytes are copied five or six times (pickled, written into
the reply, sent over gRPC, parsed, put in the caller's object store, read
out), which costs each side more CPU than the shard's HTTP answer costs a lean
HTTP client. So the handle lends the shard a block of memory for the call
instead: an anonymous memory file (``memfd``) of its own process, which the
shard opens as ``/proc/<pid>/fd/<fd>``. The handle writes the request's bytes
into the block; the actor call carries only where the block is; the shard
reads the request there, writes its answer over it and answers its length;
the handle reads the answer where it lies. The actor call itself (its
ordering, retries, errors, a dead shard) is unchanged.

A block starts with a random token. The shard writes into a block only if its
token is the one in the call: a path that names another process's file (a
shard on another machine, where the same pid may be anyone's) is left alone,
and the shard answers ``NOT_HERE``; the handle then sends that shard its
batches inline, as before. An answer larger than the block also comes inline.
Linux only (``os.memfd_create``); elsewhere every batch goes inline.
"""

from __future__ import annotations

import collections
import mmap
import os
import secrets

BLOCK = 16 * 1024 * 1024  # bytes a block can carry (the pages are taken as they are written)
_HEAD = 64  # the token, then the bytes
_TOKEN = 16
NOT_HERE = -1  # the shard's answer when the block is not one it can reach
_KEEP = 32  # blocks the shard keeps mapped (one per caller slot in flight; older ones are let go)


def available() -> bool:
    return hasattr(os, "memfd_create") and os.path.isdir(f"/proc/{os.getpid()}/fd")


class Block:
    """One lent block: where the shard finds it, its token, and its mapping here."""

    def __init__(self):
        self.fd = os.memfd_create("sandworld-batch", os.MFD_CLOEXEC)
        os.ftruncate(self.fd, BLOCK)
        self.map = mmap.mmap(self.fd, BLOCK)
        self.token = secrets.token_bytes(_TOKEN)
        self.map[:_TOKEN] = self.token
        self.where = f"/proc/{os.getpid()}/fd/{self.fd}"

    def put(self, body: bytes) -> int | None:
        """Write the request; its length, or None when it does not fit."""
        if len(body) > BLOCK - _HEAD:
            return None
        self.map[_HEAD:_HEAD + len(body)] = body
        return len(body)

    def answer(self, out):
        """The answer's bytes from what the shard answered: its length here (a view of the
        block, valid until the block is lent again), the answer itself when it did not fit,
        or None (``NOT_HERE``: the shard cannot reach the block)."""
        if out is None:
            return None
        if isinstance(out, int):
            return memoryview(self.map)[_HEAD:_HEAD + out]
        return out if isinstance(out, bytes) else memoryview(out)

    def close(self) -> None:
        try:
            self.map.close()
        except BufferError:  # a view is still out: the mapping goes when it does
            pass
        os.close(self.fd)


class Blocks:
    """The handle's pool: a block per call in flight, taken back when its answer has been read."""

    def __init__(self):
        self.free: list = []
        self.pid = os.getpid()

    def lend(self) -> Block:
        if os.getpid() != self.pid:  # a forked child: the parent's blocks are the parent's to lend
            self.free, self.pid = [], os.getpid()
        return self.free.pop() if self.free else Block()

    def take_back(self, block: Block) -> None:
        if os.getpid() == self.pid:
            self.free.append(block)

    def close(self) -> None:
        while self.free:
            self.free.pop().close()


class Borrowed:
    """The shard's side: the blocks callers lent it, mapped once each."""

    def __init__(self):
        self.maps: collections.OrderedDict = collections.OrderedDict()

    def _map(self, where: str, token: bytes):
        key = (where, token)
        found = self.maps.get(key)
        if found is not None:
            self.maps.move_to_end(key)
            return found
        try:
            fd = os.open(where, os.O_RDWR)
        except OSError:  # not this machine's, or its process is gone
            return None
        try:
            if os.fstat(fd).st_size != BLOCK:
                return None
            found = mmap.mmap(fd, BLOCK)
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)
        if found[:_TOKEN] != token:  # someone else's file at that path
            found.close()
            return None
        self.maps[key] = found
        if len(self.maps) > _KEEP:
            self.maps.popitem(last=False)[1].close()
        return found

    def read(self, where: str, token: bytes, size: int) -> bytes | None:
        """The request in a lent block, or None when the block is not reachable from here."""
        found = self._map(where, token)
        if found is None or not 0 <= size <= BLOCK - _HEAD:
            return None
        return found[_HEAD:_HEAD + size]

    def write(self, where: str, token: bytes, answer: bytes) -> int | None:
        """Write the answer into the block: its length, or None when it does not fit."""
        found = self._map(where, token)
        if found is None or len(answer) > BLOCK - _HEAD:
            return None
        found[_HEAD:_HEAD + len(answer)] = answer
        return len(answer)
