"""``GET /me`` and ``GET /usage``: who the caller is and what it holds. Real servers."""

from __future__ import annotations

from sw_runtime.security.scopes import SCOPES

from .conftest import client


def test_without_keys_the_caller_is_everyone(http):
    me = http.get("/me").json()
    assert me["auth"] == "none" and me["key"] is None and me["project"] is None
    assert me["scopes"] == sorted(SCOPES)
    usage = http.get("/usage").json()
    assert usage["project"] is None and usage["open_episodes"] == usage["server"]["open_episodes"]
    assert usage["caps"]["max_episodes"] == 500_000 and usage["caps"]["idle_timeout_seconds"] == 1800


def test_with_keys_each_caller_sees_its_key_project_and_usage(keyed):
    with client(keyed.url, keyed["alpha"]) as alpha, client(keyed.url, keyed["beta"]) as beta, \
            client(keyed.url, keyed["reader"]) as reader:
        me = alpha.get("/me").json()
        assert me["auth"] == "keys" and me["project"] == "alpha" and me["key"]["key_id"].startswith("key_")
        assert keyed["alpha"].startswith(me["key"]["hint"].rstrip("…")) and keyed["alpha"] not in alpha.get("/me").text
        ro = reader.get("/me").json()
        assert ro["scopes"] == ["episodes:read"] and ro["project"] == "alpha" and ro["key"] != me["key"]
        before = {name: c.get("/usage").json()["open_episodes"] for name, c in (("alpha", alpha), ("beta", beta))}
        for _ in range(2):
            assert alpha.post("/environments/dummy/episodes", json={}).status_code == 201
        ep = beta.post("/environments/dummy/episodes", json={}).json()["episode_id"]
        beta.post(f"/episodes/{ep}/snapshots")
        a, b = alpha.get("/usage").json(), beta.get("/usage").json()
        assert (a["project"], a["open_episodes"]) == ("alpha", before["alpha"] + 2)
        assert (b["project"], b["open_episodes"], b["snapshots"]) == ("beta", before["beta"] + 1, 1)
        assert a["server"]["open_episodes"] >= a["open_episodes"] + b["open_episodes"]
    with client(keyed.url, None) as nobody:
        assert nobody.get("/me").status_code == 401
