"""A web page the user opens must not drive the keyless loopback server
(issue 34, item 3): by DNS rebinding (a foreign ``Host``), by a cross-origin
write (CSRF: a foreign ``Origin``), or by a "simple" request a browser sends
without asking first (``content-type: text/plain`` or a form). The project's
own clients, the run tools' real-API paths (Slack's SDK posts forms) and the
curl tour still work. Real servers, real sockets."""

from __future__ import annotations

import httpx
import pytest
from sandworld.local import local_server

from tests.runtime.test_api import assert_error

CREATE = "/environments/dummy/episodes"


@pytest.fixture(scope="module")
def api():
    with local_server(env={"SW_ALLOWED_HOSTS": "sandworld.internal, lab.example:8080"}) as url:
        yield url


@pytest.fixture
def http(api):
    with httpx.Client(base_url=api, timeout=30) as client:
        yield client


def _port(api: str) -> int:
    return httpx.URL(api).port


def test_a_host_that_is_not_this_server_is_refused(http, api):
    for host in ("evil.example", f"evil.example:{_port(api)}", "127.0.0.1.evil.example", "sandworld.internal.evil"):
        err = assert_error(http.get("/environments", headers={"host": host}), 403, "forbidden_host")
        assert "SW_ALLOWED_HOSTS" in err["message"]
    for host in (f"127.0.0.1:{_port(api)}", f"localhost:{_port(api)}", "localhost", f"[::1]:{_port(api)}",
                 "sandworld.internal", "sandworld.internal:9999", "lab.example:8080"):
        assert http.get("/environments", headers={"host": host}).status_code == 200, host
    assert_error(http.get("/environments", headers={"host": "lab.example:8081"}), 403, "forbidden_host")
    # a rebinding page cannot read an episode either
    eid = http.post(CREATE, json={"task_id": "dm-01"}).json()["episode_id"]
    assert_error(http.get(f"/episodes/{eid}", headers={"host": "evil.example"}), 403, "forbidden_host")


def test_probes_answer_whatever_the_host(http, api):
    root = api.removesuffix("/api/v1")
    assert httpx.get(root + "/healthz", headers={"host": "10.0.0.7:8787"}).status_code == 200


def test_a_cross_origin_write_is_refused_and_a_same_origin_one_is_not(http, api):
    for origin in ("https://evil.example", "null", f"http://evil.example:{_port(api)}"):
        r = http.post(CREATE, json={"task_id": "dm-01"}, headers={"origin": origin})
        assert_error(r, 403, "cross_origin")
    r = http.post(CREATE, json={"task_id": "dm-01"}, headers={"sec-fetch-site": "cross-site"})
    assert_error(r, 403, "cross_origin")
    assert http.post(CREATE, json={"task_id": "dm-01"},
                     headers={"origin": f"http://127.0.0.1:{_port(api)}"}).status_code == 201
    assert http.post(CREATE, json={"task_id": "dm-01"}, headers={"sec-fetch-site": "same-origin"}).status_code == 201
    assert http.get("/environments", headers={"origin": "https://evil.example"}).status_code == 200


def test_json_routes_take_json_only(http):
    body = b'{"task_id": "dm-01"}'
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        err = assert_error(http.post(CREATE, content=body, headers={"content-type": kind}), 415,
                           "unsupported_media_type")
        assert "application/json" in err["message"]
    assert_error(http.post("/batch", content=b'{"calls": []}', headers={"content-type": "text/plain"}), 415,
                 "unsupported_media_type")
    ok = http.post(CREATE, content=body, headers={"content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 201
    eid = ok.json()["episode_id"]
    assert http.post(f"/episodes/{eid}/snapshots").status_code == 201  # no body, no content-type: fine
    assert http.post(CREATE, content=body).status_code == 201  # no content-type at all (a script): read as JSON


def test_the_run_tools_real_api_paths_keep_their_own_content_types(api):
    root = api.removesuffix("/api/v1")
    run = httpx.post(f"{root}/v1/runs", headers={"authorization": "Bearer any"}, timeout=30, json={
        "environment": "offsite-planning", "task": "Schedule the Q4 offsite"}).json()
    auth = {"authorization": f"Bearer {run['token']}"}
    r = httpx.post(run["tools_url"] + "/slack.com/api/chat.postMessage", headers=auth, timeout=30,
                   data={"channel": "C_LEADERSHIP", "text": "hello"})  # a form, as Slack's SDK sends it
    assert r.status_code == 200 and r.json()["ok"] is True, r.text
    r = httpx.post(f"{root}/v1/runs", headers={"authorization": "Bearer any", "content-type": "text/plain"},
                   content=b'{"environment": "offsite-planning"}', timeout=30)
    assert r.status_code == 415
