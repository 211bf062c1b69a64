"""``POST /episodes/{id}/fork``: K episodes branching from a live one."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .. import schemas
from ..engine import forks
from ..security.gate import principal_of
from .common import API, endpoint, json_response, read_body
from .idempotency import idempotent


def fork_body(ep) -> dict:
    """One fork, as the fork route answers it. Its tools, policy and
    instruction are the source's: the client already has them."""
    base = f"{API}/episodes/{ep.id}"
    return {
        "episode_id": ep.id,
        "forked_from": ep.forked_from,
        "steps": ep.steps,
        "digest": ep.digest,
        "now": ep.clock[ep.steps],
        "next": {"step": f"{base}/step", "submit": f"{base}/submit"},
    }


def routes(engine, settings) -> list:
    limit = settings.max_body

    @endpoint
    @idempotent("episodes.fork")
    async def fork(request: Request):
        req = schemas.decode(schemas.Fork, await read_body(request, limit), empty_ok=True)
        source = request.path_params["id"]
        project = principal_of(request).project
        children = forks.fork(engine, source, req.n, project)
        src = engine.get(source, project)
        return json_response(
            {
                "forked_from": source,
                "steps": src.steps,
                "digest": src.digest,
                "episodes": [fork_body(c) for c in children],
            },
            201,
        )

    return [Route(f"{API}/episodes/{{id}}/fork", fork, methods=["POST"])]
