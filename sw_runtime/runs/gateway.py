"""The tools under ``tools_url``: the real APIs' addresses, and MCP.

One ASGI app serves ``{tools_url}/{real host}/{real path}`` for a run
(``/v1/runs/{run_id}/tools``) and for an ``/api/v1`` episode
(``/api/v1/episodes/{id}/tools``). It decodes a real API request (path,
query, JSON or form body) into the world's tool and its arguments, hands the
call to the service (the same engine call as a ``step``), and answers in the
real API's shape (``dialects.py``): the tool's result as it is, the tool's own
refusal with the real API's status (Gmail's 404 for an unknown message). A
request refused before it reaches a tool (no or wrong token, an ended run, no
such method) is not a call. The MCP paths go to the MCP door.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import orjson
from starlette.requests import Request
from starlette.responses import Response

from .. import errors
from ..bodies import read_body
from ..service.runs import episode_id_of
from . import addresses, brackets, coerce, dialects
from .dialects import bearer
from .providers import MCP_PATHS

MAX_BODY = 4 * 1024 * 1024
_JSON = "application/json"

__all__ = ["Gateway", "bearer", "read_body"]


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
        dialect = dialects.of_path(path)
        try:
            response = await self._rest(request, episode_id, path, dialect)
        except errors.ApiError as e:  # refused before any tool ran: not a call
            response = dialect.refused(e)
        await response(scope, receive, send)

    async def _rest(self, request: Request, episode_id: str | None, path: str, dialect) -> Response:
        routed = addresses.route(request.method, path)
        if routed is None:
            return dialect.no_route(f"no {request.method} {path} under this tools address")
        body = await read_body(request, MAX_BODY)
        form = []
        json_body = {}
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if body.strip():
            if ctype == "application/x-www-form-urlencoded" or (dialect.loose_forms and ctype != _JSON
                                                                and b"=" in body and body[:1] != b"{"):
                form = parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
            else:
                try:
                    json_body = orjson.loads(body)
                except orjson.JSONDecodeError:
                    raise errors.InvalidRequest("the body is not valid JSON") from None
                if not isinstance(json_body, dict) and routed.address.body_field:  # Jira's addWatcher: "id"
                    json_body = {routed.address.body_field: json_body}
                if not isinstance(json_body, dict):
                    raise errors.InvalidRequest("the body must be a JSON object")
        query = list(request.query_params.multi_items())
        token = dialect.token(request.headers)
        if dialect.token_field:  # the token as a form field (or query parameter)
            sent = [v for k, v in form + query if k == "token"]
            field = sent[-1] if sent else json_body.get("token")
            token = field if isinstance(field, str) and field else token  # the field, when sent, wins
            form = [(k, v) for k, v in form if k != "token"]
            query = [(k, v) for k, v in query if k != "token"]
            json_body.pop("token", None)
        query = [(k, v) for k, v in query if k not in dialect.transport]
        if episode_id is None:
            raise errors.NotFound("no such run")
        tool = self.svc.tool_definition(episode_id, token, routed.tool)  # 401 without the token
        if tool is None:
            return dialect.no_route(f"this world has no {routed.tool}")
        schema = tool["parameters"]
        args = coerce.typed(schema, list(routed.path_args.items()))  # GitHub's /issues/7: an integer
        if dialect.nested_forms:  # Stripe's items[0][price]=…
            args.update(brackets.typed(schema, brackets.nest(query + form)))
        else:
            args.update(coerce.typed(schema, query))
            args.update(coerce.typed(schema, form))
        args.update(json_body)
        key = request.headers.get("idempotency-key")
        if dialect.idempotency_header and key and "idempotency_key" in schema.get("properties", {}):
            args["idempotency_key"] = key
        if dialect.ignores_unknown:  # as Slack's Web API and GitHub's REST API do
            props = schema.get("properties", {})
            args = {k: v for k, v in args.items() if k in props}
        # the tool's name in the episode (a composite may serve it as world.name)
        answer = await self.svc.tool_call(episode_id, token, tool["name"], orjson.dumps(args), routed.address.surface)
        return dialect.answer(answer, routed.address)
