"""The Ray door of a shard: no decoding of its own; it calls the shard's
service and hands back ``(status, JSON bytes)``, what HTTP would answer."""

from __future__ import annotations

import logging

import orjson

from .. import errors

log = logging.getLogger("sandworld.cluster")


class ServiceDoor:
    """Each operation of the Ray-native handle, on one ``Service``."""

    def __init__(self, service):
        self.service = service

    async def batch(self, body: bytes) -> tuple:
        return await _answer(self.service.batch(body))

    async def create(self, environment: str, body: bytes, key: str | None = None) -> tuple:
        return await _answer(self.service.create(environment, body, key))

    async def create_many(self, body: bytes, key: str | None = None) -> tuple:
        return await _answer(self.service.create_many(body, key))

    async def submit(self, episode_id: str, body: bytes, key: str | None = None) -> tuple:
        return await _answer(self.service.submit(episode_id, body, key))

    async def submit_many(self, body: bytes, key: str | None = None) -> tuple:
        return await _answer(self.service.submit_many(body, key))


async def _answer(pending) -> tuple:
    """``(status, body)`` of an operation: 200 (201 for a creation) or its error's envelope."""
    try:
        out = await pending
    except errors.ApiError as e:
        return e.status, orjson.dumps(e.envelope())
    except Exception:  # a bug: the caller gets the envelope, the log gets the trace
        log.exception("a Ray call failed")
        err = errors.InternalError("the server failed on this call; it was logged")
        return err.status, orjson.dumps(err.envelope())
    if isinstance(out, bytes):
        return 200, out
    return (201 if out.created else 200), out.body
