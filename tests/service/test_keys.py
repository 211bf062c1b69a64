"""The idempotency key store (``sw_runtime/service/keys.py``)."""

from __future__ import annotations

import pytest

from sw_runtime import errors
from sw_runtime.service import Reply
from sw_runtime.service.keys import IdempotencyKeys


def test_the_key_store_bounds_keys_and_answer_bytes():
    """A fake clock, tiny bounds."""
    now = [0.0]
    keys = IdempotencyKeys(ttl=10, capacity=2, max_bytes=10, clock=lambda: now[0])
    assert keys.begin("s", "a", "fa") is None and keys.begin("s", "b", "fb") is None
    with pytest.raises(errors.RateLimited):  # two keys, both still running: none can be forgotten
        keys.begin("s", "c", "fc")
    keys.finish("s", "a", Reply(b"12345678", created=True))
    assert keys.begin("s", "c", "fc") is None  # a, the oldest finished key, is forgotten
    keys.finish("s", "b", Reply(b"123456", created=True))
    keys.finish("s", "c", Reply(b"654321", created=True))  # 12 bytes kept > 10: b is forgotten
    assert keys.begin("s", "c", "fc").body == b"654321"
    assert keys.begin("s", "b", "changed") is None
    with pytest.raises(errors.IdempotencyInProgress):
        keys.begin("s", "b", "changed")
    with pytest.raises(errors.IdempotencyKeyReused):
        keys.begin("s", "c", "another body")
    now[0] = 11.0  # past c's TTL
    assert keys.begin("s", "c", "another body") is None
    keys.release("s", "c")
    keys.release("s", "b")
    assert len(keys) == 0
    assert keys.begin("s", "k", "x") is None and keys.begin("t", "k", "y") is None  # scopes are apart
