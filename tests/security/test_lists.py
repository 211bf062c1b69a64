"""Cursor pagination on a real server's lists while new items are being made."""

from __future__ import annotations

from .conftest import client


def _all_pages(http, path: str, limit: int, make_one=None) -> list:
    seen, cursor = [], None
    while True:
        params = {"limit": limit, **({"cursor": cursor} if cursor else {})}
        r = http.get(path, params=params)
        assert r.status_code == 200, r.text
        page = r.json()
        seen.append(page["items"])
        if make_one is not None:
            make_one()  # something new appears between two pages
        cursor = page["next_cursor"]
        if cursor is None:
            return seen


def test_snapshots_page_in_order_while_more_are_taken(keyed):
    with client(keyed.url, keyed["alpha"]) as http:
        ep = http.post("/environments/coinpurse/episodes", json={}).json()["episode_id"]

        def snap():
            return http.post(f"/episodes/{ep}/snapshots", json={}).json()["snapshot_id"]

        before = [snap() for _ in range(7)]
        made_during: list = []
        pages = _all_pages(http, "/snapshots", 3, make_one=lambda: made_during.append(snap()))
        ids = [s["snapshot_id"] for p in pages for s in p]
        # Every snapshot once, in the order taken: those taken while paging
        # show up on later pages; only the one taken after the last page is not seen.
        assert ids == (before + made_during)[:-1]
        assert len(pages) >= 3
        with client(keyed.url, keyed["beta"]) as beta:
            assert not set(before) & {s["snapshot_id"] for p in _all_pages(beta, "/snapshots", 50) for s in p}


def test_a_bad_cursor_or_limit_is_a_400(keyed):
    with client(keyed.url, keyed["alpha"]) as http:
        for params in ({"cursor": "!!!"}, {"limit": 0}, {"limit": "many"}):
            for path in ("/snapshots", "/webhooks", "/keys"):
                r = http.get(path, params=params)
                assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request", (path, params)
