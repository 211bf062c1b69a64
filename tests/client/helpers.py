"""Real HTTP peers for the client tests.

- ``serve_app``: run an ASGI app with uvicorn in a thread, on a real socket.
- ``FaultProxy``: a reverse proxy in front of a real Sandworld server that
  misbehaves on cue, as load balancers and flaky networks do (answers 429 or
  503, hides a route, holds an answer until the client gives up), and records
  every request it saw, headers included.
- ``fake_messages_api``: a stand-in for the Anthropic Messages API that plays
  a task's reference solution as ``tool_use`` blocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from dataclasses import dataclass, field

import httpx
import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sandworld.local import free_port


@contextlib.contextmanager
def serve_app(app, port: int | None = None, delay: float = 0.0):
    """Serve ``app`` on 127.0.0.1 for the block and yield its root URL.
    With ``delay`` the server starts listening only after that many seconds
    (the block starts at once: the port refuses connections until then)."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="auto",
                                           loop="asyncio", http="h11"))

    def run():
        if delay:
            time.sleep(delay)
        server.run()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    if not delay:
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@dataclass
class Fault:
    """What the proxy does to the next ``times`` requests matching ``method``
    and the ``path`` regex (searched in the path under /api/v1)."""

    method: str
    path: str
    action: str  # "status" (answer status/headers/body, never forward), "hold" (forward, then hold the answer)
    times: int = 1
    status: int = 503
    headers: dict = field(default_factory=dict)
    body: dict | None = None
    hold: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    headers: dict
    body: object
    status: int | None = None  # what the client was answered (None: it was held past the client's patience)
    answer: object = None
    peer: tuple | None = None  # the client's (host, port): one per connection


class FaultProxy:
    """A reverse proxy to ``upstream`` (an API base URL) with faults on cue."""

    def __init__(self, upstream: str):
        self.upstream_root = upstream[: -len("/api/v1")]
        self.faults: list = []
        self.seen: list = []
        self._upstream = None
        self.app = Starlette(routes=[Route("/{path:path}", self._handle,
                                           methods=["GET", "POST", "PUT", "DELETE", "PATCH"])],
                             lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app):
        yield
        if self._upstream is not None:
            await self._upstream.aclose()
            self._upstream = None

    def add(self, *faults: Fault) -> None:
        self.faults.extend(faults)

    def requests(self, method: str, path_regex: str) -> list:
        return [s for s in self.seen if s.method == method and re.search(path_regex, s.path)]

    def _fault_for(self, method: str, path: str):
        for f in self.faults:
            if f.times > 0 and f.method == method and re.search(f.path, path):
                f.times -= 1
                return f
        return None

    async def _handle(self, request: Request) -> Response:
        body = await request.body()
        path = request.url.path
        seen = Seen(request.method, path, {k.lower(): v for k, v in request.headers.items()},
                    orjson.loads(body) if body else None, peer=tuple(request.client) if request.client else None)
        self.seen.append(seen)
        fault = self._fault_for(request.method, path)
        if fault is not None and fault.action == "status":
            seen.status = fault.status
            content = orjson.dumps(fault.body) if fault.body is not None else b""
            return Response(content, status_code=fault.status, headers=fault.headers, media_type="application/json")
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        if self._upstream is None:  # made on the proxy's own event loop
            self._upstream = httpx.AsyncClient(timeout=30)
        answer = await self._upstream.request(request.method, self.upstream_root + path,
                                              params=request.query_params, content=body, headers=headers)
        seen.answer = orjson.loads(answer.content) if answer.content else None
        if fault is not None and fault.action == "hold":
            await asyncio.sleep(fault.hold)  # the server did the work; the client will have given up
        seen.status = answer.status_code
        keep = {k: v for k, v in answer.headers.items() if k.lower() in ("retry-after", "idempotent-replayed")}
        return Response(answer.content, status_code=answer.status_code, headers=keep, media_type="application/json")

    @contextlib.contextmanager
    def running(self, port: int | None = None, delay: float = 0.0):
        """Serve the proxy; yield its API base URL."""
        with serve_app(self.app, port=port, delay=delay) as root:
            yield root + "/api/v1"


def fake_messages_api(solution: list, output: str, seen: list) -> Starlette:
    """A Messages API stand-in: the n-th model turn answers the n-th call of
    ``solution`` as a ``tool_use`` block, then ends with ``output`` as text.
    Every request body is appended to ``seen``."""

    async def messages(request: Request) -> Response:
        body = orjson.loads(await request.body())
        seen.append(body)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        base = {"id": f"msg_{turn:03d}", "type": "message", "role": "assistant", "model": body["model"],
                "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}}
        if turn < len(solution):
            tool, arguments = solution[turn]
            content = [{"type": "text", "text": f"Calling {tool}."},
                       {"type": "tool_use", "id": f"toolu_{turn:03d}", "name": tool, "input": arguments}]
            answer = {**base, "content": content, "stop_reason": "tool_use"}
        else:
            answer = {**base, "content": [{"type": "text", "text": output}], "stop_reason": "end_turn"}
        return Response(orjson.dumps(answer), media_type="application/json")

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])
