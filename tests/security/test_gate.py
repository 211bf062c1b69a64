"""Keys and scopes on a real server: 401, 403, and 404 for another project's things."""

from __future__ import annotations

import pytest

from .conftest import client


def _episode(url, key) -> str:
    with client(url, key) as http:
        r = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-01"})
        assert r.status_code == 201, r.text
        return r.json()["episode_id"]


def test_no_key_or_a_bad_or_revoked_one_is_401(keyed):
    for key in (None, "sw_live_not-a-real-key", keyed["revoked"], "Basic abc"):
        with client(keyed.url, key) as http:
            r = http.get("/environments")
        assert r.status_code == 401, key
        assert r.json()["error"]["code"] == "unauthorized"
        assert r.headers["www-authenticate"].startswith("Bearer")


def test_health_readiness_metrics_and_the_document_need_no_key(keyed):
    root = keyed.url.rsplit("/api/v1", 1)[0]
    with client(root, None) as http:
        for path in ("/healthz", "/readyz", "/metrics", "/openapi.json"):
            assert http.get(path).status_code == 200, path


def test_episodes_read_reads_and_nothing_more(keyed):
    ep = _episode(keyed.url, keyed["alpha"])
    with client(keyed.url, keyed["reader"]) as http:
        assert http.get(f"/episodes/{ep}").status_code == 200
        assert http.get(f"/episodes/{ep}/state").status_code == 200
        assert http.get("/environments").status_code == 200  # the catalogue: any key
        for method, path, body in (
            ("POST", f"/episodes/{ep}/step", {"tool": "get_balance"}),
            ("POST", f"/episodes/{ep}/submit", {}),
            ("POST", "/environments/coinpurse/episodes", {}),
            ("POST", "/batch", {"calls": []}),
            ("POST", f"/episodes/{ep}/fork", {"n": 1}),
            ("POST", f"/episodes/{ep}/snapshots", {}),
            ("GET", "/webhooks", None),
            ("GET", "/keys", None),
        ):
            r = http.request(method, path, json=body)
            assert r.status_code == 403, (method, path, r.text)
            err = r.json()["error"]
            assert err["code"] == "insufficient_scope" and "scope" in err["message"]


def test_episodes_write_drives_episodes_but_cannot_read_them_back(keyed):
    with client(keyed.url, keyed["writer"]) as http:
        ep = http.post("/environments/coinpurse/episodes", json={}).json()["episode_id"]
        assert http.post(f"/episodes/{ep}/step", json={"tool": "get_balance"}).json()["ok"] is True
        r = http.post("/batch", json={"calls": [{"episode_id": ep, "tool": "get_balance"}]})
        assert r.status_code == 200 and r.json()["results"][0]["ok"] is True
        assert http.post(f"/episodes/{ep}/submit", json={}).status_code == 200
        assert http.get(f"/episodes/{ep}").status_code == 403
        assert http.post("/webhooks", json={"url": "http://127.0.0.1:9/", "events": ["episode.ended"]}
                         ).status_code == 403


def test_webhook_scopes_open_webhooks_only(keyed):
    with client(keyed.url, keyed["hooks"]) as http:
        r = http.post("/webhooks", json={"url": "http://127.0.0.1:9/", "events": ["episode.ended"]})
        assert r.status_code == 201
        assert http.get("/webhooks").status_code == 200
        assert http.delete(f"/webhooks/{r.json()['webhook_id']}").status_code == 200
        assert http.post("/environments/coinpurse/episodes", json={}).status_code == 403
        assert http.get("/keys").status_code == 403


def test_keys_read_lists_only_the_projects_keys_without_secrets(keyed):
    with client(keyed.url, keyed["alpha"]) as http:
        items = http.get("/keys", params={"limit": 100}).json()["items"]
    assert {k["project"] for k in items} == {"alpha"} and len(items) == 5  # beta's key is not listed
    assert not any(keyed[name][:20] in str(items) for name in keyed)
    assert [k["revoked"] for k in items].count(True) == 1


def test_another_projects_episode_is_404_exactly_like_an_unknown_one(keyed):
    ep = _episode(keyed.url, keyed["alpha"])
    unknown = "ep_00" + "0" * 20
    with client(keyed.url, keyed["beta"]) as beta:
        for method, path, body in (
            ("GET", "/episodes/{}", None),
            ("GET", "/episodes/{}/state", None),
            ("POST", "/episodes/{}/step", {"tool": "get_balance"}),
            ("POST", "/episodes/{}/submit", {}),
            ("POST", "/episodes/{}/fork", {"n": 1}),
            ("POST", "/episodes/{}/snapshots", {}),
        ):
            theirs = beta.request(method, path.format(ep), json=body)
            nobody = beta.request(method, path.format(unknown), json=body)
            assert theirs.status_code == nobody.status_code == 404, (path, theirs.text)
            assert theirs.json()["error"]["message"] == nobody.json()["error"]["message"].replace(unknown, ep)
        slot = beta.post("/batch", json={"calls": [{"episode_id": ep, "tool": "get_balance"}]}).json()["results"][0]
        assert slot["ok"] is False and slot["error"]["code"] == "not_found"
        assert beta.post("/environments/coinpurse/episodes", json={"snapshot_id": "snap_x"}).status_code in (400, 404)
    with client(keyed.url, keyed["alpha"]) as alpha:  # the owner still has it, untouched by beta
        assert alpha.get(f"/episodes/{ep}").json()["steps"] == 0


def test_another_projects_snapshot_is_404(keyed):
    ep = _episode(keyed.url, keyed["alpha"])
    with client(keyed.url, keyed["alpha"]) as alpha:
        snap = alpha.post(f"/episodes/{ep}/snapshots", json={}).json()["snapshot_id"]
    with client(keyed.url, keyed["beta"]) as beta:
        assert beta.get(f"/snapshots/{snap}").status_code == 404
        assert beta.delete(f"/snapshots/{snap}").status_code == 404
        r = beta.post("/environments/coinpurse/episodes", json={"snapshot_id": snap})
        assert r.status_code in (400, 404) and snap in r.text
        assert snap not in str(beta.get("/snapshots").json())
    with client(keyed.url, keyed["alpha"]) as alpha:
        assert alpha.get(f"/snapshots/{snap}").status_code == 200
        assert snap in str(alpha.get("/snapshots").json())


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "example.internal"])
def test_serving_a_network_address_without_keys_needs_insecure(host):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "sw_runtime", "serve", "--host", host, "--port", "1"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--auth keys" in r.stderr and "--insecure" in r.stderr


def test_the_python_client_sends_the_key_from_the_environment(keyed, monkeypatch):
    from sandworld import SandworldClient, errors as client_errors

    monkeypatch.setenv("SANDWORLD_API_KEY", keyed["alpha"])
    with SandworldClient(keyed.url) as sw:
        assert sw.create_episode("coinpurse")["episode_id"].startswith("ep_")
    monkeypatch.setenv("SANDWORLD_API_KEY", keyed["reader"])
    with SandworldClient(keyed.url) as sw, pytest.raises(client_errors.Forbidden, match="episodes:write"):
        sw.create_episode("coinpurse")
    monkeypatch.delenv("SANDWORLD_API_KEY")
    with SandworldClient(keyed.url) as sw, pytest.raises(client_errors.Unauthorized):
        sw.environments()


def test_a_key_revoked_while_the_server_runs_stops_working_within_a_second(keyed):
    import subprocess
    import sys
    import time

    from sw_runtime.security.keys import KeyStore

    store = KeyStore(keyed.data_dir)
    secret, info = store.create("alpha", "episodes:read")
    store.close()
    with client(keyed.url, secret) as http:
        assert http.get("/environments").status_code == 200
        revoked = subprocess.run([sys.executable, "-m", "sw_runtime", "keys", "revoke", info.id,
                                  "--data-dir", keyed.data_dir], capture_output=True, text=True, timeout=60)
        assert revoked.returncode == 0, revoked.stderr
        time.sleep(1.2)
        assert http.get("/environments").status_code == 401
