"""Reference 001's control API under ``/v1``: environments and runs.

001's six routes, and ours beside them (the runs list with its trial
groups, a run's markdown report, a heartbeat), in 001's shapes and 001's
error envelope ``{"error": {"type", "message"}}``; every route decodes,
calls the service and encodes. The tools
under each run's ``tools_url`` are served by ``gateway.py``.
"""

from __future__ import annotations

import base64
from datetime import datetime, timezone

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import errors
from ..security.gate import project_of
from ..service.runs import TOKEN_PREFIX, wall
from . import report, requests, shapes
from .gateway import Gateway, bearer, read_body

MAX_BODY = 1024 * 1024
TOOL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]  # the real APIs' methods (and MCP's GET, POST, DELETE)


def _json(body, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _endpoint(fn):
    """A /v1 route: run tokens refused, ApiErrors in 001's envelope."""

    async def handler(request: Request) -> Response:
        try:
            token = bearer(request.headers)
            if token is not None and token.startswith(TOKEN_PREFIX):
                raise errors.Unauthorized("A run token opens its run's tools only; use the API key here.")
            return await fn(request)
        except errors.ApiError as e:
            return Response(orjson.dumps(shapes.error(e)), status_code=e.status, media_type="application/json",
                            headers=e.headers)

    handler.__name__ = fn.__name__
    handler.__doc__ = fn.__doc__
    return handler


async def _body(request: Request) -> bytes:
    return await read_body(request, MAX_BODY)


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _cursor(slug: str) -> str:
    return base64.urlsafe_b64encode(slug.encode()).decode().rstrip("=")


def _after(cursor: str) -> str:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        raise errors.InvalidRequest("cursor: pass next_cursor of the previous page as it was given") from None


RUN_FILTERS = ("status", "environment", "task", "agent", "group_id")
RUN_STATUSES = ("created", "running", "evaluating", "done", "failed")


def _limit(q) -> int:
    try:
        limit = int(q.get("limit", "50"))
    except ValueError:
        raise errors.InvalidRequest("limit must be an integer from 1 to 200") from None
    if not 1 <= limit <= 200:
        raise errors.InvalidRequest("limit must be an integer from 1 to 200")
    return limit


def refuse_unknown(query, known: tuple) -> None:
    """001 refuses a field it does not list; a query parameter is one too."""
    for name in query:
        if name not in known:
            raise errors.InvalidRequest(f"unknown query parameter: {name}")


def routes(svc, mcp=None) -> list:
    published = wall(datetime.now(timezone.utc))  # the worlds are published when the server starts

    def slug_of(ref: str) -> str:
        if "+" in ref:  # a composite's worlds (the service says what is wrong with them)
            return svc.world(ref).name
        for name in svc.environment_names():
            if ref in (name, shapes.env_id(name)):
                return name
        raise errors.NotFound(f'no environment "{ref}"')

    def env(name: str) -> dict:
        return shapes.environment(svc.environment_facts(name), published)

    def run_body(request: Request, run, token: bool = False) -> dict:
        f = run.facts()
        return shapes.run(f, svc.world(f["environment"]), _base(request), token)

    @_endpoint
    async def list_environments(request: Request):
        q = request.query_params
        refuse_unknown(q, ("limit", "cursor"))
        limit = _limit(q)
        names = svc.environment_names()
        if q.get("cursor"):
            after = _after(q["cursor"])
            names = [n for n in names if n > after]
        page = names[:limit]
        nxt = _cursor(page[-1]) if len(names) > limit else None
        return _json({"data": [env(n) for n in page], "next_cursor": nxt})

    @_endpoint
    async def show_environment(request: Request):
        return _json(env(slug_of(request.path_params["env"])))

    @_endpoint
    async def create_run(request: Request):
        req = requests.run_request(await _body(request))
        req.environment = slug_of(req.environment)
        run = await svc.create_run(req, project_of(request))
        return _json(run_body(request, run, token=True), 201)

    @_endpoint
    async def list_runs(request: Request):
        q = request.query_params
        refuse_unknown(q, ("limit", "cursor", *RUN_FILTERS))
        limit = _limit(q)
        filters = {k: q.get(k) for k in RUN_FILTERS}
        if filters["status"] is not None and filters["status"] not in RUN_STATUSES:
            raise errors.InvalidRequest(f"status must be one of {', '.join(RUN_STATUSES)}")
        if filters["environment"] is not None:
            filters["environment"] = slug_of(filters["environment"])
        before = None
        if q.get("cursor"):
            try:
                before = int(_after(q["cursor"]))
            except ValueError:
                raise errors.InvalidRequest("cursor: pass next_cursor of the previous page as it was given") from None
        runs, more, group = await svc.list_runs(filters, limit, before, project_of(request))
        body = {"data": [shapes.run_row(r.facts()) for r in runs], "next_cursor": _cursor(str(more)) if more else None}
        if group is not None:
            body["group"] = group
        return _json(body)

    @_endpoint
    async def run_report(request: Request):
        run = await svc.read_run(request.path_params["run_id"], project_of(request))
        f = run.facts()
        text = report.render(f, svc.world(f["environment"]), _base(request), svc.health()["core"])
        return Response(text.encode(), media_type="text/markdown; charset=utf-8")

    @_endpoint
    async def show_run(request: Request):
        return _json(run_body(request, await svc.read_run(request.path_params["run_id"], project_of(request))))

    @_endpoint
    async def finish_run(request: Request):
        req = requests.decode(requests.FinishRun, await _body(request), empty_ok=True)
        run = await svc.finish_run(request.path_params["run_id"], req.output, req.idempotency_key,
                                   project_of(request))
        return _json(run_body(request, run))

    @_endpoint
    async def heartbeat(request: Request):
        return _json(run_body(request, await svc.heartbeat_run(request.path_params["run_id"], project_of(request))))

    @_endpoint
    async def run_tools(request: Request):
        run = await svc.run_tools(request.path_params["run_id"], project_of(request))
        body = run_body(request, run, token=True)
        return _json({"run_id": run.id} | {k: body[k] for k in ("tools_url", "mcp_url", "token", "expires_at", "tools")})

    @_endpoint
    async def no_route(request: Request):
        raise errors.NotFound(f"no route {request.method} {request.url.path}")

    return [
        Route("/v1/environments", list_environments, methods=["GET"]),
        Route("/v1/environments/{env}", show_environment, methods=["GET"]),
        Route("/v1/runs", create_run, methods=["POST"]),
        Route("/v1/runs", list_runs, methods=["GET"]),
        Route("/v1/runs/{run_id}/report.md", run_report, methods=["GET"]),
        Route("/v1/runs/{run_id}", show_run, methods=["GET"]),
        Route("/v1/runs/{run_id}/finish", finish_run, methods=["POST"]),
        Route("/v1/runs/{run_id}/heartbeat", heartbeat, methods=["POST"]),
        Route("/v1/runs/{run_id}/tools", run_tools, methods=["GET"]),
        Route("/v1/runs/{run_id}/tools/{path:path}", Gateway(svc, mcp, "run"), methods=TOOL_METHODS),
        Route("/api/v1/episodes/{id}/tools/{path:path}", Gateway(svc, mcp, "episode"), methods=TOOL_METHODS),
        Route("/v1/{rest:path}", no_route, methods=TOOL_METHODS),
    ]
