"""The webhook routes on a real server: register, list a page at a time, delete, per project."""

from __future__ import annotations

import pytest

from .conftest import client


@pytest.fixture(scope="module")
def server(keyed):
    return keyed.url, keyed["alpha"], keyed["beta"]


def test_register_list_and_delete(server):
    url, alpha, beta = server
    with client(url, alpha) as a, client(url, beta) as b:
        made = []
        for i in range(5):
            r = a.post("/webhooks", json={"url": f"http://127.0.0.1:9/h{i}", "events": ["episode.ended"]})
            assert r.status_code == 201, r.text
            assert r.json()["secret"].startswith("whsec_")
            made.append(r.json()["webhook_id"])
        seen, cursor = [], None
        while True:
            page = a.get("/webhooks", params={"limit": 2, **({"cursor": cursor} if cursor else {})}).json()
            assert all("secret" not in w for w in page["items"])
            seen += [w["webhook_id"] for w in page["items"]]
            cursor = page["next_cursor"]
            if not cursor:
                break
        assert seen == made
        # beta sees none of alpha's: not in its list, 404 by id, exactly like an unknown id
        assert b.get("/webhooks").json() == {"items": [], "next_cursor": None}
        theirs = b.delete(f"/webhooks/{made[0]}")
        unknown = b.delete("/webhooks/wh_0000000000000000")
        assert theirs.status_code == unknown.status_code == 404
        assert theirs.json()["error"]["code"] == "not_found"
        assert b.get(f"/webhooks/{made[0]}/deliveries").status_code == 404
        assert a.delete(f"/webhooks/{made[0]}").json() == {"webhook_id": made[0], "deleted": True}
        assert a.get(f"/webhooks/{made[0]}/deliveries").status_code == 404


def test_bad_subscriptions_are_refused(server):
    url, alpha, _ = server
    with client(url, alpha) as a:
        for body, says in (
            ({"url": "file:///etc/passwd", "events": ["episode.ended"]}, "http:// or https://"),
            ({"url": "gopher://x", "events": ["episode.ended"]}, "http:// or https://"),
            ({"url": "http://u:p@127.0.0.1/", "events": ["episode.ended"]}, "user or password"),
            ({"url": "http://127.0.0.1/", "events": ["episode.deleted"]}, "unknown event"),
            ({"url": "http://127.0.0.1:70000/", "events": ["episode.ended"]}, "port"),
            ({"url": "http://127.0.0.1:0/", "events": ["episode.ended"]}, "port"),
            ({"url": "http://127.0.0.1:x/", "events": ["episode.ended"]}, "port"),
            ({"url": "http://127.0.0.1/", "events": []}, "at least one"),
            ({"url": "http://127.0.0.1/", "events": ["episode.ended"], "secret": "short"}, "secret"),
            ({"url": "http://127.0.0.1/", "events": ["episode.ended"], "extra": 1}, "unknown field"),
        ):
            r = a.post("/webhooks", json=body)
            assert r.status_code == 400 and says in r.json()["error"]["message"], (body, r.text)


def test_read_patch_rotate_and_ping_a_webhook(server):
    from .receiver import receiving

    url, alpha, beta = server
    with client(url, alpha) as a, client(url, beta) as b, receiving() as rec:
        made = a.post("/webhooks", json={"url": "http://127.0.0.1:9/old", "events": ["episode.ended"]}).json()
        wid = made["webhook_id"]
        got = a.get(f"/webhooks/{wid}").json()
        assert got["url"] == "http://127.0.0.1:9/old" and "secret" not in got and got["updated_at"] is None
        assert b.get(f"/webhooks/{wid}").status_code == 404  # another project's is unknown
        patched = a.patch(f"/webhooks/{wid}", json={"url": rec.url, "events": ["episode.created", "episode.ended"]})
        assert patched.status_code == 200, patched.text
        assert patched.json()["url"] == rec.url and patched.json()["events"] == ["episode.created", "episode.ended"]
        assert a.patch(f"/webhooks/{wid}", json={}).status_code == 400
        assert a.patch(f"/webhooks/{wid}", json={"events": ["nope"]}).status_code == 400
        assert b.patch(f"/webhooks/{wid}", json={"url": rec.url}).status_code == 404
        rotated = a.post(f"/webhooks/{wid}/rotate-secret", json={"overlap_seconds": 600})
        assert rotated.status_code == 200, rotated.text
        body = rotated.json()
        assert body["secret"].startswith("whsec_") and body["secret"] != made["secret"]
        assert body["previous_secret_expires_at"] is not None
        assert "secret" not in a.get(f"/webhooks/{wid}").json()  # shown once
        assert a.post(f"/webhooks/{wid}/rotate-secret", json={"overlap_seconds": -1}).status_code == 400
        ping = a.post(f"/webhooks/{wid}/ping")
        assert ping.status_code == 202 and ping.json()["event"] == "webhook.ping"
        headers, payload = rec.wait_for(1)[0]
        assert headers["webhook-attempt"] == "1" and len(headers["webhook-signature"].split(" ")) == 2
        from standardwebhooks import Webhook

        for secret in (made["secret"], body["secret"]):
            assert Webhook(secret).verify(payload, headers)["type"] == "webhook.ping"
        log = a.get(f"/webhooks/{wid}/deliveries").json()["items"]
        assert log[-1]["delivery_id"] == ping.json()["delivery_id"]
        assert b.post(f"/webhooks/{wid}/ping").status_code == 404
        a.delete(f"/webhooks/{wid}")
