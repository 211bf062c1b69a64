"""/metrics through prometheus_client, read back with its own parser; /healthz and /readyz."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families
from sandworld.local import local_server

from sw_runtime.security.metrics import Metrics


def scrape(root: str) -> dict:
    """{(sample name, frozenset(labels)): value}"""
    r = httpx.get(f"{root}/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): s.value
            for fam in text_string_to_metric_families(r.text) for s in fam.samples}


def value(m: dict, name: str, **labels) -> float:
    return m.get((name, frozenset(labels.items())), 0.0)


def test_counters_move_with_steps_creates_submits_refusals_and_errors(tmp_path):
    with local_server("--data-dir", str(tmp_path / "d")) as url, httpx.Client(base_url=url) as http:
        root = url.rsplit("/api/v1", 1)[0]
        before = scrape(root)
        ep = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-01"}).json()["episode_id"]
        http.post(f"/episodes/{ep}/step", json={"tool": "get_balance"})
        http.post(f"/episodes/{ep}/step", json={"tool": "no_such_tool"})
        http.post("/batch", json={"calls": [{"episode_id": ep, "tool": "get_balance"}] * 3})
        http.post(f"/episodes/{ep}/submit", json={})
        http.get("/episodes/ep_nope")
        http.post("/batch", content=b"{not json")
        other = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-01"}).json()["episode_id"]
        after = scrape(root)
        health = httpx.get(f"{root}/healthz").json()
        http.delete(f"/episodes/{other}")
    assert value(after, "sandworld_steps_total", world="coinpurse") - value(before, "sandworld_steps_total",
                                                                             world="coinpurse") == 5
    assert value(after, "sandworld_creates_total", world="coinpurse") == 2
    assert value(after, "sandworld_submits_total", world="coinpurse") == 1
    assert value(after, "sandworld_refusals_total", code="unknown_tool") == 1
    assert value(after, "sandworld_http_errors_total", code="not_found", status="404") == 1
    assert value(after, "sandworld_http_errors_total", code="invalid_json", status="400") == 1
    # live: the open one, as the cap and /healthz count; held: it and the submitted one kept a while
    assert value(after, "sandworld_live_episodes") == 1 == health["open"]
    assert value(after, "sandworld_held_episodes") == 2 == health["episodes"]
    assert value(after, "sandworld_idempotency_keys") == 0
    step_route = dict(route="/api/v1/episodes/{id}/step", method="POST")
    assert value(after, "sandworld_request_duration_seconds_count", **step_route) == 2
    assert value(after, "sandworld_request_duration_seconds_bucket", le="+Inf", **step_route) == 2


def test_each_server_has_its_own_registry():
    a, b = Metrics(), Metrics()
    a.latency.labels("/x", "GET").observe(0.1)
    assert b"/x" in a.render() and b"/x" not in b.render()


def test_health_and_readiness(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the data folder should be")
    # With an action log (--durability write) a server without its folder does not start at all;
    # memory only, it starts and says it is not ready (keys and webhooks live in that folder too).
    with local_server("--data-dir", str(blocked / "data"), "--durability", "none") as url:
        root = url.rsplit("/api/v1", 1)[0]
        assert httpx.get(f"{root}/healthz").json()["ok"] is True
        r = httpx.get(f"{root}/readyz")
        assert r.status_code == 503
        assert r.json() == {"ready": False, "checks": {"worlds_loaded": True, "data_dir_writable": False,
                                                      "log_writable": True, "log_intact": True}}
