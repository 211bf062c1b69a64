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
