"""The hot routes as plain ASGI: ``POST /batch``, ``POST /episodes/{id}/step``
and ``POST /batch/episodes``, answered without Starlette's ``Request`` and
``Response`` objects.

These are the routes a trainer calls thousands of times a second; routing,
a ``Request``, a ``Response`` and their header objects cost more per
``/step`` than the step itself. ``FastPaths`` sits in front of the router as
a middleware: a request it recognises (method and exact path) is read, handed
to the service, and answered here; anything else goes on to Starlette. It is
a door like the others: it decodes nothing but the transport, calls the
service and encodes its answer, with the same behaviour as the routes it
stands in for (errors in the envelope with their status and headers, the
body limit with 413 before a too-large body is read, ``Idempotency-Key`` and
``Idempotent-Replayed``, 201 on creation).
"""

from __future__ import annotations

import logging

import orjson

from .. import errors
from ..security.gate import project_of
from ..security.limits import call_counter
from .common import API

log = logging.getLogger("sandworld.app")

_BATCH = f"{API}/batch"
_CREATE_MANY = f"{API}/batch/episodes"
_EPISODES = f"{API}/episodes/"
_STEP = "/step"
_JSON = (b"content-type", b"application/json")
_REPLAYED = (b"idempotent-replayed", b"true")
_KEY = b"idempotency-key"
_LENGTH = b"content-length"


class _Scope:
    """What the security helpers read of a request: its scope (the gate put
    the caller's project and rate buckets there)."""

    __slots__ = ("scope",)

    def __init__(self, scope):
        self.scope = scope


class FastPaths:
    """ASGI middleware answering the hot routes straight from the service.

    It sits inside the security layer (the gate has already let the request
    in and put the caller's project in the scope) and sets the scope's
    ``endpoint`` to the route it stands in for, so metrics label it so.
    """

    def __init__(self, app, service, endpoints: dict):
        self.app = app
        self.service = service
        self.max_body = service.max_body
        self._batch_ep = endpoints[_BATCH]
        self._step_ep = endpoints[f"{_EPISODES}{{id}}{_STEP}"]
        self._create_many_ep = endpoints[_CREATE_MANY]

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path"):
            path = scope["path"]
            if path == _BATCH:
                scope["endpoint"] = self._batch_ep
                return await self._answer(scope, receive, send, self._batch, None)
            if path.startswith(_EPISODES) and path.endswith(_STEP):
                eid = path[len(_EPISODES):-len(_STEP)]
                if eid and "/" not in eid:
                    scope["endpoint"] = self._step_ep
                    return await self._answer(scope, receive, send, self._step, eid)
            elif path == _CREATE_MANY:
                scope["endpoint"] = self._create_many_ep
                return await self._answer(scope, receive, send, self._create_many, None)
        await self.app(scope, receive, send)

    async def _batch(self, scope, body: bytes, key, _arg):
        caller = _Scope(scope)
        if key is not None:
            reply = await self.service.batch_keyed(body, key, project=project_of(caller),
                                                   on_count=call_counter(caller))
            return 200, reply.body, [_REPLAYED] if reply.replayed else None
        return 200, await self.service.batch(body, project=project_of(caller), on_count=call_counter(caller)), None

    async def _step(self, scope, body: bytes, key, eid: str):
        return 200, await self.service.step(eid, body, project=project_of(_Scope(scope))), None

    async def _create_many(self, scope, body: bytes, key, _arg):
        caller = _Scope(scope)
        reply = await self.service.create_many(body, key, project=project_of(caller), on_count=call_counter(caller))
        return (201 if reply.created else 200), reply.body, [_REPLAYED] if reply.replayed else None

    async def _answer(self, scope, receive, send, handle, arg) -> None:
        try:
            key, declared = _headers(scope)
            if declared is not None and declared > self.max_body:
                raise errors.PayloadTooLarge(f"the body is {declared} bytes; this server takes at most {self.max_body}")
            body = await _read(receive, self.max_body)
            if body is None:
                return  # the client went away
            status, answer, extra = await handle(scope, body, key, arg)
        except errors.ApiError as e:
            status, answer = e.status, _envelope(e)
            extra = [(k.lower().encode("latin-1"), str(v).encode("latin-1")) for k, v in (e.headers or {}).items()]
        except Exception:  # the same answer Starlette's handler for crashes gives
            log.exception("unhandled error on POST %s", scope["path"])
            err = errors.InternalError("the server failed on this request; it was logged")
            status, answer, extra = err.status, _envelope(err), None
        # Every JSON answer ends with a newline, as the routes' (api/common.py).
        headers = [(_LENGTH, b"%d" % (len(answer) + 1)), _JSON]
        if extra:
            headers += extra
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": answer, "more_body": True})
        await send({"type": "http.response.body", "body": b"\n"})


def _envelope(err: errors.ApiError) -> bytes:
    return orjson.dumps(err.envelope())


def _headers(scope) -> tuple:
    """(Idempotency-Key or None, declared Content-Length or None)."""
    key = declared = None
    length = None
    for name, value in scope["headers"]:  # the first of each counts, as in Starlette's Headers.get
        if name == _LENGTH:
            if length is None:
                length = value
        elif name == _KEY and key is None:
            key = value.decode("latin-1")
    if length is not None:
        try:
            declared = int(length)
        except ValueError:
            raise errors.InvalidRequest("the Content-Length header is not a number") from None
    return key, declared


async def _read(receive, limit: int) -> bytes | None:
    """The whole body, refusing more than ``limit`` bytes as it streams in;
    None when the client disconnected first."""
    message = await receive()
    if message["type"] != "http.request":
        return None
    body = message.get("body", b"")
    if not message.get("more_body", False):  # the usual case: one message
        if len(body) > limit:
            raise errors.PayloadTooLarge(f"the body is over {limit} bytes, the most this server takes")
        return body
    chunks, size = [body], len(body)
    while True:
        if size > limit:
            raise errors.PayloadTooLarge(f"the body is over {limit} bytes, the most this server takes")
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            break
    if size > limit:
        raise errors.PayloadTooLarge(f"the body is over {limit} bytes, the most this server takes")
    return b"".join(chunks)
