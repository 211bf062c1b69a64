"""Rate limits: token buckets per key and per IP, 429 with retry-after and RateLimit-* headers."""

from __future__ import annotations

import pytest
from sandworld.local import local_server

from sw_runtime import errors
from sw_runtime.security.limits import Limiter, Rule

from .conftest import client, keyed_server


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_a_bucket_refills_at_its_rate_and_says_when_to_retry():
    clock = Clock()
    lim = Limiter(Rule(2.0, 4), Rule(0, 1), clock=clock)
    buckets = lim.buckets("1.2.3.4", "key_a")
    for _ in range(4):
        Limiter.charge(buckets, 1)
    with pytest.raises(errors.RateLimited) as e:
        Limiter.charge(buckets, 1)
    assert e.value.headers["retry-after"] == "1" and "API key" in e.value.message
    clock.t = 0.5  # one token back
    Limiter.charge(lim.buckets("1.2.3.4", "key_a"), 1)


def test_a_batch_larger_than_the_bucket_runs_when_it_is_full_and_leaves_debt():
    clock = Clock()
    lim = Limiter(Rule(10.0, 5), Rule(0, 1), clock=clock)
    Limiter.charge(lim.buckets(None, "k"), 50)  # full bucket: passes, 45 calls of debt
    with pytest.raises(errors.RateLimited) as e:
        Limiter.charge(lim.buckets(None, "k"), 1)
    assert e.value.extra["retry_after"] == 5  # 46 tokens to earn back at 10/s
    clock.t = 4.6
    Limiter.charge(lim.buckets(None, "k"), 1)


def test_every_bucket_must_pass_and_none_is_charged_when_one_refuses():
    clock = Clock()
    lim = Limiter(Rule(1.0, 10), Rule(1.0, 2), clock=clock)
    Limiter.charge(lim.buckets("ip", "k"), 2)
    with pytest.raises(errors.RateLimited, match="client IP"):
        Limiter.charge(lim.buckets("ip", "k"), 1)
    assert lim.keys.get("k", clock()).tokens == 8  # the refused call cost the key nothing


@pytest.mark.slow
def test_the_key_limit_answers_429_with_retry_after_and_counts_batch_calls(data_dir, make_key):
    key = make_key()
    with keyed_server(data_dir, env={"SW_KEY_RATE": "1", "SW_KEY_BURST": "6"}) as url, client(url, key) as http:
        ep = http.post("/environments/coinpurse/episodes", json={}).json()["episode_id"]  # 1 call
        r = http.get("/limits")  # free: reading one's limits costs nothing
        assert r.json()["key"]["limit"] == 6 and r.json()["key"]["remaining"] == 5
        assert r.headers["ratelimit-limit"] == "6" and r.headers["ratelimit-remaining"] == "5"
        calls = [{"episode_id": ep, "tool": "get_balance", "arguments": {}}] * 6
        r = http.post("/batch", json={"calls": calls})  # 6 calls: 5 left, refused whole
        assert r.status_code == 429, r.text
        assert r.json()["error"]["code"] == "rate_limited"
        assert int(r.headers["retry-after"]) >= 1 and r.headers["ratelimit-remaining"] == "4"
        r = http.post("/batch", json={"calls": calls[:4]})  # the request's own token was spent; 4 fit
        assert r.status_code == 200 and len(r.json()["results"]) == 4
        r = http.get("/environments")  # the key's bucket is empty: the gate's own 429
        assert r.status_code == 429 and "API key" in r.json()["error"]["message"]
        assert r.headers["ratelimit-limit"] == "6" and r.headers["ratelimit-remaining"] == "0", r.headers
        assert "ratelimit-reset" in r.headers
        r = http.get("/limits")  # reading one's limits is never limited (GitHub's /rate_limit neither)
        assert r.status_code == 200 and r.json()["key"]["remaining"] == 0, r.text
        assert http.get("/limits").status_code == 200


@pytest.mark.slow
def test_the_ip_limit_applies_without_keys_and_spares_health_probes():
    with local_server(env={"SW_IP_RATE": "0.5", "SW_IP_BURST": "3"}) as url, client(url, None) as http:
        codes = [http.get("/environments").status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        r = http.get("/environments")
        assert r.status_code == 429 and r.headers["retry-after"] == "2" and "client IP" in r.text
        assert r.headers["ratelimit-remaining"] == "0"
        r = http.get("/limits")
        assert r.status_code == 200 and r.json()["ip"]["remaining"] == 0, r.text
        root = url.rsplit("/api/v1", 1)[0]
        assert http.get(f"{root}/healthz").status_code == 200
        assert http.get(f"{root}/metrics").status_code == 200


@pytest.mark.slow
def test_the_python_client_waits_for_retry_after(data_dir, make_key):
    from sandworld import SandworldClient

    key = make_key()
    with keyed_server(data_dir, env={"SW_KEY_RATE": "2", "SW_KEY_BURST": "2"}) as url:
        with SandworldClient(url, api_key=key) as sw:
            made = [sw.create_episode("coinpurse") for _ in range(4)]  # the 3rd and 4th wait for tokens
    assert len({e["episode_id"] for e in made}) == 4
