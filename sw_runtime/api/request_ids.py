"""Request ids: every answer names the request it answers.

The outermost ASGI wrapper: each request gets an id, the caller's own
``x-request-id`` when it sent a usable one (visible ASCII, at most 128
characters) and ``req_`` + 16 hex digits otherwise. Every answer carries it
in ``x-request-id``, whatever door or layer answered (the gate's 401 and
429, the fast paths, Starlette's own 404), and our error envelope carries it
as ``error.request_id``, so a bug report quoting the body names the log line.
Other shapes keep theirs: 001's ``{"error": {"type", "message"}}``, and
whatever is answered under a run's or an episode's tools (the real APIs'
errors, Stripe's ``{"error": {"code", "message", ...}}`` included, and MCP's
JSON-RPC) get the header only.

An error body is a few hundred bytes; only those are held back to be
rewritten. Every other answer streams through untouched.
"""

from __future__ import annotations

import os
import re

import orjson

HEADER = b"x-request-id"
SCOPE_KEY = "sw.request_id"
MAX_LEN = 128
# The tools at the real APIs' addresses and MCP: their bodies are those APIs' own.
_TOOLS = re.compile(r"/(v1/runs/[^/]+/tools/|api/v1/episodes/[^/]+/(tools/|mcp))")


def _usable(value: bytes) -> bool:
    return 0 < len(value) <= MAX_LEN and all(0x21 <= c <= 0x7E for c in value)


def _given(scope) -> bytes | None:
    for name, value in scope.get("headers", ()):
        if name == HEADER:
            return value if _usable(value) else None
    return None


def new_id() -> bytes:
    return b"req_" + os.urandom(8).hex().encode()


def _with_id(body: bytes, rid: str) -> bytes | None:
    """``body`` with ``error.request_id`` set, if it is our envelope; else None."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    err = value.get("error") if isinstance(value, dict) and len(value) == 1 else None
    if not isinstance(err, dict) or "code" not in err or "message" not in err:
        return None
    err["request_id"] = rid
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)


class RequestIds:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        rid = _given(scope) or new_id()
        scope[SCOPE_KEY] = rid.decode()
        ours = _TOOLS.match(scope["path"]) is None  # an envelope of ours, if an error's body is one
        held: dict = {}  # an error answer's start and body, until its body is whole

        async def send_with_id(message):
            kind = message["type"]
            if kind == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k != HEADER]
                headers.append((HEADER, rid))
                message["headers"] = headers
                if ours and message["status"] >= 400 and any(
                        k == b"content-type" and v.startswith(b"application/json") for k, v in headers):
                    held["start"], held["body"] = message, []
                    return
            elif kind == "http.response.body" and "start" in held:
                held["body"].append(message.get("body", b""))
                if message.get("more_body"):
                    return
                body = b"".join(held["body"])
                start = held.pop("start")
                rewritten = _with_id(body, scope[SCOPE_KEY])
                if rewritten is not None:
                    body = rewritten
                    start["headers"] = [(k, v) for k, v in start["headers"] if k != b"content-length"]
                    start["headers"].append((b"content-length", str(len(body)).encode()))
                await send(start)
                return await send({"type": "http.response.body", "body": body})
            await send(message)

        await self.app(scope, receive, send_with_id)
