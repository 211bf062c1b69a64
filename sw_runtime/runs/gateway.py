"""The tools under ``tools_url``: the real APIs' addresses, and MCP.

One ASGI app serves ``{tools_url}/{real host}/{real path}`` for a run
(``/v1/runs/{run_id}/tools``) and for an ``/api/v1`` episode
(``/api/v1/episodes/{id}/tools``). It decodes a real API request (path,
query, JSON or form body) into the world's tool and its arguments, hands the
call to the service (the same engine call as a ``step``), and answers in the
real API's shape: the tool's result as it is, the tool's own refusal with the
real API's status (Gmail's 404 for an unknown message). A request refused
before it reaches a tool (no or wrong token, an ended run, no such method)
is not a call. The MCP paths go to the MCP door.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .. import errors
from ..service.runs import episode_id_of
from . import addresses, coerce, shapes
from .providers import MCP_PATHS

MAX_BODY = 4 * 1024 * 1024
_JSON = "application/json"

# Google's standard query parameters: about the transport, not the method.
_GOOGLE_SYSTEM = {"alt", "prettyPrint", "fields", "key", "quotaUser", "userIp", "access_token", "oauth_token",
                  "callback", "uploadType", "upload_protocol", "$.xgafv"}

# A tool's refusal code -> (HTTP status, Google status, reason), as the Google APIs answer it.
_GOOGLE_ERRORS = {
    "not_found": (404, "NOT_FOUND", "notFound"),
    "forbidden": (403, "PERMISSION_DENIED", "forbidden"),
    "invalid_argument": (400, "INVALID_ARGUMENT", "invalidArgument"),
    "invalid_arguments": (400, "INVALID_ARGUMENT", "invalidArgument"),
    "bad_request": (400, "INVALID_ARGUMENT", "badRequest"),
    "rate_limited": (429, "RESOURCE_EXHAUSTED", "rateLimitExceeded"),
    "timeout": (503, "UNAVAILABLE", "backendError"),
    "server_error": (500, "INTERNAL", "backendError"),
    "internal_error": (500, "INTERNAL", "backendError"),
}


def _json(body, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type=_JSON)


def bearer(request_headers) -> str | None:
    auth = request_headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


class Gateway:
    """ASGI app for ``{tools_url}/{path}``; ``kind`` is ``run`` or ``episode``."""

    def __init__(self, svc, mcp, kind: str):
        self.svc = svc
        self.mcp = mcp
        self.kind = kind

    async def __call__(self, scope, receive, send) -> None:
        params = scope["path_params"]
        path = params["path"].strip("/")
        episode_id = episode_id_of(params["run_id"]) if self.kind == "run" else params["id"]
        if path in MCP_PATHS and self.mcp is not None:
            await self.mcp.handle(scope, receive, send, episode_id or "", MCP_PATHS[path])
            return
        request = Request(scope, receive)
        google = addresses.provider_of_path(path) == "google"
        try:
            response = await self._rest(request, episode_id, path, google)
        except errors.ApiError as e:  # refused before any tool ran: not a call
            if google:
                response = _json(shapes.error(e), e.status)
            else:
                kind = {"unauthorized": "invalid_auth", "episode_closed": "run_ended", "step_limit": "run_ended",
                        "not_found": "invalid_auth"}.get(e.code, e.code)
                response = _json({"ok": False, "error": kind}, e.status)
        await response(scope, receive, send)

    async def _rest(self, request: Request, episode_id: str | None, path: str, google: bool) -> Response:
        routed = addresses.route(request.method, path)
        if routed is None:
            return _not_found(google, f"no {request.method} {path} under this tools address")
        body = await read_body(request, MAX_BODY)
        form = []
        json_body = {}
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if body.strip():
            if ctype == "application/x-www-form-urlencoded" or (not google and ctype != _JSON and b"=" in body
                                                                and body[:1] != b"{"):
                form = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
            else:
                try:
                    json_body = orjson.loads(body)
                except orjson.JSONDecodeError:
                    raise errors.InvalidRequest("the body is not valid JSON") from None
                if not isinstance(json_body, dict):
                    raise errors.InvalidRequest("the body must be a JSON object")
        query = list(request.query_params.multi_items())
        token = bearer(request.headers)
        if not google:  # Slack also takes the token as a form field (or query parameter)
            sent = [v for k, v in form + query if k == "token"]
            field = sent[-1] if sent else json_body.get("token")
            token = field if isinstance(field, str) and field else token  # the field, when sent, wins
            form = [(k, v) for k, v in form if k != "token"]
            query = [(k, v) for k, v in query if k != "token"]
            json_body.pop("token", None)
        else:
            query = [(k, v) for k, v in query if k not in _GOOGLE_SYSTEM]
        if episode_id is None:
            raise errors.NotFound("no such run")
        tool = self.svc.tool_definition(episode_id, token, routed.tool)  # 401 without the token
        if tool is None:
            return _not_found(google, f"this world has no {routed.tool}")
        schema = tool["parameters"]
        args = dict(routed.path_args)
        args.update(coerce.typed(schema, query))
        args.update(coerce.typed(schema, form))
        args.update(json_body)
        if not google:  # the Slack Web API ignores arguments a method does not take
            props = schema.get("properties", {})
            args = {k: v for k, v in args.items() if k in props}
        answer = await self.svc.tool_call(episode_id, token, routed.tool, orjson.dumps(args), routed.address.surface)
        return _answer(answer, google)


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refusing more than ``limit`` bytes before reading them all."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise errors.PayloadTooLarge(f"the body is over {limit} bytes, the most this address takes")
        chunks.append(chunk)
    return b"".join(chunks)


def _not_found(google: bool, message: str) -> Response:
    if google:
        return _json({"error": {"code": 404, "message": message, "status": "NOT_FOUND",
                                "errors": [{"message": message, "domain": "global", "reason": "notFound"}]}}, 404)
    return _json({"ok": False, "error": "unknown_method"}, 404)


def _answer(answer: dict, google: bool) -> Response:
    """A step's answer in the real API's shape."""
    if answer.get("ok"):
        return _json(answer["result"])
    err = answer.get("error") or {}
    code, message = err.get("code", "error"), err.get("message", "")
    if not google:  # Slack: HTTP 200, {"ok": false, "error": name}
        return _json({"ok": False, "error": code, "detail": message})
    status, gstatus, reason = _GOOGLE_ERRORS.get(code, (400, "FAILED_PRECONDITION", code))
    return _json({"error": {"code": status, "message": message, "status": gstatus,
                            "errors": [{"message": message, "domain": "global", "reason": reason}]}}, status)
