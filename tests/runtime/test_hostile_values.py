"""Hostile values get a 400 or a defined score, never a 500 or a null score:
integers past 64 bits, deep nesting with an Idempotency-Key, extreme weights."""

from __future__ import annotations

import pytest

from tests.runtime.test_api import assert_error

BIG = 123456789012345678901234567890


@pytest.mark.parametrize("body", [
    {"task_id": "dm-01", "checks": [{"kind": "field_equals", "collection": "items", "field": "value", "value": BIG,
                                     "where": {"id": "it-01"}}]},
    {"task_id": "dm-01", "checks": [{"kind": "record_exists", "collection": "items", "where": {"value": -BIG}}]},
    {"task_id": "dm-01", "checks": [{"kind": "write_count", "min": BIG}]},
    {"state": {"items": {"it-01": {"id": "it-01", "value": BIG}}}},
    {"seed": BIG},
])
def test_integers_past_64_bits_are_400(http, body):
    assert_error(http.post("/environments/dummy/episodes", json=body), 400, "invalid_request")
    r = http.post("/batch/episodes", json={"episodes": [{"environment": "dummy", **body}]})
    assert r.status_code == 200 and r.json()["results"][0]["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("depth", [300, 600, 1000, 5000])
def test_deep_nesting_with_an_idempotency_key_is_400(http, depth):
    deep = b'{"a":' * depth + b"1" + b"}" * depth
    for path in ("/environments/dummy/episodes", "/batch/episodes", "/batch/submit"):
        r = http.post(path, content=deep, headers={"Idempotency-Key": f"deep-{depth}"})
        assert r.status_code == 400, (path, r.status_code, r.text[:200])
        assert r.json()["error"]["code"] in ("invalid_json", "invalid_request")


@pytest.mark.parametrize("weight", [1e308, 1e7, float("inf")])
def test_extreme_weights_are_400(http, weight):
    body = {"task_id": "dm-01", "checks": [{"kind": "no_writes", "weight": weight}]}
    raw = __import__("json").dumps(body).encode()  # Infinity: not JSON, but clients send it
    r = http.post("/environments/dummy/episodes", content=raw)
    assert r.status_code == 400 and r.json()["error"]["code"] in ("invalid_request", "invalid_json")


def test_the_largest_weights_still_give_a_defined_score(http):
    checks = [{"kind": "action_called", "action": "noop", "weight": 1e6},
              {"kind": "action_called", "action": "get", "weight": 1e6}]
    eid = http.post("/environments/dummy/episodes",
                    json={"task_id": "dm-01", "checks": checks, "replace_template_checks": True}).json()["episode_id"]
    http.post(f"/episodes/{eid}/step", json={"tool": "noop"})
    res = http.post(f"/episodes/{eid}/submit").json()
    assert res["score"] == 0.5 and res["pass"] is False
