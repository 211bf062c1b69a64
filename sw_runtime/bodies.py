"""Reading a request's body within a limit, for every door that takes one
(``/api/v1``'s routes, the runs API and the real APIs' addresses)."""

from __future__ import annotations

from starlette.requests import Request

from . import errors


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refusing more than ``limit`` bytes before reading them all."""
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise errors.InvalidRequest("the Content-Length header is not a number") from None
        if size > limit:
            raise errors.PayloadTooLarge(f"the body is {size} bytes; this server takes at most {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise errors.PayloadTooLarge(f"the body is over {limit} bytes, the most this server takes")
        chunks.append(chunk)
    return b"".join(chunks)
