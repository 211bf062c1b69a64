"""Webhook deliveries: signed per Standard Webhooks, retried with backoff, logged, never blocking."""

from __future__ import annotations

import asyncio
import time

import orjson
import pytest
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from sw_runtime.pagination import page_request
from sw_runtime.security.deliveries import Dispatcher
from sw_runtime.security.webhooks import Subscriptions

from .receiver import receiving


def _run(coro):
    return asyncio.run(coro)


async def _deliver(subs, event, project, data, until, **kw):
    d = Dispatcher(subs, **kw)
    await d.start()
    try:
        d.emit(event, project, data)
        deadline = time.monotonic() + 20
        while not until(d) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return d
    finally:
        await d.stop()


def test_a_delivery_is_signed_so_the_standard_webhooks_library_verifies_it(tmp_path):
    subs = Subscriptions(str(tmp_path))
    with receiving() as rec:
        sub = subs.add("alpha", rec.url, ["episode.ended"], None)
        d = _run(_deliver(subs, "episode.ended", "alpha", {"episode_id": "ep_1", "score": 1.0},
                          until=lambda d: d.pending() == 0 and rec.got))
        headers, body = rec.wait_for(1)[0]
    payload = Webhook(sub.secret).verify(body, headers)
    assert payload["type"] == "episode.ended" and payload["data"] == {"episode_id": "ep_1", "score": 1.0}
    assert headers["webhook-id"].startswith("msg_")
    log = d.page(sub.id, page_request())["items"]
    assert log[0]["status"] == "delivered" and log[0]["attempts"][0]["status_code"] == 200


def test_a_tampered_body_does_not_verify(tmp_path):
    subs = Subscriptions(str(tmp_path))
    with receiving() as rec:
        sub = subs.add(None, rec.url, ["episode.created"], None)
        _run(_deliver(subs, "episode.created", "any", {"episode_id": "ep_1"},
                      until=lambda d: d.pending() == 0 and rec.got))
        headers, body = rec.wait_for(1)[0]
    with pytest.raises(WebhookVerificationError):
        Webhook(sub.secret).verify(body.replace(b"ep_1", b"ep_2"), headers)


def test_failed_deliveries_are_retried_with_the_same_id_then_logged(tmp_path):
    subs = Subscriptions(str(tmp_path))
    with receiving(answers=(500, 503, 200)) as rec:
        sub = subs.add(None, rec.url, ["episode.submitted"], None)
        d = _run(_deliver(subs, "episode.submitted", None, {"episode_id": "ep_1"}, backoff=(0.05, 0.05, 0.05),
                          until=lambda d: d.pending() == 0 and len(rec.got) >= 3))
        got = rec.wait_for(3)
    assert len({h["webhook-id"] for h, _ in got}) == 1  # one message, three attempts
    entry = d.page(sub.id, page_request())["items"][0]
    assert entry["status"] == "delivered"
    assert [a["status_code"] for a in entry["attempts"]] == [500, 503, 200]
    assert "HTTP 500" in entry["attempts"][0]["error"]


def test_a_receiver_that_never_answers_well_is_given_up(tmp_path):
    subs = Subscriptions(str(tmp_path))
    sub = subs.add(None, "http://127.0.0.1:9/nothing-listens-here", ["episode.created"], None)
    d = _run(_deliver(subs, "episode.created", None, {}, backoff=(0.01,),
                      until=lambda d: d.page(sub.id, page_request())["items"][0]["status"] != "pending"))
    entry = d.page(sub.id, page_request())["items"][0]
    assert entry["status"] == "failed" and len(entry["attempts"]) == 2
    assert entry["attempts"][0]["status_code"] is None and "Connect" in entry["attempts"][0]["error"]


def test_emit_never_waits_for_a_slow_receiver_and_drops_past_the_queue(tmp_path):
    subs = Subscriptions(str(tmp_path))

    async def go(url):
        d = Dispatcher(subs, queue_size=5, timeout=5)
        await d.start()
        try:
            started = time.perf_counter()
            for i in range(50):
                d.emit("episode.created", None, {"i": i})
            took = time.perf_counter() - started
            return d, took
        finally:
            await d.stop()

    with receiving(delay=2.0) as rec:
        sub = subs.add(None, rec.url, ["episode.created"], None)
        d, took = _run(go(rec.url))
    assert took < 0.5  # 50 emits against a receiver that takes 2 s each
    statuses = [e["status"] for e in d.page(sub.id, page_request(100))["items"]]
    assert statuses.count("dropped") >= 40 and d.dropped == statuses.count("dropped")


def test_only_the_subscribed_project_and_events_hear(tmp_path):
    subs = Subscriptions(str(tmp_path))
    a = subs.add("alpha", "http://127.0.0.1:1/a", ["episode.created", "episode.ended"], None)
    subs.add("beta", "http://127.0.0.1:1/b", ["episode.created"], None)
    everyone = subs.add(None, "http://127.0.0.1:1/all", ["episode.ended"], None)
    assert [s.id for s in subs.matching("episode.ended", "alpha")] == [a.id, everyone.id]
    assert [s.id for s in subs.matching("episode.created", "gamma")] == []
    assert orjson.loads(orjson.dumps(a.describe()))["events"] == ["episode.created", "episode.ended"]
