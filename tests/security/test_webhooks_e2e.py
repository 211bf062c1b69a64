"""Lifecycle webhooks end to end: a real server delivers signed events to a receiver on 127.0.0.1."""

from __future__ import annotations

import time

from standardwebhooks import Webhook

from .conftest import client
from .receiver import receiving


def test_created_submitted_and_ended_arrive_signed_for_the_projects_episodes_only(keyed):
    with receiving() as rec, client(keyed.url, keyed["alpha"]) as alpha, client(keyed.url, keyed["beta"]) as beta:
        hook = alpha.post("/webhooks", json={"url": rec.url, "events": ["episode.created", "episode.submitted",
                                                                         "episode.ended"]}).json()
        try:
            beta.post("/environments/coinpurse/episodes", json={})  # beta's: alpha's hook must not hear it
            ep = alpha.post("/environments/coinpurse/episodes", json={"task_id": "cp-01"}).json()["episode_id"]
            alpha.post(f"/episodes/{ep}/step", json={"tool": "get_balance"})
            started = time.perf_counter()
            alpha.post(f"/episodes/{ep}/submit", json={})
            assert time.perf_counter() - started < 5
            got = rec.wait_for(3)
            # Deliveries run side by side, so they may arrive in any order (as the spec allows).
            events = {e["type"]: e for e in (Webhook(hook["secret"]).verify(body, headers) for headers, body in got)}
            assert sorted(events) == ["episode.created", "episode.ended", "episode.submitted"]
            assert {e["data"]["episode_id"] for e in events.values()} == {ep}
            ended = events["episode.ended"]["data"]
            assert ended["ending"] == "submitted" and ended["score"] == events["episode.submitted"]["data"]["score"]
            assert ended["pass"] is False and ended["steps"] == 1
            time.sleep(0.3)
            assert len(rec.got) == 3
            log = alpha.get(f"/webhooks/{hook['webhook_id']}/deliveries", params={"limit": 2}).json()
            assert [d["event"] for d in log["items"]] == ["episode.created", "episode.submitted"]  # in emit order
            assert all(d["status"] == "delivered" for d in log["items"]) and log["next_cursor"]
            rest = alpha.get(f"/webhooks/{hook['webhook_id']}/deliveries", params={"cursor": log["next_cursor"]})
            assert [d["event"] for d in rest.json()["items"]] == ["episode.ended"]
        finally:
            alpha.delete(f"/webhooks/{hook['webhook_id']}")


def test_a_slow_receiver_does_not_slow_stepping(keyed):
    with receiving(delay=3.0) as rec, client(keyed.url, keyed["alpha"]) as alpha:
        hook = alpha.post("/webhooks", json={"url": rec.url, "events": ["episode.created"]}).json()
        try:
            started = time.perf_counter()
            r = alpha.post("/batch/episodes", json={"episodes": [{"environment": "coinpurse"}] * 20})
            eps = [x["episode_id"] for x in r.json()["results"]]
            calls = [{"episode_id": e, "tool": "get_balance"} for e in eps]
            assert all(x["ok"] for x in alpha.post("/batch", json={"calls": calls}).json()["results"])
            assert time.perf_counter() - started < 2.5  # 20 deliveries of 3 s each are still under way
        finally:
            alpha.delete(f"/webhooks/{hook['webhook_id']}")
