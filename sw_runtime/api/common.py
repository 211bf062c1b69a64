"""What every route shares: JSON answers, the error envelope, body limits,
the ``Idempotency-Key`` header and the service's ``Reply``s."""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .. import errors
from ..bodies import read_body  # noqa: F401  (the routes import it from here)

API = "/api/v1"
_JSON = "application/json"
KEY_HEADER = "idempotency-key"
REPLAYED = "Idempotent-Replayed"


def json_response(body, status: int = 200, headers: dict | None = None) -> Response:
    # Every JSON answer ends with a newline, so `curl` output does not run into the prompt.
    return Response(orjson.dumps(body, option=orjson.OPT_APPEND_NEWLINE), status_code=status, media_type=_JSON,
                    headers=headers)


def json_bytes_response(body: bytes) -> Response:
    """An answer already encoded (the step and batch hot paths), newline added."""
    return Response(body + b"\n", media_type=_JSON)


def reply_response(reply) -> Response:
    """A service ``Reply`` as HTTP: 201 when it created something, and
    ``Idempotent-Replayed: true`` when it is a key's first answer again."""
    return Response(reply.body + b"\n", status_code=201 if reply.created else 200, media_type=_JSON,
                    headers={REPLAYED: "true"} if reply.replayed else None)


def idempotency_key(request: Request) -> str | None:
    return request.headers.get(KEY_HEADER)


def error_response(err: errors.ApiError) -> Response:
    return json_response(err.envelope(), err.status, err.headers)


def endpoint(fn):
    """Wrap a route so that ApiErrors become the envelope."""

    async def handler(request: Request) -> Response:
        try:
            return await fn(request)
        except errors.ApiError as e:
            return error_response(e)

    handler.__name__ = fn.__name__
    handler.__doc__ = fn.__doc__
    return handler
