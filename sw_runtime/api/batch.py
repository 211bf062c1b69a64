"""``POST /batch``: many calls, to many episodes, in one request."""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.routing import Route

from .. import errors, schemas
from .common import API, endpoint, json_response, read_body


def routes(engine, settings) -> list:
    limit = settings.max_body

    @endpoint
    async def batch(request: Request):
        req = schemas.decode(schemas.Batch, await read_body(request, limit))
        if len(req.calls) > settings.max_batch:
            raise errors.InvalidRequest(f"{len(req.calls)} calls in one batch; at most {settings.max_batch}: split it")
        calls = []
        for raw in req.calls:
            # Each call is decoded on its own, so one malformed call fails
            # only its own slot.
            try:
                calls.append(schemas.convert(schemas.Call, msgspec.json.decode(raw)))
            except errors.ApiError as e:
                calls.append(e)
        return json_response({"results": engine.batch(calls)})

    return [Route(f"{API}/batch", batch, methods=["POST"])]
