"""The hot routes answered as plain ASGI (sw_runtime/api/fast.py) keep every
behaviour of a route: status, headers, the error envelope, the body limit,
Idempotency-Key; what they do not recognise goes on to the router."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import running_server

HOT = ("/batch", "/batch/episodes", "/episodes/{eid}/step")


def assert_error(r, status, code):
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert r.headers["content-type"] == "application/json"
    err = r.json()["error"]
    assert err["code"] == code and isinstance(err["message"], str) and err["message"]


@pytest.fixture(scope="module")
def small():
    """A server taking bodies of at most 1,024 bytes."""
    with running_server("--max-body", "1024") as url:
        with httpx.Client(base_url=url, timeout=30) as http:
            yield http


def _eid(http) -> str:
    return http.post("/environments/dummy/episodes", json={"task_id": "dm-01", "seed": 1}).json()["episode_id"]


def test_answers_carry_json_headers_and_exact_lengths(http):
    eid = _eid(http)
    for r in (http.post(f"/episodes/{eid}/step", json={"tool": "noop"}),
              http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "noop"}]}),
              http.post("/batch/episodes", json={"episodes": [{"environment": "dummy", "seed": 2}]})):
        assert r.status_code in (200, 201)
        assert r.headers["content-type"] == "application/json"
        assert int(r.headers["content-length"]) == len(r.content)
        r.json()
    step = http.post(f"/episodes/{eid}/step", json={"tool": "get", "arguments": {"key": "it-01"}}).json()
    assert step["step"] == 3 and step["ok"] is True


def test_bodies_over_the_limit_are_413_declared_or_streamed(small):
    eid = _eid(small)

    def chunks():
        for _ in range(10):
            yield b" " * 512

    for path in HOT:
        path = path.format(eid=eid)
        assert_error(small.post(path, content=b" " * 2000), 413, "payload_too_large")
        assert_error(small.post(path, content=chunks()), 413, "payload_too_large")  # no Content-Length
    assert small.post(f"/episodes/{eid}/step", json={"tool": "noop"}).json()["step"] == 1


def test_a_content_length_that_is_not_a_number_is_400():
    import socket

    with running_server() as url:
        host, port = url.split("//")[1].split("/")[0].split(":")
        with socket.create_connection((host, int(port))) as s:
            s.sendall(b"POST /api/v1/batch HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1x\r\n\r\n{}")
            head = s.recv(65536)
        # uvicorn's parser may refuse it before the app sees it; either way no 500.
        assert head.startswith(b"HTTP/1.1 4"), head[:200]


def test_errors_use_the_envelope(http):
    assert_error(http.post("/batch", content=b"[1,"), 400, "invalid_json")
    assert_error(http.post("/batch/episodes", content=b"{"), 400, "invalid_json")
    assert_error(http.post("/episodes/ep_nope/step", json={"tool": "noop"}), 404, "not_found")


def test_idempotency_key_on_batch_create(http):
    body = {"episodes": [{"environment": "dummy", "seed": 3}]}
    first = http.post("/batch/episodes", json=body, headers={"Idempotency-Key": "fast-1"})
    again = http.post("/batch/episodes", json=body, headers={"Idempotency-Key": "fast-1"})
    assert first.status_code == again.status_code and first.content == again.content
    assert "idempotent-replayed" not in first.headers and again.headers["idempotent-replayed"] == "true"
    other = http.post("/batch/episodes", json={"episodes": [{"environment": "dummy", "seed": 4}]},
                      headers={"Idempotency-Key": "fast-1"})
    assert other.status_code == 409 and other.json()["error"]["code"]


def test_what_is_not_a_hot_route_goes_to_the_router(http):
    r = http.get("/batch")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"
    assert http.post("/episodes/a/b/step", json={"tool": "noop"}).status_code == 404
    assert http.post("/episodes//step", json={"tool": "noop"}).status_code == 404
    assert http.get("/environments").status_code == 200
