"""Idempotency keys: a retried request runs once, its answer replayed.

The rules (reference 002's): the first request with a key runs and binds the
key to its request fingerprint and, once it succeeds, to its answer; a later
request with the same key and the same fingerprint gets that answer again;
the same key with another fingerprint is 409 ``idempotency_key_reused``; the
same key while the first request still runs is 409
``idempotency_in_progress``. A request that fails (any non-2xx answer, or an
exception) releases its key, so a corrected retry can run.

Keys are scoped (one scope per route): the same key on episode create and on
fork names two different operations. Keys are kept ``ttl`` seconds after
first use (24 h by default) and at most ``capacity`` of them: past that the
oldest finished ones are forgotten first.

Nothing here knows about HTTP: answers are opaque ``Stored`` values.
``sw_runtime.api.idempotency`` applies this to routes.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

from .. import errors


@dataclass(frozen=True)
class Stored:
    """A finished request's answer, as it will be replayed."""

    status: int
    body: bytes
    media_type: str | None


class _Entry:
    __slots__ = ("fingerprint", "expires", "answer")

    def __init__(self, fingerprint: str, expires: float):
        self.fingerprint = fingerprint
        self.expires = expires
        self.answer: Stored | None = None  # None while the first request runs


class IdempotencyKeys:
    def __init__(self, ttl: float = 86400.0, capacity: int = 100_000, clock=time.monotonic):
        self.ttl = ttl
        self.capacity = capacity
        self._clock = clock
        self._entries: OrderedDict = OrderedDict()  # (scope, key) -> _Entry, oldest first

    def __len__(self) -> int:
        return len(self._entries)

    def begin(self, scope: str, key: str, fingerprint: str) -> Stored | None:
        """``None``: the caller runs the request and then calls ``finish`` or
        ``release``. A ``Stored``: replay it. Raises the two 409s."""
        now = self._clock()
        self._expire(now)
        entry = self._entries.get((scope, key))
        if entry is not None:
            if entry.fingerprint != fingerprint:
                raise errors.IdempotencyKeyReused(
                    f"the Idempotency-Key {key!r} was first used with a different request (another body or "
                    "another target); use a new key for a new request"
                )
            if entry.answer is None:
                raise errors.IdempotencyInProgress(
                    f"a request with the Idempotency-Key {key!r} is still running; retry shortly with the same key "
                    "to get its answer"
                )
            return entry.answer
        self._make_room()
        self._entries[(scope, key)] = _Entry(fingerprint, now + self.ttl)
        return None

    def finish(self, scope: str, key: str, answer: Stored) -> None:
        entry = self._entries.get((scope, key))
        if entry is not None:
            entry.answer = answer

    def release(self, scope: str, key: str) -> None:
        entry = self._entries.get((scope, key))
        if entry is not None and entry.answer is None:
            del self._entries[(scope, key)]

    def _expire(self, now: float) -> None:
        entries = self._entries
        while entries:
            k, entry = next(iter(entries.items()))
            if entry.expires > now or entry.answer is None:
                break
            del entries[k]

    def _make_room(self) -> None:
        if len(self._entries) < self.capacity:
            return
        for k, entry in self._entries.items():
            if entry.answer is not None:  # forget the oldest finished key
                del self._entries[k]
                return
        raise errors.RateLimited(
            f"{len(self._entries)} requests with idempotency keys are running, this server's maximum; retry shortly",
            retry_after=1,
        )
