"""Running an operation under an idempotency key.

A key binds to the operation's fingerprint: its scope (which operation), its
target (the world or episode it acts on) and its body. The exact bytes are
fingerprinted first; a retry whose bytes differ is compared in canonical
form (JSON with sorted keys), so key order and spacing do not matter. Only
an operation that succeeds keeps its answer; one that raises releases the
key, so a corrected retry can run. The rules themselves are in ``keys.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import replace

import orjson

from .. import errors
from .keys import IdempotencyKeys
from .reply import Reply

_INLINE = 64 * 1024  # bodies up to this size are canonicalised on the event loop
MAX_KEY = 255


def check_key(key: str) -> None:
    if not key or len(key) > MAX_KEY or not all("!" <= c <= "~" for c in key):
        raise errors.InvalidRequest(
            f"the Idempotency-Key must be 1 to {MAX_KEY} visible ASCII characters (a UUID is ideal)"
        )


def canonical(body: bytes) -> bytes:
    try:
        return orjson.dumps(orjson.loads(body), option=orjson.OPT_SORT_KEYS) if body.strip() else b""
    except (orjson.JSONDecodeError, RecursionError):
        return body  # not JSON: the operation will refuse it; compare the bytes


def fingerprint(scope: str, target: str, body: bytes) -> str:
    h = hashlib.sha256()
    for part in (scope, target):
        h.update(part.encode())
        h.update(b"\x00")
    h.update(body)
    return h.hexdigest()


async def run_keyed(keys: IdempotencyKeys, scope: str, key: str | None, target: str, body: bytes, operation):
    """``await operation()`` under ``key`` (or plainly, without one): its
    ``Reply``, or the first answer again with ``replayed`` set."""
    if key is None:
        return await operation()
    check_key(key)
    stored = keys.begin(scope, key, fingerprint(scope, target, body),
                        lambda: fingerprint(scope, target, canonical(body)))
    if stored is not None:
        return replace(stored, replayed=True)
    try:
        # Off the event loop when it is big: retries meanwhile answer 409 in progress.
        canon = await asyncio.to_thread(canonical, body) if len(body) > _INLINE else canonical(body)
        keys.canonical_is(scope, key, fingerprint(scope, target, canon))
        reply = await operation()
    except BaseException:
        keys.release(scope, key)
        raise
    keys.finish(scope, key, reply)
    return reply
