"""Environments and the episode lifecycle: create, read, step, submit."""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.routing import Route

from .. import schemas
from ..worlds import get_world, registry
from ..engine.users import ASK_USER
from .common import API, endpoint, json_bytes_response, json_response, read_body
from .idempotency import idempotent
from .seeds import prepared_start, seed_limit


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
        "tools": ep.tool_definitions(),
        "step_limit": ep.step_limit,
        "step_budget": ep.task.step_budget if ep.task else None,
        "signals": ep.signals,
        "fault_profile": ep.fault_profile,
        "user_simulator": ep.user.kind if ep.user is not None else None,
        "scoring": ep.scoring,
        "training": ep.training,
        "checks": [{"id": c.id, "kind": c.__struct_config__.tag, "label": c.label, "source": c.source}
                   for c in ep.checks if c.source == "custom"],
        "seed_digest": ep.seed_digest,
        "now": ep.clock[0],
        "next": {"step": f"{base}/step", "submit": f"{base}/submit"},
    }


async def prepare_user(engine, episode_id: str, arguments, pending: list | None = None) -> None:
    """Fetch an llm user's reply before the engine runs the ask_user call."""
    ep = engine.episodes.get(episode_id)
    if ep is not None and ep.user is not None and ep.user.kind == "llm" and ep.status == "open":
        await engine.users.prepare(ep, arguments, pending)


def routes(engine, settings) -> list:
    limit = settings.max_body

    @endpoint
    async def list_environments(request: Request):
        return json_response({"environments": [w.describe(full=False) for w in registry().values()]})

    @endpoint
    async def show_environment(request: Request):
        return json_response(get_world(request.path_params["env"]).describe())

    @endpoint
    @idempotent("episodes.create", seed_limit(settings))
    async def create_episode(request: Request):
        req = schemas.decode(schemas.CreateEpisode, await read_body(request, seed_limit(settings)), empty_ok=True)
        start = await prepared_start(request.path_params["env"], req)  # a custom state, parsed off the loop
        await engine.users.check(req.user_simulator)  # 400/503 now, not a run of masked trials later
        ep = engine.create(request.path_params["env"], req, start)
        return json_response(created_body(ep), 201)

    @endpoint
    async def show_episode(request: Request):
        ep = engine.get(request.path_params["id"])
        body = ep.summary()
        body["trace"] = ep.trace.entries()
        body["evaluation"] = ep.evaluation
        return json_response(body)

    @endpoint
    async def step(request: Request):
        req = schemas.decode(schemas.Step, await read_body(request, limit))
        eid = request.path_params["id"]
        args_json = bytes(req.arguments)
        if req.tool == ASK_USER and not req.dry_run:
            try:
                arguments = msgspec.json.decode(args_json)
            except (msgspec.DecodeError, RecursionError):
                arguments = None
            await prepare_user(engine, eid, arguments)
        return json_bytes_response(engine.step_json(eid, req.tool, args_json, req.dry_run))

    @endpoint
    @idempotent("episodes.submit")
    async def submit(request: Request):
        req = schemas.decode(schemas.Submit, await read_body(request, limit), empty_ok=True)
        eid = request.path_params["id"]
        ep = engine.get(eid)
        # A closed episode is refused by the engine without asking a judge.
        verdicts = await engine.judge.decide(ep, req.output) if ep.status == "open" else None
        return json_response(engine.submit(eid, req.output, verdicts))

    return [
        Route(f"{API}/environments", list_environments, methods=["GET"]),
        Route(f"{API}/environments/{{env}}", show_environment, methods=["GET"]),
        Route(f"{API}/environments/{{env}}/episodes", create_episode, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}", show_episode, methods=["GET"]),
        Route(f"{API}/episodes/{{id}}/step", step, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}/submit", submit, methods=["POST"]),
    ]
