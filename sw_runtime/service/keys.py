"""Idempotency keys: a retried operation runs once, its answer replayed.

The rules (reference 002's): the first request with a key runs and binds the
key to its request fingerprint and, once it succeeds, to its answer; a later
request with the same key and the same fingerprint gets that answer again;
the same key with another fingerprint is 409 ``idempotency_key_reused``; the
same key while the first request still runs is 409
``idempotency_in_progress``. A request that fails (any non-2xx answer, or an
exception) releases its key, so a corrected retry can run.

Keys are scoped (one scope per operation): the same key on episode create and
on fork names two different operations. Keys are kept ``ttl`` seconds after
first use (24 h by default), at most ``capacity`` of them, and their kept
answers take at most ``max_bytes``: past either bound the oldest finished
keys are forgotten first (a forgotten key runs again if it is retried).

Nothing here knows about HTTP: answers are opaque values with a ``body``
(the service keeps its ``Reply``s). ``sw_runtime.service.Service`` applies
this to every operation that takes a key, whatever door it came through.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from .. import errors
from .reply import Reply


class _Entry:
    __slots__ = ("fingerprint", "canonical", "expires", "answer")

    def __init__(self, fingerprint: str, canonical: str, expires: float):
        self.fingerprint = fingerprint
        self.canonical = canonical
        self.expires = expires
        self.answer = None  # None while the first request runs


class IdempotencyKeys:
    def __init__(self, ttl: float = 86400.0, capacity: int = 100_000, max_bytes: int = 256 * 2**20,
                 clock=time.monotonic):
        self.ttl = ttl
        self.capacity = capacity
        self.max_bytes = max_bytes
        self._clock = clock
        self._entries: OrderedDict = OrderedDict()  # (scope, key) -> _Entry, oldest first
        self._bytes = 0  # size of the kept answers
        # Called with (scope, key, fingerprint, canonical, answer, wall-clock expiry) when a
        # key is bound to its answer: the action log keeps keys across restarts.
        self.on_finish = None
        # Keyed batches a crash cut off: (scope, key) -> (fingerprint, calls applied, calls, wall expiry).
        self.partial: dict = {}

    def check_partial(self, scope: str, key: str, fingerprint: str) -> None:
        """Refuse a retry of a keyed batch that a crash cut off (409 saying how far it got)."""
        got = self.partial.get((scope, key))
        if got is None:
            return
        if got[3] <= time.time():
            del self.partial[(scope, key)]
            return
        if got[0] != fingerprint:
            raise errors.IdempotencyKeyReused(
                f"the Idempotency-Key {key!r} was first used with a different request; use a new key")
        raise errors.BatchPartlyApplied(
            f"this batch (Idempotency-Key {key!r}) was cut off by a server restart after its first {got[1]} of "
            f"{got[2]} calls: those ran and are kept, the rest did not. Send calls[{got[1]}:] with a new key",
            applied=got[1], calls=got[2])

    def mark_partial(self, scope: str, key: str, fingerprint: str, applied: int, calls: int,
                     expires_wall: float) -> None:
        """How far a keyed batch got (a replay of the action log: ``kb`` records)."""
        if applied >= calls:
            self.partial.pop((scope, key), None)
        else:
            self.partial[(scope, key)] = (fingerprint, applied, calls, expires_wall)

    def __len__(self) -> int:
        return len(self._entries)

    def begin(self, scope: str, key: str, fingerprint: str, canonical=None) -> object | None:
        """``None``: the caller runs the request (``canonical_is`` may add its
        canonical fingerprint meanwhile), then calls ``finish`` or ``release``.
        An answer: replay it. Raises the two 409s.

        ``fingerprint`` identifies the request's exact bytes; ``canonical()``,
        when given, a form that equal requests share (JSON with sorted keys).
        It costs more, so it is computed only for a retry whose bytes differ
        from the first request's, never for a byte-identical retry."""
        now = self._clock()
        self._expire(now)
        entry = self._entries.get((scope, key))
        if entry is not None:
            same = entry.fingerprint == fingerprint
            if not same and entry.canonical is None and entry.answer is None:
                same = True  # still running, its canonical form not known yet: say so below
            elif not same and canonical is not None and entry.canonical is not None:
                same = entry.canonical == canonical()
            if not same:
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
        self._entries[(scope, key)] = _Entry(fingerprint, None, now + self.ttl)
        return None

    def canonical_is(self, scope: str, key: str, canonical: str) -> None:
        """Record the running request's canonical fingerprint (see ``begin``)."""
        entry = self._entries.get((scope, key))
        if entry is not None:
            entry.canonical = canonical

    def finish(self, scope: str, key: str, answer) -> None:
        entry = self._entries.get((scope, key))
        if entry is not None:
            entry.answer = answer
            self._bytes += len(answer.body)
            if self.on_finish is not None:
                wall = time.time() + (entry.expires - self._clock())
                self.on_finish(scope, key, entry.fingerprint, entry.canonical, answer, wall)
            while self._bytes > self.max_bytes and self._forget_oldest():
                pass

    def restore(self, scope: str, key: str, fingerprint: str, canonical, body: bytes, created: bool,
                expires_wall: float) -> None:
        """Bring back a finished key (a replay of the action log); an expired one is skipped."""
        self.partial.pop((scope, key), None)  # it finished after all
        answer = Reply(body, created=created)
        left = expires_wall - time.time()
        if left <= 0:
            return
        old = self._entries.pop((scope, key), None)
        if old is not None and old.answer is not None:
            self._bytes -= len(old.answer.body)
        entry = _Entry(fingerprint, canonical, self._clock() + left)
        entry.answer = answer
        self._entries[(scope, key)] = entry
        self._bytes += len(answer.body)

    def forget(self, scope: str, key: str) -> None:
        """Drop a key, finished or not (its answer never reached the action log)."""
        if (scope, key) in self._entries:
            self._drop((scope, key))

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
            self._drop(k)

    def _drop(self, k) -> None:
        entry = self._entries.pop(k)
        if entry.answer is not None:
            self._bytes -= len(entry.answer.body)

    def _forget_oldest(self) -> bool:
        for k, entry in self._entries.items():
            if entry.answer is not None:
                self._drop(k)
                return True
        return False

    def _make_room(self) -> None:
        if len(self._entries) < self.capacity or self._forget_oldest():
            return
        raise errors.RateLimited(
            f"{len(self._entries)} requests with idempotency keys are running, this server's maximum; retry shortly",
            retry_after=1,
        )
