"""Environments and the episode lifecycle: create, read, step, submit."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .. import schemas
from ..worlds import get_world, registry
from .common import API, endpoint, json_response, read_body


def created_body(ep) -> dict:
    """What creating an episode answers (the reference's fields, plus ours)."""
    base = f"{API}/episodes/{ep.id}"
    policy = ep.world.policy
    if ep.task is not None and ep.task.policy:
        policy = f"{policy}\n\n{ep.task.policy}"
    return {
        "episode_id": ep.id,
        "environment": ep.world.name,
        "environment_version": ep.world.version,
        "task_id": ep.task.id if ep.task else None,
        "seed": ep.seed,
        "agent_name": ep.agent_name,
        "instruction": ep.setup.instruction if ep.setup else None,
        "policy": policy,
        "tools": [t.definition() for t in ep.world.tools],
        "step_limit": ep.step_limit,
        "step_budget": ep.task.step_budget if ep.task else None,
        "signals": ep.signals,
        "fault_profile": ep.fault_profile,
        "seed_digest": ep.seed_digest,
        "now": ep.clock[0],
        "next": {"step": f"{base}/step", "submit": f"{base}/submit"},
    }


def routes(engine, settings) -> list:
    limit = settings.max_body

    @endpoint
    async def list_environments(request: Request):
        return json_response({"environments": [w.describe(full=False) for w in registry().values()]})

    @endpoint
    async def show_environment(request: Request):
        return json_response(get_world(request.path_params["env"]).describe())

    @endpoint
    async def create_episode(request: Request):
        req = schemas.decode(schemas.CreateEpisode, await read_body(request, limit), empty_ok=True)
        ep = engine.create(request.path_params["env"], req)
        return json_response(created_body(ep), 201)

    @endpoint
    async def show_episode(request: Request):
        ep = engine.get(request.path_params["id"])
        body = ep.summary()
        body["trace"] = ep.trace
        body["evaluation"] = ep.evaluation
        return json_response(body)

    @endpoint
    async def step(request: Request):
        req = schemas.decode(schemas.Step, await read_body(request, limit))
        return json_response(engine.step(request.path_params["id"], req.tool, req.arguments))

    @endpoint
    async def submit(request: Request):
        req = schemas.decode(schemas.Submit, await read_body(request, limit), empty_ok=True)
        return json_response(engine.submit(request.path_params["id"], req.output))

    return [
        Route(f"{API}/environments", list_environments, methods=["GET"]),
        Route(f"{API}/environments/{{env}}", show_environment, methods=["GET"]),
        Route(f"{API}/environments/{{env}}/episodes", create_episode, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}", show_episode, methods=["GET"]),
        Route(f"{API}/episodes/{{id}}/step", step, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}/submit", submit, methods=["POST"]),
    ]
