"""Hostile input on the runs API, the real addresses and MCP: refused in the
door's own shape, never a 500."""

from __future__ import annotations

import pytest

from tests.runs.conftest import new_run

GMAIL = "/gmail.googleapis.com/gmail/v1/users/me"


@pytest.fixture(scope="module")
def run(base):
    import httpx

    with httpx.Client(base_url=base, timeout=30) as c:
        return new_run(c)


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize("path,body,ctype", [
    ("/slack.com/api/chat.postMessage", b"[1, 2]", "application/json"),
    ("/slack.com/api/chat.postMessage", b"{bad json", "application/json"),
    ("/slack.com/api/chat.postMessage", DEEP, "application/json"),
    ("/slack.com/api/chat.postMessage", b"channel=%ff%fe&text=\xff\xfe", "application/x-www-form-urlencoded"),
    ("/slack.com/api/chat.postMessage", b'{"channel": {"$ref": 1}, "text": [null]}', "application/json"),
    ("/www.googleapis.com/calendar/v3/freeBusy", b'"just a string"', "application/json"),
    ("/www.googleapis.com/calendar/v3/freeBusy", DEEP, "application/json"),
    ("/www.googleapis.com/calendar/v3/calendars/%00/events", b"{}", "application/json"),
    (GMAIL + "/messages/send", b'{"raw": 12}', "text/plain"),
])
def test_bad_bodies_are_refused_without_a_500(v1, run, path, body, ctype):
    r = v1.post(run["tools_url"] + path, content=body,
                headers={"content-type": ctype, "authorization": f"Bearer {run['token']}"})
    assert r.status_code < 500, r.text
    r.json()  # always JSON


@pytest.mark.parametrize("query", ["q=%ff%fe", "maxResults=-5", "maxResults=1e99", "labelIds=[", "q=" + "x" * 20000])
def test_bad_queries_are_refused_without_a_500(v1, run, query):
    r = v1.get(run["tools_url"] + GMAIL + "/messages?" + query, headers={"authorization": f"Bearer {run['token']}"})
    assert r.status_code < 500, r.text


def test_an_oversized_body_is_413(v1, run):
    r = v1.post(run["tools_url"] + "/slack.com/api/chat.postMessage", content=b"x" * (5 * 1024 * 1024),
                headers={"authorization": f"Bearer {run['token']}"})
    assert r.status_code == 413


@pytest.mark.parametrize("body", [
    b'{"environment": "offsite-planning", "task": 5}',
    b'{"environment": "offsite-planning", "task": "x", "checks": [1, "a"]}',
    b'{"environment": "offsite-planning", "task": "x", "metadata": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    b'{"environment": ["x"], "task": "x"}',
    b"[]",
    b"",
])
def test_bad_run_bodies_are_invalid_request(v1, body):
    r = v1.post("/v1/runs", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request", r.text


def test_mcp_garbage_is_refused_without_a_500(v1, run):
    h = {"authorization": f"Bearer {run['token']}", "accept": "application/json, text/event-stream",
         "content-type": "application/json"}
    for body in (b"{not json", b"[]", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": 5}', DEEP):
        r = v1.post(run["mcp_url"], content=body, headers=h)
        assert r.status_code < 500, (body[:40], r.text)
