"""Retries and idempotency keys, through a real proxy that misbehaves on cue
in front of a real server."""

from __future__ import annotations

import time

import httpx
import pytest

from sandworld import Retry, SandworldClient, SandworldEnv, errors
from tests.client.helpers import Fault, FaultProxy
from sandworld.local import free_port

FAST = Retry(attempts=4, backoff=0.01, max_backoff=0.05)
RATE_LIMITED = {"error": {"code": "rate_limited", "message": "slow down", "retry_after": 1}}
UNAVAILABLE = {"error": {"code": "verifier_unavailable", "message": "the verifier is down",
                         "failure_kind": "infra", "mask_sample": True}}


def test_a_429_is_retried_after_its_retry_after_with_the_same_idempotency_key(api):
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/episodes$", "status", status=429, headers={"retry-after": "1"}, body=RATE_LIMITED))
    with proxy.running() as url, SandworldEnv(url, retry=FAST) as env:
        began = time.monotonic()
        obs = env.reset("coinpurse", task_id="cp-01")
        waited = time.monotonic() - began
    creates = proxy.requests("POST", r"/episodes$")
    assert [c.status for c in creates] == [429, 201]
    assert waited >= 1.0  # the server's retry-after, not the 0.01 s backoff
    keys = {c.headers.get("idempotency-key") for c in creates}
    assert len(keys) == 1 and None not in keys
    assert obs.episode_id == creates[1].answer["episode_id"]


def test_a_503_is_retried_and_the_call_runs_once(api):
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/step$", "status", status=503, times=2,
                    body={"error": {"code": "internal_error", "message": "overloaded"}}))
    with proxy.running() as url, SandworldEnv(url, retry=FAST) as env:
        env.reset("coinpurse", task_id="cp-01")
        result = env.step("get_balance")
        assert result.ok and result.step == 1
        assert env.episode()["steps"] == 1
    assert [s.status for s in proxy.requests("POST", r"/step$")] == [503, 503, 200]


def test_retries_give_up_with_the_typed_error(api):
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/submit$", "status", status=503, times=100, body=UNAVAILABLE))
    with proxy.running() as url, SandworldEnv(url, retry=Retry(attempts=3, backoff=0.01)) as env:
        env.reset("coinpurse", task_id="cp-01")
        with pytest.raises(errors.VerifierUnavailable) as down:
            env.submit()
    err = down.value
    assert err.code == "verifier_unavailable" and err.status == 503 and err.attempts == 3
    assert err.mask_sample is True and err.failure_kind == "infra"
    assert len(proxy.requests("POST", r"/submit$")) == 3


def test_a_retry_after_past_the_cap_is_raised_at_once(api):
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/episodes$", "status", status=429, headers={"retry-after": "3600"}, body=RATE_LIMITED))
    with proxy.running() as url, SandworldEnv(url, retry=FAST) as env:
        began = time.monotonic()
        with pytest.raises(errors.RateLimited) as limited:
            env.reset("coinpurse")
        assert time.monotonic() - began < 5
    assert limited.value.code == "rate_limited" and limited.value.retry_after == 3600


def test_a_refused_connection_is_retried_until_the_server_answers(api):
    port = free_port()
    proxy = FaultProxy(api)
    with proxy.running(port=port, delay=0.6) as url:
        with SandworldEnv(url, retry=Retry(attempts=30, backoff=0.05, max_backoff=0.2)) as env:
            obs = env.reset("coinpurse", task_id="cp-01")
    assert obs.episode_id.startswith("ep_") and len(proxy.requests("POST", r"/episodes$")) == 1


def test_an_unreachable_server_is_a_transport_error():
    url = f"http://127.0.0.1:{free_port()}/api/v1"
    with SandworldEnv(url, retry=Retry(attempts=2, backoff=0.01)) as env:
        with pytest.raises(errors.TransportError) as down:
            env.reset("coinpurse")
    assert down.value.maybe_applied is False and down.value.attempts == 2


def test_a_step_is_not_replayed_when_its_answer_is_lost(api):
    """The server ran the step but the answer never came: the client must not
    run it again (it may have moved money); it says the effect is unknown."""
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/step$", "hold", hold=1.5))
    timeout = httpx.Timeout(5.0, read=0.5)
    with proxy.running() as url, SandworldEnv(url, retry=FAST, timeout=timeout) as env:
        env.reset("coinpurse", task_id="cp-04", seed=1)
        with pytest.raises(errors.RequestTimeout) as lost:
            env.step("get_balance")
        assert lost.value.maybe_applied is True and isinstance(lost.value, TimeoutError)
        time.sleep(1.2)
        assert env.episode()["steps"] == 1
    assert len(proxy.requests("POST", r"/step$")) == 1


def test_a_create_whose_answer_was_lost_is_replayed_by_its_key(api):
    """With the same Idempotency-Key, the retry gets the first answer replayed:
    one episode, not two."""
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/episodes$", "hold", hold=1.0))
    timeout = httpx.Timeout(5.0, read=0.4)
    with proxy.running() as url, SandworldEnv(url, retry=Retry(attempts=10, backoff=0.3, max_backoff=0.5),
                                              timeout=timeout) as env:
        obs = env.reset("coinpurse", task_id="cp-01", seed=3)
    first, *retries = proxy.requests("POST", r"/episodes$")
    assert retries and {r.headers["idempotency-key"] for r in retries} == {first.headers["idempotency-key"]}
    time.sleep(0.8)  # the held first answer is recorded once the proxy lets it go
    assert obs.episode_id == first.answer["episode_id"]


def test_a_submit_whose_answer_was_lost_still_returns_its_evaluation(api):
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/submit$", "hold", hold=1.0))
    timeout = httpx.Timeout(5.0, read=0.4)
    with proxy.running() as url, SandworldEnv(url, retry=Retry(attempts=10, backoff=0.3, max_backoff=0.5),
                                              timeout=timeout) as env:
        env.reset("coinpurse", task_id="cp-01", seed=3)
        env.step("get_balance")
        ev = env.submit("nothing to say")
    assert ev.steps == 1 and ev.passed is False and ev.episode_id == env.episode_id
    assert len(proxy.requests("POST", r"/submit$")) >= 2


def test_create_fork_and_submit_send_idempotency_keys_and_steps_do_not(api):
    proxy = FaultProxy(api)
    with proxy.running() as url, SandworldEnv(url) as env:
        env.reset("coinpurse", task_id="cp-01")
        env.step("get_balance")
        env.fork(1)
        env.submit()
    keyed = {(s.method, s.path.rsplit("/", 1)[-1]): s.headers.get("idempotency-key") for s in proxy.seen}
    assert keyed[("POST", "episodes")] and keyed[("POST", "fork")] and keyed[("POST", "submit")]
    assert keyed[("POST", "step")] is None
    assert len({keyed[("POST", "episodes")], keyed[("POST", "fork")], keyed[("POST", "submit")]}) == 3


def test_the_same_key_twice_replays_the_first_answer(api):
    with SandworldClient(api) as client:
        a = client.create_episode("coinpurse", task_id="cp-02", seed=1, idempotency_key="test-replay-1")
        b = client.create_episode("coinpurse", task_id="cp-02", seed=1, idempotency_key="test-replay-1")
        assert a.episode_id == b.episode_id
        with pytest.raises(errors.IdempotencyKeyReused) as reused:
            client.create_episode("coinpurse", task_id="cp-02", seed=2, idempotency_key="test-replay-1")
    assert reused.value.code == "idempotency_key_reused" and reused.value.status == 409
