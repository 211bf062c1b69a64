"""Environments and the episode lifecycle: create, read, step, submit."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from ..pagination import list_query
from ..security.gate import project_of
from .common import API, endpoint, idempotency_key, json_bytes_response, json_response, read_body, reply_response


def routes(service) -> list:
    @endpoint
    async def list_environments(request: Request):
        return json_response(service.environments())

    @endpoint
    async def show_environment(request: Request):
        return json_response(service.environment(request.path_params["env"]))

    @endpoint
    async def create_episode(request: Request):
        body = await read_body(request, service.max_seed_body)
        return reply_response(await service.create(request.path_params["env"], body, idempotency_key(request),
                                                   project=project_of(request)))

    @endpoint
    async def create_composite(request: Request):
        # The body names the worlds (``environments``): one to three.
        body = await read_body(request, service.max_seed_body)
        return reply_response(await service.create(None, body, idempotency_key(request), project=project_of(request)))

    @endpoint
    async def show_episode(request: Request):
        return json_bytes_response(await service.episode_json(request.path_params["id"], project=project_of(request)))

    @endpoint
    async def list_episodes(request: Request):
        page, f = list_query(request.query_params, ("status", "environment", "task_id"))
        return json_response(service.episodes(f["status"], f["environment"], f["task_id"], page,
                                              project=project_of(request)))

    @endpoint
    async def delete_episode(request: Request):
        return json_response(service.delete(request.path_params["id"], project=project_of(request)))

    @endpoint
    async def heartbeat(request: Request):
        return json_response(service.heartbeat(request.path_params["id"], project=project_of(request)))

    @endpoint
    async def step(request: Request):
        body = await read_body(request, service.max_body)
        answer = await service.step(request.path_params["id"], body, project=project_of(request))
        return json_bytes_response(answer)

    @endpoint
    async def submit(request: Request):
        body = await read_body(request, service.max_body)
        return reply_response(await service.submit(request.path_params["id"], body, idempotency_key(request),
                                                   project=project_of(request)))

    return [
        Route(f"{API}/environments", list_environments, methods=["GET"]),
        Route(f"{API}/environments/{{env}}", show_environment, methods=["GET"]),
        Route(f"{API}/environments/{{env}}/episodes", create_episode, methods=["POST"]),
        Route(f"{API}/episodes", list_episodes, methods=["GET"]),
        Route(f"{API}/episodes", create_composite, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}", show_episode, methods=["GET"]),
        Route(f"{API}/episodes/{{id}}", delete_episode, methods=["DELETE"]),
        Route(f"{API}/episodes/{{id}}/step", step, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}/submit", submit, methods=["POST"]),
        Route(f"{API}/episodes/{{id}}/heartbeat", heartbeat, methods=["POST"]),
    ]
