"""A real local HTTP server that plays an OpenAI-compatible chat model.

Used where the server under test calls a model (rubric judge, llm user): the
calls cross a real socket, and the test decides what the "model" answers.
"""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeModel:
    def __init__(self, reply):
        self.reply = reply  # callable(messages) -> str, or None to answer HTTP 500
        self.requests: list = []
        self.url = ""


@contextlib.contextmanager
def fake_model(reply):
    """Serve ``POST /v1/chat/completions`` on 127.0.0.1; yield the FakeModel
    with ``.url`` (the base URL to configure) and ``.requests`` (bodies seen)."""
    model = FakeModel(reply)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            model.requests.append(body)
            if self.path != "/v1/chat/completions" or model.reply is None:
                self.send_response(500)
                self.end_headers()
                self.wfile.write(b"model failed")
                return
            text = model.reply(body["messages"])
            out = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

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
