"""Malformed, oversized and hostile requests get clear errors, never a 500,
never another episode's data, and never a changed state."""

from __future__ import annotations

import random

import pytest

BAD_BODIES = [
    b"", b"null", b"[]", b"1e999", b'"text"', b"{", b"}", b"\x00\x01\x02", b"\xff\xfe\xfd",
    b'{"tool": 1}', b'{"tool": null}', b'{"tool": "' + b"x" * 100_000 + b'"}',
    b'{"tool": "noop", "arguments": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"tool": "noop", "arguments": {"a": 123456789012345678901234567890}}',
    b'{"tool": "noop", "tool": "get"}', b'{"tool": "noop", "dry_run": "yes"}',
    b'{"tool": "\\ud800"}', b'{"tool": "noop", "arguments": "' + "é".encode() * 1000 + b'"}',
]


def assert_handled(r):
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if r.status_code >= 400:
        err = r.json()["error"]
        assert isinstance(err["code"], str) and isinstance(err["message"], str)


@pytest.fixture
def episode(http):
    return http.post("/environments/dummy/episodes", json={"task_id": "dm-01", "seed": 4}).json()


def test_bad_step_bodies(http, episode):
    eid = episode["episode_id"]
    for body in BAD_BODIES:
        assert_handled(http.post(f"/episodes/{eid}/step", content=body))
    got = http.get(f"/episodes/{eid}").json()  # the trace of bad calls reads back
    assert got["digest"] == episode["seed_digest"]  # nothing a bad call did changed the state
    assert all(e["ok"] is False for e in got["trace"])


def test_bad_batch_bodies(http, episode):
    eid = episode["episode_id"]
    for body in BAD_BODIES:
        assert_handled(http.post("/batch", content=body))
        assert_handled(http.post("/batch", content=b'{"calls": [' + body + b"]}"))
        for dry in (b"false", b"true"):
            wrapped = (b'{"calls": [{"episode_id": "' + eid.encode() + b'", "tool": "get", "dry_run": ' + dry
                       + b', "arguments": ' + (body or b"0") + b"}]}")
            assert_handled(http.post("/batch", content=wrapped))
    assert http.get(f"/episodes/{eid}").json()["digest"] == episode["seed_digest"]


def test_bad_create_bodies(http):
    for body in BAD_BODIES + [b'{"seed": 1e308}', b'{"seed": -9223372036854775809}', b'{"task_id": []}',
                              b'{"state": {"items": {"it-00": {"id": "it-00", "value": "' + b"9" * 5000 + b'"}}}}']:
        assert_handled(http.post("/environments/dummy/episodes", content=body))


def test_hostile_ids_and_paths(http, episode):
    for eid in ["../../etc/passwd", "%00", "ep_" + "0" * 10_000, "ep_%2e%2e", episode["episode_id"] + "x",
                episode["episode_id"].upper()]:
        for r in (http.get(f"/episodes/{eid}"), http.post(f"/episodes/{eid}/step", json={"tool": "noop"}),
                  http.post(f"/episodes/{eid}/submit"), http.post(f"/episodes/{eid}/fork", json={"n": 1})):
            assert_handled(r)
            assert r.status_code == 404 or r.status_code == 400, r.text
    assert http.get(f"/episodes/{episode['episode_id']}").json()["steps"] == 0


def test_random_garbage_never_breaks_the_server(http, episode):
    rng = random.Random(7)
    routes = ["/batch", f"/episodes/{episode['episode_id']}/step", "/environments/dummy/episodes",
              f"/episodes/{episode['episode_id']}/fork", "/environments/coinpurse/seeds/validate"]
    alphabet = b'{}[]":,0123456789.-eEtruefalsn \\\x00\xff abc'
    for _ in range(300):
        body = bytes(rng.choice(alphabet) for _ in range(rng.randrange(1, 200)))
        assert_handled(http.post(rng.choice(routes), content=body))
    assert http.get("/environments").status_code == 200
    assert http.get(f"/episodes/{episode['episode_id']}").json()["digest"] == episode["seed_digest"]


def test_one_episode_never_sees_another(http):
    a = http.post("/environments/coinpurse/episodes", json={"seed": 1}).json()["episode_id"]
    b = http.post("/environments/coinpurse/episodes", json={"seed": 1}).json()["episode_id"]
    http.post(f"/episodes/{a}/step", json={"tool": "add_contact", "arguments": {"name": "Secret Person",
                                                                               "handle": "@secret-person"}})
    res = http.post("/batch", json={"calls": [
        {"episode_id": b, "tool": "list_contacts", "arguments": {"query": "secret"}},
    ]}).json()["results"]
    assert res[0]["result"]["contacts"] == []
    assert "secret person" not in str(http.get(f"/episodes/{b}").json()).lower()
