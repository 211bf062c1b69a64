"""The pages ``sandworld serve`` serves under ``/ui/``: episodes, one episode, the server.

A door like the HTTP API: each page reads the service (as the caller's
project, which the gate found from the login cookie under ``--auth keys``)
and renders a template; it never touches the engine. Another project's
episode is 404 here exactly as in the API.
"""

from __future__ import annotations

import orjson
from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from .. import errors
from ..pagination import page_request
from ..security.gate import principal_of
from ..service import ENDED_BY, STATUSES, Filters
from . import login, trace_view
from .templating import page, static_mount

UI = "/ui"
FILTERS = ("environment", "task_id", "status", "ended_by", "pass", "agent_name")
PAGE = 50


def _filters(q) -> Filters:
    passed = {"": None, None: None, "pass": True, "fail": False}.get(q.get("pass"))
    if q.get("pass") not in ("", None, "pass", "fail"):
        raise errors.InvalidRequest("pass: use pass or fail")
    return Filters(**{k: q.get(k) or None for k in FILTERS if k != "pass"}, passed=passed).check()


def routes(service, layer) -> list:
    def who(request: Request) -> dict:
        principal = principal_of(request)
        return {"project": principal.project, "auth": layer.keys is not None}

    def _error_page(request: Request, err: errors.ApiError):
        return page(request, "error.html", err.status, error=err, **who(request))

    def _viewer(fn):
        """A page whose ``ApiError``s render as an error page with the same status."""

        async def handler(request: Request):
            try:
                return await fn(request)
            except errors.ApiError as e:
                return _error_page(request, e)

        handler.__name__ = fn.__name__
        return handler

    async def index(request: Request):
        return RedirectResponse(f"{UI}/episodes", 303)

    @_viewer
    async def episodes(request: Request):
        q = request.query_params
        filters = _filters(q)
        listing = service.browse(filters, page_request(q.get("limit") or PAGE, q.get("cursor")),
                                 project=principal_of(request).project)
        kept = {k: q.get(k) for k in FILTERS if q.get(k)}
        worlds = service.environments()["environments"]
        return page(request, "episodes.html", rows=listing["items"], next_cursor=listing["next_cursor"],
                    kept=kept, worlds=worlds, statuses=STATUSES, endings=ENDED_BY, **who(request))

    @_viewer
    async def episode(request: Request):
        project = principal_of(request).project
        eid = request.path_params["id"]
        body = orjson.loads(await service.episode_json(eid, project=project))
        view = trace_view.build(body, None if body.get("evaluation") else service.live_changes(eid, project=project),
                                trace_view.window_start(request.query_params))
        forks = service.browse(Filters(forked_from=eid), page_request(PAGE), project=project)["items"]
        return page(request, "episode.html", view=view, ep=body, forks=forks,
                    snapshots=service.snapshots_of(eid, project=project),
                    brief=service.episode_brief(body, project=project), api_path=f"/api/v1/episodes/{eid}",
                    **who(request))

    @_viewer
    async def server(request: Request):
        listing = service.environments()
        # the worlds, then each set of worlds with cross-app tasks (a composite)
        worlds = [service.environment(w["name"]) for w in listing["environments"] + listing.get("composites", [])]
        own = str(request.base_url).rstrip("/") + "/api/v1"
        open_eps = service.browse(Filters(status="open"), page_request(PAGE), project=principal_of(request).project)
        return page(request, "server.html", worlds=worlds, health=service.health(), cluster=service.shards(own),
                    open_episodes=open_eps["items"], more_open=open_eps["next_cursor"] is not None, **who(request))

    @_viewer
    async def task(request: Request):
        seed = request.query_params.get("seed") or "0"
        if not seed.isdigit():
            raise errors.InvalidRequest("seed must be a whole number")
        preview = service.task_preview(request.path_params["env"], request.path_params["task"], int(seed))
        return page(request, "task.html", task=preview, **who(request))

    async def unknown(request: Request):
        return _error_page(request, errors.NotFound(f"no page {request.url.path}"))

    return [
        Route(UI, index, methods=["GET"]),
        Route(f"{UI}/", index, methods=["GET"]),
        Route(f"{UI}/episodes", episodes, methods=["GET"]),
        Route(f"{UI}/episodes/{{id}}", episode, methods=["GET"]),
        Route(f"{UI}/server", server, methods=["GET"]),
        Route(f"{UI}/worlds/{{env}}/tasks/{{task}}", task, methods=["GET"]),
        *login.routes(layer),
        static_mount(),
        Route(f"{UI}/{{rest:path}}", unknown, methods=["GET"]),
    ]
