"""A webhook receiver on 127.0.0.1 for the tests: records what it is sent."""

from __future__ import annotations

import contextlib
import threading
import time
from http.server import BaseHTTPRequestHandler

from tests.fakes import serving


class Receiver:
    """``answers`` is a list of statuses to give, in turn (the last repeats)."""

    def __init__(self, answers=(200,), delay: float = 0.0):
        self.answers = list(answers)
        self.delay = delay
        self.got: list = []  # (headers dict, body bytes)
        self.lock = threading.Lock()
        self.url = ""

    def wait_for(self, n: int, timeout: float = 20.0) -> list:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.got) >= n:
                    return list(self.got)
            time.sleep(0.02)
        raise AssertionError(f"the receiver got {len(self.got)} requests, not {n}, within {timeout} s")


@contextlib.contextmanager
def receiving(answers=(200,), delay: float = 0.0):
    rec = Receiver(answers, delay)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            with rec.lock:
                rec.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                status = rec.answers[min(len(rec.got), len(rec.answers)) - 1]
            if rec.delay:
                time.sleep(rec.delay)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    with serving(Handler) as root:
        rec.url = f"{root}/hook"
        yield rec
