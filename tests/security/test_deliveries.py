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
    assert [h["webhook-attempt"] for h, _ in got] == ["1", "2", "3"]  # numbered, so a receiver can tell
    entry = d.page(sub.id, page_request())["items"][0]
    assert entry["status"] == "delivered"
    assert [a["status_code"] for a in entry["attempts"]] == [500, 503, 200]
    assert [a["attempt"] for a in entry["attempts"]] == [1, 2, 3]
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


def test_a_rotated_secret_overlaps_then_only_the_new_one_signs(tmp_path):
    subs = Subscriptions(str(tmp_path))
    with receiving() as rec:
        sub = subs.add(None, rec.url, ["episode.created"], None)
        old = sub.secret
        rotated = subs.rotate(sub.id, None, overlap=3600)
        assert rotated.secret != old and rotated.secrets() == (rotated.secret, old)
        _run(_deliver(subs, "episode.created", None, {"episode_id": "ep_1"},
                      until=lambda d: d.pending() == 0 and rec.got))
        headers, body = rec.wait_for(1)[0]
        assert len(headers["webhook-signature"].split(" ")) == 2
        for secret in (old, rotated.secret):  # a receiver holding either secret verifies it
            assert Webhook(secret).verify(body, headers)["data"] == {"episode_id": "ep_1"}
        again = subs.rotate(sub.id, None, overlap=0)  # no overlap: the old one stops at once
        _run(_deliver(subs, "episode.created", None, {"episode_id": "ep_2"},
                      until=lambda d: d.pending() == 0 and len(rec.got) >= 2))
        headers, body = rec.wait_for(2)[1]
    assert len(headers["webhook-signature"].split(" ")) == 1
    Webhook(again.secret).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(rotated.secret).verify(body, headers)


def test_a_ping_reaches_one_subscription_whatever_its_events(tmp_path):
    subs = Subscriptions(str(tmp_path))
    with receiving() as rec:
        sub = subs.add(None, rec.url, ["episode.ended"], None)

        async def go():
            d = Dispatcher(subs)
            await d.start()
            try:
                record = d.ping(sub)
                deadline = time.monotonic() + 20
                while d.pending() and time.monotonic() < deadline:
                    await asyncio.sleep(0.02)
                return d, record
            finally:
                await d.stop()

        d, record = _run(go())
        headers, body = rec.wait_for(1)[0]
    assert record["event"] == "webhook.ping" and record["status"] == "pending"
    payload = Webhook(sub.secret).verify(body, headers)
    assert payload["type"] == "webhook.ping" and payload["data"]["webhook_id"] == sub.id
    assert d.page(sub.id, page_request())["items"][0]["status"] == "delivered"
