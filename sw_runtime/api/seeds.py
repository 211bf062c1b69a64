"""Custom seeds over HTTP: ``POST /environments/{env}/seeds/validate``, and
the preparation of a create request's ``state``.

Validation runs the world's own parser (the one create runs) and never
starts an episode: ``{valid, issues: [{path, message}]}``, plus the
``digest`` the episode would start with when the state is valid. With
``task_id`` it also checks that the task can be set up on the state.

Parsing and building a large state costs real time, so it runs in a worker
thread and the server keeps answering other requests meanwhile.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.routing import Route

from .. import errors, schemas
from ..engine import custom_seeds
from ..worlds import get_world
from .common import API, endpoint, json_response, read_body


def seed_limit(settings) -> int:
    """The body limit of the routes that take a custom state."""
    return min(settings.max_seed_body, settings.max_body)


async def prepared_start(environment: str, req):
    """A create request's custom state, validated and built off the event
    loop (``None`` when it has none: the engine takes it from there)."""
    if req.state is None or req.snapshot_id is not None:
        return None
    world = get_world(environment)
    task = world.tasks_by_id.get(req.task_id) if req.task_id is not None else None
    return await asyncio.to_thread(custom_seeds.prepare, world, req.state, task, req.seed)


def _validate(world, req) -> dict:
    issues = custom_seeds.issues_of(world, req.state)
    if issues:
        return {"valid": False, "issues": issues}
    start = custom_seeds.prepare(world, req.state)
    if req.task_id is not None:
        task = world.tasks_by_id.get(req.task_id)
        if task is None:
            issues = [{"path": "$.task_id", "message": f"no task {req.task_id!r} in {world.name}"}]
            return {"valid": False, "issues": issues}
        try:
            custom_seeds.set_up(world, task, start)
        except errors.InvalidRequest as e:
            return {"valid": False, "issues": e.extra["issues"]}
    return {"valid": True, "issues": [], "digest": start.digest}


def routes(engine, settings) -> list:
    limit = seed_limit(settings)

    @endpoint
    async def validate(request: Request):
        world = get_world(request.path_params["env"])
        req = schemas.decode(schemas.ValidateSeed, await read_body(request, limit))
        return json_response(await asyncio.to_thread(_validate, world, req))

    return [Route(f"{API}/environments/{{env}}/seeds/validate", validate, methods=["POST"])]
