"""The MCP door: one MCP server (the official SDK's low-level ``Server``)
for every episode, over streamable HTTP in stateless JSON mode.

Each HTTP request names its episode in its path (``/api/v1/episodes/{id}/mcp``,
a run's ``{tools_url}/mcp`` or a per-provider server such as
``{tools_url}/mcp.slack.com/mcp``) and carries the episode's tools token as
its bearer token. ``tools/list`` answers the tools ``step`` serves, with the
same names (which model APIs accept, so a client that hands them to a model
needs no renaming) and the same schemas; ``tools/call`` takes a served name or
a tool's alias (``gmail.messages.list``), as ``step`` does, and is the same
engine call as a ``step``, so it counts, lands in the same trace and gets the
same digest. Nothing else counts as a call. A per-provider server serves the
tools whose operation (alias) starts with its provider's prefix.
"""

from __future__ import annotations

import re

import orjson
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.responses import Response

from .. import __version__, errors

_SCOPE_KEY = "sandworld.mcp"  # (episode id, token, provider prefix or None), set per request
_INVALID = re.compile(r"[^A-Za-z0-9._-]")
MAX_BODY = 4 * 1024 * 1024  # the SDK's own limit on a message


def mcp_name(name: str) -> str:
    """A tool name as MCP allows it (``[A-Za-z0-9._-]{1,128}``); dotted names stay as they are."""
    return _INVALID.sub("_", name)[:128] or "_"


def _bearer(scope) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == b"authorization":
            scheme, _, value = v.decode("latin-1").partition(" ")
            return (value.strip() or None) if scheme.lower() == "bearer" else None
    return None


class McpDoor:
    """Serves MCP for the service ``svc`` (which authorizes and runs every call)."""

    def __init__(self, svc):
        self.svc = svc
        self.server = Server("sandworld", version=__version__,
                             instructions="The tools of one Sandworld episode; every tools/call is a step.")
        self.server.list_tools()(self._list_tools)
        self.server.call_tool(validate_input=False)(self._call_tool)  # the tool's own schema decides, as on step
        self.manager = StreamableHTTPSessionManager(app=self.server, stateless=True, json_response=True)

    def run(self):
        """The session manager's lifetime: enter it in the app's lifespan."""
        return self.manager.run()

    async def handle(self, scope, receive, send, episode_id: str, prefix: str | None) -> None:
        """Serve one MCP HTTP request for ``episode_id`` (``prefix``: only that provider's tools)."""
        token = _bearer(scope)
        try:
            self.svc.authorize(episode_id, token)
        except errors.ApiError as e:  # refused before MCP: the control API's envelope
            body = {"error": {"type": e.code, "code": e.code, "message": e.message}}
            await Response(orjson.dumps(body), e.status, media_type="application/json")(scope, receive, send)
            return
        scope = dict(scope)
        scope[_SCOPE_KEY] = (episode_id, token, prefix)
        if scope.get("method") == "POST":
            # Read the message first: JSON the SDK cannot take (nested past any
            # sense) is a JSON-RPC parse error here, never a 500 there.
            body, size = [], 0
            async for chunk in Request(scope, receive).stream():
                size += len(chunk)
                if size > MAX_BODY:
                    await _parse_error(f"the message is over {MAX_BODY} bytes", 413)(scope, receive, send)
                    return
                body.append(chunk)
            body = b"".join(body)
            try:
                orjson.loads(body)
            except (orjson.JSONDecodeError, RecursionError) as e:
                await _parse_error(f"Parse error: {e}", 400)(scope, receive, send)
                return
            receive = _replay(body)
        await self.manager.handle_request(scope, receive, send)

    def _target(self) -> tuple:
        return self.server.request_context.request.scope[_SCOPE_KEY]

    def _definitions(self, episode_id: str, token: str | None, prefix: str | None) -> list:
        defs = self.svc.tool_definitions(episode_id, token)
        return [d for d in defs if prefix is None or d.get("alias", d["name"]).startswith(prefix + ".")]

    async def _list_tools(self) -> list:
        episode_id, token, prefix = self._target()
        return [types.Tool(name=mcp_name(d["name"]), description=d["description"], inputSchema=d["parameters"])
                for d in self._definitions(episode_id, token, prefix)]

    async def _call_tool(self, name: str, arguments: dict) -> types.CallToolResult:
        episode_id, token, prefix = self._target()
        names = {}
        for d in self._definitions(episode_id, token, prefix):
            names[mcp_name(d["name"])] = names[d.get("alias", d["name"])] = d["name"]  # served name or alias
        tool = names.get(name)
        if tool is None:  # not this server's tool: refused before any tool ran, not a call
            return _error({"code": "unknown_tool", "message": f"no tool {name!r} on this MCP server; "
                                                              f"tools/list gives them"})
        try:
            answer = await self.svc.tool_call(episode_id, token, tool, orjson.dumps(arguments or {}), "mcp")
        except errors.ApiError as e:  # the run or episode has ended
            return _error({"code": e.code, "message": e.message})
        if not answer.get("ok"):
            return _error(answer.get("error") or {})
        result = answer["result"]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=orjson.dumps(result).decode())],
            structuredContent=result if isinstance(result, dict) else {"result": result},
            isError=False,
        )


def _parse_error(message: str, status: int) -> Response:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": message}}
    return Response(orjson.dumps(body), status, media_type="application/json")


def _replay(body: bytes):
    """An ASGI ``receive`` that hands over a body already read."""
    sent = False

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def _error(err: dict) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=orjson.dumps(err).decode())],
                                isError=True)


class EpisodeMcp:
    """ASGI app for ``/api/v1/episodes/{id}/mcp``: every tool of the episode."""

    def __init__(self, door: McpDoor):
        self.door = door

    async def __call__(self, scope, receive, send) -> None:
        await self.door.handle(scope, receive, send, scope["path_params"]["id"], None)
