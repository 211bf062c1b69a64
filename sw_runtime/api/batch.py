"""Batched routes: many calls, to many episodes, in one request
(``POST /batch``), and the batched lifecycle: create many episodes
(``POST /batch/episodes``) and submit many (``POST /batch/submit``).

Every answer is ``{"results": [...]}``, one slot per item in the order given;
an item that cannot be done fails in its own slot and the others go on.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..security.gate import project_of
from ..security.limits import call_counter
from .common import API, endpoint, idempotency_key, json_bytes_response, read_body, reply_response


def routes(service) -> list:
    @endpoint
    async def batch(request: Request):
        body = await read_body(request, service.max_body)
        key = idempotency_key(request)
        if key is not None:
            return reply_response(await service.batch_keyed(body, key, project=project_of(request),
                                                            on_count=call_counter(request)))
        answer = await service.batch(body, project=project_of(request), on_count=call_counter(request))
        return json_bytes_response(answer)

    @endpoint
    async def batch_create(request: Request):
        body = await read_body(request, service.max_body)
        return reply_response(await service.create_many(body, idempotency_key(request), project=project_of(request),
                                                        on_count=call_counter(request)))

    @endpoint
    async def batch_submit(request: Request):
        body = await read_body(request, service.max_body)
        return reply_response(await service.submit_many(body, idempotency_key(request), project=project_of(request),
                                                        on_count=call_counter(request)))

    return [
        Route(f"{API}/batch", batch, methods=["POST"]),
        Route(f"{API}/batch/episodes", batch_create, methods=["POST"]),
        Route(f"{API}/batch/submit", batch_submit, methods=["POST"]),
    ]
