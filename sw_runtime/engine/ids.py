"""Episode and snapshot ids: which shard made them, and in which boot.

An id reads ``ep_<shard>_<boot>_<random>`` (``snap_`` for a snapshot), e.g.
``ep_12_3fa9c1_9b2e40c1d7a85f6e0c3b``:

- ``shard``: the server of a cluster that holds it, in decimal and as wide as
  it needs to be, so a cluster is not capped at a number of servers. Clients
  route a call by it (``GET /api/v1/cluster`` maps shards to URLs);
- ``boot``: six hex digits drawn when the server started. Episodes live in
  memory, so a server that restarted (a Ray actor brought back after a crash)
  no longer holds the episodes of its earlier boot, and can say so instead of
  a bare "no such episode";
- ``random``: 80 random bits, so ids cannot be guessed.
"""

from __future__ import annotations

import re
import secrets
from typing import NamedTuple

_ID = re.compile(r"^(ep|snap)_(\d{1,9})_([0-9a-f]{6})_[0-9a-f]{20}$")


class IdParts(NamedTuple):
    kind: str  # "ep" or "snap"
    shard: int
    boot: str


def new_boot() -> str:
    """A boot tag: drawn once per server start."""
    return secrets.token_hex(3)


class Minter:
    """Makes the ids of one server (one shard, one boot)."""

    def __init__(self, shard: int, boot: str | None = None):
        self.shard = shard
        self.boot = boot or new_boot()
        self._prefix = f"ep_{shard}_{self.boot}_"
        self._random = b""  # random bytes drawn ahead, 10 per id: one read of the OS's source per 400 ids
        self._used = 0

    def episode(self) -> str:
        used = self._used
        if used + 10 > len(self._random):
            self._random, used = secrets.token_bytes(4000), 0
        self._used = used + 10
        return self._prefix + self._random[used:used + 10].hex()

    def snapshot(self) -> str:
        return f"snap_{self.shard}_{self.boot}_{secrets.token_hex(10)}"

    def why_missing(self, some_id: str) -> str | None:
        """Why an id this server does not hold is not here, when its shape
        tells: made by an earlier boot of this server, or by another shard.
        ``None`` when the id says nothing more (never made, or evicted)."""
        parts = parse(some_id)
        if parts is None:
            return None
        if parts.shard != self.shard:
            return (f"it belongs to shard {parts.shard}, and this server is shard {self.shard}: "
                    "send it to that shard (GET /api/v1/cluster lists their URLs)")
        if parts.boot != self.boot:
            return ("it was made before this server restarted, and episodes and snapshots live in "
                    "memory: it is gone; start a new one")
        return None


def parse(some_id: str) -> IdParts | None:
    """The parts of an id of this format, or ``None``."""
    m = _ID.match(some_id) if isinstance(some_id, str) else None
    if m is None:
        return None
    return IdParts(m.group(1), int(m.group(2)), m.group(3))
