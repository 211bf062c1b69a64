"""Batched routes: many calls, to many episodes, in one request
(``POST /batch``), and the batched lifecycle: create many episodes
(``POST /batch/episodes``) and submit many (``POST /batch/submit``).

Every answer is ``{"results": [...]}``, one slot per item in the order given;
an item that cannot be done gets ``{"ok": false, "error": {code, message}}`` in
its own slot and the others go on, so the request itself succeeds.
"""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.routing import Route

from .. import errors, schemas
from ..engine.users import ASK_USER
from .common import API, endpoint, json_response, read_body
from .idempotency import idempotent
from .episodes import prepare_user
from .episodes import created_body


def create_many(engine, items: list) -> list:
    """Start one episode per item (a ``schemas.CreateItem`` as raw JSON), in order.

    Each slot is what a single create answers, or the item's error.
    """
    out = []
    full = None
    for raw in items:
        try:
            req = schemas.decode_item(schemas.CreateItem, raw)
            if full is not None:
                # The server is at its episode cap: nothing later in this
                # request can free room, so don't sweep once per item.
                raise full
            ep = engine.create(req.environment, req)
        except errors.RateLimited as e:
            full = e
            out.append({"ok": False, "error": e.slot()})
        except errors.ApiError as e:
            out.append({"ok": False, "error": e.slot()})
        else:
            out.append(created_body(ep))
    return out


def submit_many(engine, items: list) -> list:
    """Submit one episode per item (a ``schemas.SubmitItem`` as raw JSON), in order.

    Each slot is what a single submit answers, or ``{"episode_id", "ok": false, "error"}``.
    """
    out = []
    for raw in items:
        episode_id = None
        try:
            req = schemas.decode_item(schemas.SubmitItem, raw)
            episode_id = req.episode_id
            out.append(engine.submit(episode_id, req.output))
        except errors.ApiError as e:
            out.append({"episode_id": episode_id, "ok": False, "error": e.slot()})
    return out


def _items(kind, body: bytes, most: int) -> list:
    req = schemas.decode(kind, body)
    if len(req.episodes) > most:
        raise errors.InvalidRequest(
            f"{len(req.episodes)} episodes in one request; at most {most} (SW_MAX_BATCH_EPISODES): split it"
        )
    return req.episodes


async def _prepare_users(engine, calls: list) -> list:
    """Fetch llm users' replies for the batch's ask_user calls, in call order;
    a call whose reply cannot be had fails in its own slot."""
    pending: dict = {}
    out = []
    for call in calls:
        if not isinstance(call, errors.ApiError) and call.tool == ASK_USER:
            asked = pending.setdefault(call.episode_id, [])
            try:
                await prepare_user(engine, call.episode_id, call.arguments, asked)
            except errors.ApiError as e:
                e.extra.setdefault("episode_id", call.episode_id)
                out.append(e)
                continue
            question = call.arguments.get("question") if isinstance(call.arguments, dict) else None
            if isinstance(question, str):
                asked.append(question)
        out.append(call)
    return out


def routes(engine, settings) -> list:
    limit = settings.max_body

    @endpoint
    async def batch(request: Request):
        req = schemas.decode(schemas.Batch, await read_body(request, limit))
        if len(req.calls) > settings.max_batch:
            raise errors.InvalidRequest(f"{len(req.calls)} calls in one batch; at most {settings.max_batch}: split it")
        calls = []
        for raw in req.calls:
            # Each call is decoded on its own, so one malformed call fails
            # only its own slot.
            try:
                calls.append(schemas.convert(schemas.Call, msgspec.json.decode(raw)))
            except errors.ApiError as e:
                calls.append(e)
        if any(not isinstance(c, errors.ApiError) and c.tool == ASK_USER for c in calls):
            calls = await _prepare_users(engine, calls)
        return json_response({"results": engine.batch(calls)})

    @endpoint
    @idempotent("batch.create")
    async def batch_create(request: Request):
        items = _items(schemas.BatchCreate, await read_body(request, limit), settings.max_batch_episodes)
        return json_response({"results": create_many(engine, items)})

    @endpoint
    async def batch_submit(request: Request):
        items = _items(schemas.BatchSubmit, await read_body(request, limit), settings.max_batch_episodes)
        return json_response({"results": submit_many(engine, items)})

    return [
        Route(f"{API}/batch", batch, methods=["POST"]),
        Route(f"{API}/batch/episodes", batch_create, methods=["POST"]),
        Route(f"{API}/batch/submit", batch_submit, methods=["POST"]),
    ]
