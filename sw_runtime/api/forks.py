"""``POST /episodes/{id}/fork``: K episodes branching from a live one."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..security.gate import project_of
from .common import API, endpoint, idempotency_key, read_body, reply_response


def routes(service) -> list:
    @endpoint
    async def fork(request: Request):
        body = await read_body(request, service.max_body)
        return reply_response(await service.fork(request.path_params["id"], body, idempotency_key(request),
                                                 project=project_of(request)))

    return [Route(f"{API}/episodes/{{id}}/fork", fork, methods=["POST"])]
