"""A real local HTTP server that plays a chat model, OpenAI-compatible or Anthropic.

Used where the server under test calls a model (rubric judge, llm user): the
calls cross a real socket, and the test decides what the "model" answers.
It serves ``POST /v1/chat/completions`` (OpenAI) and ``POST /v1/messages``
(Anthropic), and ``GET /v1/models`` listing ``models`` (404 when None).
"""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeModel:
    def __init__(self, reply, models):
        self.reply = reply  # callable(messages) -> str, or None to answer HTTP 500
        self.models = models
        self.requests: list = []  # bodies of the chat requests
        self.headers: list = []  # their headers
        self.url = ""


@contextlib.contextmanager
def fake_model(reply, models: list | None = None):
    """Serve a chat model on 127.0.0.1; yield the FakeModel with ``.url`` (the
    base URL to configure, ending in /v1) and ``.requests`` (bodies seen)."""
    model = FakeModel(reply, models)

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: bytes, kind: str = "application/json"):
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802 - http.server's naming
            if self.path != "/v1/models" or model.models is None:
                self._send(404, b'{"error": "not found"}')
                return
            self._send(200, json.dumps({"object": "list", "data": [{"id": m, "object": "model"}
                                                                   for m in model.models]}).encode())

        def do_POST(self):  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            model.requests.append(body)
            model.headers.append(dict(self.headers))
            if self.path not in ("/v1/chat/completions", "/v1/messages") or model.reply is None:
                self._send(500, b"model failed", "text/plain")
                return
            messages = body["messages"]
            if self.path == "/v1/messages":
                messages = [{"role": "system", "content": body.get("system", "")}, *messages]
                text = model.reply(messages)
                out = {"id": "msg_1", "type": "message", "role": "assistant", "model": body["model"],
                       "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}
            else:
                text = model.reply(messages)
                out = {"choices": [{"message": {"role": "assistant", "content": text}}]}
            self._send(200, json.dumps(out).encode())

        def log_message(self, *args):
            pass

    with serving(Handler) as root:
        model.url = f"{root}/v1"
        yield model


@contextlib.contextmanager
def serving(handler):
    """Run an ``http.server`` handler class on a free port of 127.0.0.1 in a
    thread for the block; yield its root URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
