"""Idempotency keys on create, batch create, fork and submit, against a real server."""

from __future__ import annotations

import threading
import time

import httpx
import orjson

from tests.conftest import running_server
from tests.fakes import fake_model
from tests.runtime.test_api import assert_error, create
from tests.runtime.test_forks import step

CREATE = "/environments/dummy/episodes"


def post(http, path, key, body=None, **kw):
    headers = {"Idempotency-Key": key} if key is not None else {}
    if body is None:
        return http.post(path, headers=headers, **kw)
    return http.post(path, headers=headers, json=body, **kw)


def live(url) -> int:
    return httpx.get(url.removesuffix("/api/v1") + "/healthz").json()["episodes"]


def test_same_key_same_body_replays_the_first_answer(http, api):
    before = live(api)
    first = post(http, CREATE, "create-1", {"task_id": "dm-01", "seed": 4, "agent_name": "a"})
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers
    # The same JSON in another key order and spacing is the same body.
    again = http.post(CREATE, content=b'{ "agent_name": "a", "seed": 4, "task_id": "dm-01" }',
                      headers={"Idempotency-Key": "create-1", "content-type": "application/json"})
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    assert live(api) == before + 1


def test_same_key_other_body_is_409(http):
    assert post(http, CREATE, "create-2", {"seed": 1}).status_code == 201
    err = assert_error(post(http, CREATE, "create-2", {"seed": 2}), 409, "idempotency_key_reused")
    assert "create-2" in err["message"] and "new key" in err["message"]


def test_keys_are_scoped_per_route(http):
    eid = post(http, CREATE, "shared-key", {"seed": 1}).json()["episode_id"]
    r = post(http, f"/episodes/{eid}/fork", "shared-key", {"n": 2})
    assert r.status_code == 201 and "idempotent-replayed" not in r.headers
    # Within one route, another target is another request.
    other = create(http, seed=1)["episode_id"]
    assert_error(post(http, f"/episodes/{other}/fork", "shared-key", {"n": 2}), 409, "idempotency_key_reused")


def test_fork_replays_its_forks(http, api):
    eid = create(http, seed=2)["episode_id"]
    step(http, eid, "set", key="it-00", value=9)
    before = live(api)
    first = post(http, f"/episodes/{eid}/fork", "fork-1", {"n": 3})
    again = post(http, f"/episodes/{eid}/fork", "fork-1", {"n": 3})
    assert first.status_code == again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json() and len(first.json()["episodes"]) == 3
    assert live(api) == before + 3


def test_submit_replays_its_evaluation(http):
    eid = create(http, task_id="dm-01", seed=3)["episode_id"]
    first = post(http, f"/episodes/{eid}/submit", "submit-1", {"output": "done"})
    again = post(http, f"/episodes/{eid}/submit", "submit-1", {"output": "done"})
    assert first.status_code == again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    # another key, or none: the first evaluation again, never a second scoring (003's idempotent finalize)
    for key in ("submit-2", None):
        other = post(http, f"/episodes/{eid}/submit", key, {"output": "done"})
        assert other.status_code == 200 and other.json() == first.json()


def test_batch_create_replays(http, api):
    body = {"episodes": [{"environment": "dummy", "seed": 1}, {"environment": "coinpurse", "seed": 2}]}
    before = live(api)
    first = post(http, "/batch/episodes", "batch-1", body)
    again = post(http, "/batch/episodes", "batch-1", body)
    assert first.status_code == again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert [r["episode_id"] for r in again.json()["results"]] == [r["episode_id"] for r in first.json()["results"]]
    assert live(api) == before + 2
    assert_error(post(http, "/batch/episodes", "batch-1", {"episodes": []}), 409, "idempotency_key_reused")


def test_a_failed_request_releases_its_key(http):
    assert_error(post(http, CREATE, "fix-me", {"task_id": "dm-99"}), 400, "invalid_request")
    r = post(http, CREATE, "fix-me", {"task_id": "dm-01"})  # corrected: runs
    assert r.status_code == 201 and "idempotent-replayed" not in r.headers
    assert_error(post(http, "/episodes/ep_nope/fork", "gone", {"n": 1}), 404, "not_found")
    assert_error(post(http, "/episodes/ep_nope/fork", "gone", {"n": 1}), 404, "not_found")  # ran again


def test_malformed_keys_are_400(http):
    for key in ("", "x" * 256, "has space", "caf\u00e9"):
        headers = {"Idempotency-Key": key.encode("utf-8")}
        assert_error(http.post(CREATE, json={}, headers=headers), 400, "invalid_request")
    assert post(http, CREATE, "k" * 255, {}).status_code == 201


def test_keys_expire_and_are_bounded():
    env = {"SW_IDEMPOTENCY_TTL": "0.5", "SW_MAX_IDEMPOTENCY_KEYS": "2"}
    with running_server(env=env) as url, httpx.Client(base_url=url) as http:
        assert post(http, CREATE, "ttl", {"seed": 1}).status_code == 201
        assert_error(post(http, CREATE, "ttl", {"seed": 2}), 409, "idempotency_key_reused")
        time.sleep(0.7)
        r = post(http, CREATE, "ttl", {"seed": 2})  # forgotten after the TTL: a new request
        assert r.status_code == 201 and "idempotent-replayed" not in r.headers
        # Two keys at most: the oldest is forgotten first.
        for key in ("a", "b", "c"):
            assert post(http, CREATE, key, {"seed": 1}).status_code == 201
        assert post(http, CREATE, "a", {"seed": 2}).headers.get("idempotent-replayed") is None
        assert_error(post(http, CREATE, "c", {"seed": 2}), 409, "idempotency_key_reused")


def test_twenty_concurrent_requests_with_one_key_execute_once():
    # A large custom state takes the server a while to parse (off its event
    # loop), so the retries arrive while the first request is in flight.
    state = {"items": {f"i{i}": {"id": f"i{i}", "value": i % 1000} for i in range(60_000)}}
    body = orjson.dumps({"state": state, "agent_name": "once"})
    with running_server() as url:
        barrier = threading.Barrier(20)
        answers: list = [None] * 20

        def send(i):
            with httpx.Client(base_url=url, timeout=60) as http:
                barrier.wait()
                answers[i] = http.post(CREATE, content=body, headers={"Idempotency-Key": "one-key",
                                                                     "content-type": "application/json"})

        threads = [threading.Thread(target=send, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert live(url) == 1  # executed exactly once
        firsts = [a for a in answers if a.status_code == 201 and "idempotent-replayed" not in a.headers]
        replays = [a for a in answers if a.status_code == 201 and a.headers.get("idempotent-replayed") == "true"]
        busy = [a for a in answers if a.status_code == 409]
        assert len(firsts) == 1 and len(firsts) + len(replays) + len(busy) == 20
        # Which retries land while the first runs depends on the machine's load;
        # the judge test below makes "in progress" certain.
        assert all(a.json()["error"]["code"] == "idempotency_in_progress" for a in busy)
        eid = firsts[0].json()["episode_id"]
        assert all(a.json()["episode_id"] == eid for a in replays)
        with httpx.Client(base_url=url, timeout=60) as http:  # a retry afterwards gets the answer
            late = http.post(CREATE, content=body, headers={"Idempotency-Key": "one-key",
                                                            "content-type": "application/json"})
        assert late.status_code == 201 and late.json()["episode_id"] == eid and live(url) == 1


def test_retries_while_the_first_runs_are_409_in_progress():
    """Submit waits for a rubric judge that takes 0.6 s to answer: the 19
    other submits with the key arrive meanwhile; the judge is asked once."""

    def slow_judge(messages):
        time.sleep(0.6)
        return "yes\nFine."

    with fake_model(slow_judge) as model:
        env = {"SW_JUDGE_URL": model.url, "SW_JUDGE_MODEL": "judge-1"}
        with running_server(env=env) as url:
            with httpx.Client(base_url=url) as http:
                eid = create(http, seed=1, checks=[{"kind": "rubric", "text": "Polite?"}])["episode_id"]
            barrier = threading.Barrier(20)
            answers: list = [None] * 20

            def send(i):
                with httpx.Client(base_url=url, timeout=60) as http:
                    barrier.wait()
                    answers[i] = post(http, f"/episodes/{eid}/submit", "submit-once", {"output": "Done."})

            threads = [threading.Thread(target=send, args=(i,)) for i in range(20)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            done = [a for a in answers if a.status_code == 200]
            busy = [a for a in answers if a.status_code == 409]
            assert len(done) == 1 and len(busy) == 19
            assert {a.json()["error"]["code"] for a in busy} == {"idempotency_in_progress"}
            assert "retry shortly" in busy[0].json()["error"]["message"]
            assert len(model.requests) == 1  # scored once
            with httpx.Client(base_url=url) as http:
                late = post(http, f"/episodes/{eid}/submit", "submit-once", {"output": "Done."})
            assert late.headers["idempotent-replayed"] == "true" and late.content == done[0].content
            assert len(model.requests) == 1
