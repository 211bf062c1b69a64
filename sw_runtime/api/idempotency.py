"""The ``Idempotency-Key`` header on a route, in one line:

    @endpoint
    @idempotent("episodes.create")
    async def create_episode(request): ...

Without the header the route runs as usual. With it, the request's
fingerprint (method, path, query and body; a JSON body also in canonical
form, so key order and spacing do not matter) is bound to the key within the
route's scope, and ``engine.idempotency`` (``engine/idempotency.py``) decides: run
it, replay the first answer (same status and body, plus the header
``Idempotent-Replayed: true``), or answer 409. Only successful (2xx) answers
are kept; an error releases the key so a corrected retry can run.
"""

from __future__ import annotations

import asyncio
import hashlib

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .. import errors
from ..engine.idempotency import Stored
from ..security.gate import principal_of
from .common import read_body

_INLINE = 64 * 1024  # bodies up to this size are fingerprinted on the event loop
HEADER = "idempotency-key"
REPLAYED = "Idempotent-Replayed"
MAX_KEY = 255


def idempotent(scope: str, limit: int | None = None):
    """Honour ``Idempotency-Key`` on a route. ``scope`` names the operation
    (one per route); ``limit`` caps the body read (default: ``max_body``)."""

    def wrap(handler):
        async def run(request: Request) -> Response:
            key = request.headers.get(HEADER)
            if key is None:
                return await handler(request)
            _check_key(key)
            project = principal_of(request).project
            if project is not None:  # each project has its own keys: one never replays another's answer
                key = f"{project}\x00{key}"
            engine, settings = request.app.state.engine, request.app.state.settings
            body = await read_body(request, min(limit or settings.max_body, settings.max_body))
            keys = engine.idempotency
            stored = keys.begin(scope, key, _fingerprint(request, body),
                                lambda: _fingerprint(request, _canonical(body)))
            if stored is not None:
                return Response(stored.body, status_code=stored.status, media_type=stored.media_type,
                                headers={REPLAYED: "true"})
            try:
                # Off the event loop when it is big: retries meanwhile answer 409 in progress.
                if len(body) > _INLINE:
                    canonical = await asyncio.to_thread(_canonical, body)
                else:
                    canonical = _canonical(body)
                keys.canonical_is(scope, key, _fingerprint(request, canonical))
                response = await handler(_with_body(request, body))
            except BaseException:
                keys.release(scope, key)
                raise
            if 200 <= response.status_code < 300:
                keys.finish(scope, key, Stored(response.status_code, bytes(memoryview(response.body)), response.media_type))
            else:
                keys.release(scope, key)
            return response

        run.__name__ = handler.__name__
        run.__doc__ = handler.__doc__
        return run

    return wrap


def _check_key(key: str) -> None:
    if not key or len(key) > MAX_KEY or not all("!" <= c <= "~" for c in key):
        raise errors.InvalidRequest(
            f"the Idempotency-Key header must be 1 to {MAX_KEY} visible ASCII characters (a UUID is ideal)"
        )


def _canonical(body: bytes) -> bytes:
    try:
        return orjson.dumps(orjson.loads(body), option=orjson.OPT_SORT_KEYS) if body.strip() else b""
    except orjson.JSONDecodeError:
        return body  # not JSON: the route will refuse it; compare the bytes


def _fingerprint(request: Request, body: bytes) -> str:
    h = hashlib.sha256()
    for part in (request.method, request.url.path, request.url.query):
        h.update(part.encode())
        h.update(b"\x00")
    h.update(body)
    return h.hexdigest()


def _with_body(request: Request, body: bytes) -> Request:
    """The request again, its body already read: the handler reads it as usual."""
    sent = False

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await request.receive()

    return Request(request.scope, receive)
