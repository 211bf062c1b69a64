"""Webhook subscriptions and their delivery logs: register, list, delete, read.

``POST /webhooks`` (201, shows the signing secret once), ``GET /webhooks``,
``GET``/``PATCH``/``DELETE /webhooks/{id}``, ``POST /webhooks/{id}/rotate-secret``
(a new secret, shown once; the old one overlaps), ``POST /webhooks/{id}/ping``
(a test delivery, 202), ``GET /webhooks/{id}/deliveries``; lists are
paginated (``limit``, ``cursor`` -> ``next_cursor``). A caller sees only its
project's subscriptions; another project's id is 404 like an unknown one.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from .. import schemas
from ..pagination import list_query
from ..security.gate import principal_of
from .common import API, endpoint, json_response, read_body

MAX_BODY = 64 * 1024


def _page(request: Request):
    return list_query(request.query_params)[0]


def routes(layer, service) -> list:
    subs, dispatcher = layer.subscriptions, layer.webhooks

    @endpoint
    async def register(request: Request):
        req = schemas.decode(schemas.CreateWebhook, await read_body(request, MAX_BODY))
        sub = subs.add(principal_of(request).project, req.url, req.events, req.secret)
        return json_response({**sub.describe(), "secret": sub.secret}, 201)

    @endpoint
    async def listing(request: Request):
        return json_response(subs.page(_page(request), principal_of(request).project))

    @endpoint
    async def show(request: Request):
        return json_response(subs.get(request.path_params["id"], principal_of(request).project).describe())

    @endpoint
    async def update(request: Request):
        req = schemas.decode(schemas.UpdateWebhook, await read_body(request, MAX_BODY))
        sub = subs.update(request.path_params["id"], principal_of(request).project, req.url, req.events)
        return json_response(sub.describe())

    @endpoint
    async def rotate(request: Request):
        req = schemas.decode(schemas.RotateSecret, await read_body(request, MAX_BODY), empty_ok=True)
        sub = subs.rotate(request.path_params["id"], principal_of(request).project, req.overlap_seconds, req.secret)
        return json_response({**sub.describe(), "secret": sub.secret})

    @endpoint
    async def ping(request: Request):
        sub = subs.get(request.path_params["id"], principal_of(request).project)
        return json_response(dispatcher.ping(sub), 202)

    @endpoint
    async def delete(request: Request):
        sub = subs.delete(request.path_params["id"], principal_of(request).project)
        return json_response({"webhook_id": sub.id, "deleted": True})

    @endpoint
    async def deliveries(request: Request):
        page = _page(request)
        sub = subs.get(request.path_params["id"], principal_of(request).project)
        return json_response(dispatcher.page(sub.id, page))

    return [
        Route(f"{API}/webhooks", register, methods=["POST"]),
        Route(f"{API}/webhooks", listing, methods=["GET"]),
        Route(f"{API}/webhooks/{{id}}", show, methods=["GET"]),
        Route(f"{API}/webhooks/{{id}}", update, methods=["PATCH"]),
        Route(f"{API}/webhooks/{{id}}", delete, methods=["DELETE"]),
        Route(f"{API}/webhooks/{{id}}/rotate-secret", rotate, methods=["POST"]),
        Route(f"{API}/webhooks/{{id}}/ping", ping, methods=["POST"]),
        Route(f"{API}/webhooks/{{id}}/deliveries", deliveries, methods=["GET"]),
    ]
