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
from .common import API, endpoint, json_bytes_response, json_response, read_body
from .episodes import created_body, prepare_user
from .idempotency import idempotent


async def check_users(engine, items: list) -> dict:
    """The items whose user simulator cannot answer: ``{index: ApiError}``."""
    refused = {}
    for i, raw in enumerate(items):
        try:
            req = schemas.decode_item(schemas.CreateItem, raw)
        except errors.ApiError:
            continue  # create_many answers it
        if req.user_simulator not in (None, "scripted"):
            try:
                await engine.users.check(req.user_simulator)
            except errors.ApiError as e:
                refused[i] = e
    return refused


def create_many(engine, items: list, refused: dict | None = None) -> list:
    """Start one episode per item (a ``schemas.CreateItem`` as raw JSON), in order.

    Each slot is what a single create answers, or the item's error
    (``refused``: errors found beforehand, by index).
    """
    out = []
    full = None
    for i, raw in enumerate(items):
        try:
            req = schemas.decode_item(schemas.CreateItem, raw)
            if refused and i in refused:
                raise refused[i]
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
        if not isinstance(call, errors.ApiError) and call.tool == ASK_USER and not call.dry_run:
            asked = pending.setdefault(call.episode_id, [])
            try:
                arguments = msgspec.json.decode(call.arguments)
            except (msgspec.DecodeError, RecursionError):
                arguments = None  # the engine answers invalid_arguments
            try:
                await prepare_user(engine, call.episode_id, arguments, asked)
            except errors.ApiError as e:
                e.extra.setdefault("episode_id", call.episode_id)
                out.append(e)
                continue
            question = arguments.get("question") if isinstance(arguments, dict) else None
            if isinstance(question, str):
                asked.append(question)
        out.append(call)
    return out


_fast_decode = msgspec.json.Decoder(schemas.Batch).decode
_call_decoder = msgspec.json.Decoder(schemas.Call)


def _decode_call(raw):
    try:
        return _call_decoder.decode(raw)
    except RecursionError:
        return errors.InvalidJson("a call nests too deeply; flatten it")
    except msgspec.ValidationError as e:
        return errors.InvalidRequest(schemas.explain(e))
    except msgspec.DecodeError as e:  # cannot happen inside valid JSON, but say so if it does
        return errors.InvalidJson(f"a call is not valid JSON: {e}")


def routes(engine, settings) -> list:
    limit = settings.max_body

    @endpoint
    async def batch(request: Request):
        body = await read_body(request, limit)
        try:
            calls = _fast_decode(body)  # the whole batch in one typed pass
        except (msgspec.DecodeError, RecursionError):
            # Something is off: decode call by call, so a malformed call
            # fails only its own slot (and bad JSON is still invalid_json).
            calls = [_decode_call(raw) for raw in schemas.decode(schemas.LooseBatch, body).calls]
        else:
            calls = calls.calls
        if len(calls) > settings.max_batch:
            raise errors.InvalidRequest(f"{len(calls)} calls in one batch; at most {settings.max_batch}: split it")
        for c in calls:
            if not isinstance(c, errors.ApiError) and c.tool == ASK_USER:
                calls = await _prepare_users(engine, calls)
                break
        return json_bytes_response(engine.batch_json(calls))

    @endpoint
    @idempotent("batch.create")
    async def batch_create(request: Request):
        items = _items(schemas.BatchCreate, await read_body(request, limit), settings.max_batch_episodes)
        return json_response({"results": create_many(engine, items, await check_users(engine, items))})

    @endpoint
    async def batch_submit(request: Request):
        items = _items(schemas.BatchSubmit, await read_body(request, limit), settings.max_batch_episodes)
        return json_response({"results": submit_many(engine, items)})

    return [
        Route(f"{API}/batch", batch, methods=["POST"]),
        Route(f"{API}/batch/episodes", batch_create, methods=["POST"]),
        Route(f"{API}/batch/submit", batch_submit, methods=["POST"]),
    ]
