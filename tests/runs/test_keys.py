"""With keys on (--auth keys): the runs API needs a key and keeps runs in the
caller's project; the tools answer to the run's own token, not to a key."""

from __future__ import annotations

from tests.runs.conftest import QUICKSTART
from tests.security.conftest import client, keyed  # noqa: F401  (fixture)

GMAIL = "/gmail.googleapis.com/gmail/v1/users/me/messages"


def test_runs_need_a_key_and_stay_in_their_project(keyed):  # noqa: F811
    root = keyed.url.removesuffix("/api/v1")
    with client(root, None) as anon, client(root, keyed["alpha"]) as alpha, client(root, keyed["beta"]) as beta:
        assert anon.post("/v1/runs", json=QUICKSTART).status_code == 401
        with client(root, keyed["reader"]) as reader:
            assert reader.post("/v1/runs", json=QUICKSTART).status_code == 403
        run = alpha.post("/v1/runs", json=QUICKSTART)
        assert run.status_code == 201, run.text
        run = run.json()
        assert alpha.get(f"/v1/runs/{run['id']}").status_code == 200
        assert beta.get(f"/v1/runs/{run['id']}").status_code == 404
        assert beta.post(f"/v1/runs/{run['id']}/finish", json={}).status_code == 404

        with client(run["tools_url"], run["token"]) as tools:
            assert tools.get(GMAIL, params={"q": "offsite"}).status_code == 200
        with client(run["tools_url"], keyed["alpha"]) as wrong:
            assert wrong.get(GMAIL, params={"q": "offsite"}).status_code == 401
        assert anon.get(f"/v1/runs/{run['id']}", headers={"authorization": f"Bearer {run['token']}"}).status_code == 401
        assert alpha.post(f"/v1/runs/{run['id']}/finish", json={}).json()["calls"] == 1


def test_an_episodes_tools_token_opens_its_addresses_with_keys_on(keyed):  # noqa: F811
    root = keyed.url.removesuffix("/api/v1")
    with client(keyed.url, keyed["alpha"]) as alpha:
        ep = alpha.post("/environments/offsite-planning/episodes", json={}).json()
    with client(root + ep["tools_url"], ep["tools_token"]) as tools:
        assert tools.get(GMAIL, params={"q": "offsite"}).json()["resultSizeEstimate"] == 4
