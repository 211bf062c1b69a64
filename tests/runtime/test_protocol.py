"""The connection itself: read timeouts, a header size limit, and uvicorn's
own errors in the JSON envelope (a real server, raw sockets)."""

from __future__ import annotations

import socket
import time

import httpx
import orjson
import pytest
from sandworld.local import local_server

from sw_runtime.api import protocol


def raw(url: str, data: bytes, wait: float = 5.0) -> bytes:
    host, port = url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=wait + 20) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def envelope(answer: bytes) -> tuple:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    assert b"content-type: application/json" in head.lower()
    return status, orjson.loads(body)["error"]


def test_unparseable_http_is_a_json_400(api):
    status, err = envelope(raw(api, b"GARBAGE \x00\x01 nonsense\r\n\r\n"))
    assert status == 400 and err["code"] == "invalid_request" and "HTTP" in err["message"]


def test_headers_past_the_limit_are_431(api):
    big = b"x-filler: " + b"a" * (protocol.MAX_HEADER_BYTES + 10) + b"\r\n"
    status, err = envelope(raw(api, b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n" + big + b"\r\n"))
    assert status == 431 and err["code"] == "headers_too_large"


@pytest.mark.slow
def test_slow_headers_and_bodies_time_out(monkeypatch):
    # The timeouts are the server's constants; a test server gets short ones.
    with local_server(env={"SW_HEADER_TIMEOUT": "1", "SW_BODY_TIMEOUT": "1"}) as url:
        t = time.monotonic()
        status, err = envelope(raw(url, b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n"))  # never ends its headers
        assert status == 408 and err["code"] == "request_timeout" and time.monotonic() - t < 5
        # a connection that is silent at first, then sends its request: served
        host, port = url.split("//")[1].split("/")[0].split(":")
        with socket.create_connection((host, int(port)), timeout=20) as s:
            time.sleep(1.5)
            s.sendall(b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
        t = time.monotonic()
        status, err = envelope(raw(url, b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n"))
        assert status == 408 and err["code"] == "request_timeout" and time.monotonic() - t < 5
        status, err = envelope(raw(url, b"POST /api/v1/batch HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n\r\n{"))
        assert status == 408 and "body" in err["message"]
        # a kept-alive connection: a quick request, then one whose headers never end, times out in time too
        with socket.create_connection((host, int(port)), timeout=20) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            time.sleep(0.7)
            t = time.monotonic()
            s.sendall(b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n")
            answer = b""
            while chunk := s.recv(65536):
                answer += chunk
            status, err = envelope(answer)
            assert status == 408 and "headers" in err["message"] and 0.9 < time.monotonic() - t < 5
        assert httpx.get(url.removesuffix("/api/v1") + "/healthz").status_code == 200


class _Recorder:
    """Stands in for the socket's transport: records what reaches it."""

    def __init__(self):
        self.sent, self.closed = [], False

    def writelines(self, chunks):
        self.sent.append(list(chunks))

    def is_closing(self):
        return self.closed

    def close(self):
        self.closed = True


def test_a_response_leaves_in_one_write():
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        sock = _Recorder()
        out = protocol._OneWrite(sock, loop)
        out.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n")
        out.write(b"{}")
        assert sock.sent == []  # held until the response completes
        out.flush()
        assert sock.sent == [[b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n", b"{}"]]
        # A stream's chunk is not held past the loop's turn; close sends what is held first.
        out.write(b"chunk")
        loop.run_until_complete(asyncio.sleep(0))
        assert sock.sent[-1] == [b"chunk"]
        out.write(b"last")
        out.close()
        assert sock.sent[-1] == [b"last"] and sock.closed
    finally:
        loop.close()


def test_pipelined_requests_are_answered_whole_and_in_order(api):
    one = b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"
    two = b"GET /api/v1/nowhere HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"
    answer = raw(api, one + two)  # one packet, two requests; the server closes after the second
    first, _, rest = answer.partition(b"\r\n\r\n")
    length = int(next(h for h in first.split(b"\r\n") if h.lower().startswith(b"content-length")).split(b":")[1])
    assert first.startswith(b"HTTP/1.1 200") and "core" in orjson.loads(rest[:length])
    status, err = envelope(rest[length:])
    assert status == 404 and err["code"] == "not_found"
