"""``POST /environments/{env}/seeds/validate``: check a custom state (and a
task on it) without starting an episode (``engine/custom_seeds.py``)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .common import API, endpoint, json_response, read_body


def routes(service) -> list:
    @endpoint
    async def validate(request: Request):
        body = await read_body(request, service.max_seed_body)
        return json_response(await service.validate_seed(request.path_params["env"], body))

    return [Route(f"{API}/environments/{{env}}/seeds/validate", validate, methods=["POST"])]
