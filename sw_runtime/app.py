"""The HTTP application: the routes of ``sw_runtime.api`` over one
``Service``, and the error envelope for everything Starlette itself answers.

Every error, ours or Starlette's (unknown route, wrong method), leaves in the
envelope ``{"error": {"code", "message"}}``; a bug answers 500
``internal_error``, never a bare text page.
"""

from __future__ import annotations

import contextlib
import gc
import logging

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from . import errors
from .api import batch, catalog, cluster, episodes, forks, seeds, snapshots, state
from .api import keys as keys_api, limits as limits_api, me as me_api, operations, webhooks as webhooks_api
from .api.common import error_response, json_response
from .api.fast import FastPaths
from .api.request_ids import RequestIds
from .config import Settings
from .mcp.server import EpisodeMcp, McpDoor
from .runs import control as runs_control
from .security.layer import Layer
from .service import Service
from .ui import routes as ui_routes
from .worlds import registry

log = logging.getLogger("sandworld.app")

AREAS = (episodes, batch, catalog, forks, snapshots, state, seeds, cluster)


def build_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings.from_env()
    service = Service(settings)
    layer = Layer(settings)
    layer.metrics.watch(service)
    service.listen(layer.webhooks.emit, layer.webhooks.hears)

    async def healthz(request: Request):
        return json_response(service.health())

    async def root(request: Request):
        # A person who opens the server's address finds the viewer; a program, where things are.
        if "text/html" in request.headers.get("accept", ""):
            return HTMLResponse('<!doctype html><title>Sandworld</title><p>Sandworld runtime: '
                                '<a href="/ui/">the viewer</a> · <a href="/api/v1/environments">the API</a> · '
                                '<a href="/openapi.json">its OpenAPI document</a></p>')
        return json_response({"name": "sandworld", "api": "/api/v1", "ui": "/ui/", "openapi": "/openapi.json",
                              "health": "/healthz"})

    async def http_error(request: Request, exc: HTTPException):
        if exc.status_code == 405:
            err = errors.MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}")
            allow = (exc.headers or {}).get("allow")
            return json_response(err.envelope(), 405, {"allow": allow} if allow else None)
        if exc.status_code == 404:
            return error_response(errors.NotFound(f"no route {request.method} {request.url.path}"))
        return json_response({"error": {"code": "http_error", "message": str(exc.detail)}}, exc.status_code)

    async def crashed(request: Request, exc: Exception):
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(errors.InternalError("the server failed on this request; it was logged"))

    @contextlib.asynccontextmanager
    async def lifespan(app):
        settle_memory()
        await service.start()
        await layer.start()
        try:
            async with mcp.run():
                yield
        finally:
            await layer.stop()
            await service.stop()

    routes = [Route("/healthz", healthz, methods=["GET"]), Route("/", root, methods=["GET"])]
    for area in AREAS:
        routes += area.routes(service)
    mcp = McpDoor(service)
    routes += runs_control.routes(service, mcp)  # /v1 and the tools under tools_url
    routes.append(Route("/api/v1/episodes/{id}/mcp", EpisodeMcp(mcp), methods=["GET", "POST", "DELETE"]))
    for area in (limits_api, me_api, webhooks_api, keys_api, operations):
        routes += area.routes(layer, service)
    routes += ui_routes(service, layer)
    app = Starlette(
        routes=routes,
        # The hot routes (/batch, /step, /batch/episodes) are answered by
        # FastPaths before the router: no Request or Response objects.
        middleware=[Middleware(FastPaths, service=service,
                               endpoints={r.path: r.endpoint for r in routes if isinstance(r, Route)})],
        exception_handlers={HTTPException: http_error, Exception: crashed},
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.layer = layer
    # Outermost: the request id names every answer, the gate's refusals too.
    app.add_middleware(_Wrapped, wrap=lambda inner: RequestIds(layer.wrap(inner, lambda: _templates(app))))
    return app


class _Wrapped:
    """Starlette middleware slot for the security layer's ASGI wrappers."""

    def __init__(self, app, wrap):
        self.app = wrap(app)

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)


def _templates(app) -> dict:
    """Endpoint -> route template, for metrics labels (a bounded set, unlike raw paths)."""
    return {r.endpoint: r.path for r in app.routes if hasattr(r, "endpoint")}


# The collector's thresholds (gc.set_threshold): see settle_memory; bench/bench_gc.py compares settings.
GC_THRESHOLDS = (5_000, 10, 50_000)


def settle_memory(thresholds: tuple = GC_THRESHOLDS) -> None:
    """Garbage-collector discipline for a server that holds many live objects.

    Everything loaded so far (worlds, modules) is moved out of the collector's
    sight with ``gc.freeze()``. With the default thresholds a third of a busy
    server's time went to full collections, walking the same long-lived
    episodes again and again, with pauses of half a second. So the oldest
    generation is collected only after 2.5 billion container allocations
    (5,000 x 10 x 50,000), about as rarely as a server ever sees.

    The young generations stay small (5,000 and 10 x 5,000): an object is
    walked once in each before it is old either way, but small generations
    are walked while still in the CPU's cache. Against 50,000 x 50 they
    took half the collector's time and cut its longest pause from 142 ms
    to 11 (a middle collection walked 2.5 million objects at once):
    bench/bench_gc.py measures it.
    """
    registry()  # import every world before freezing
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
