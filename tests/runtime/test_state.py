"""``GET /episodes/{id}/state``: the dump ``sandworld digest`` checks."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.runtime.test_api import assert_error, create
from tests.runtime.test_forks import show, step


def cli_digest(tmp_path, dump: dict) -> str:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(dump))
    r = subprocess.run([sys.executable, "-m", "sw_runtime", "digest", str(path)], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_state_dump_recomputes_to_the_episode_digest(http, tmp_path):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    step(http, eid, "pay_request", request_id="rq-16")
    step(http, eid, "add_contact", handle="@someone-new", name="Someone New")
    r = http.get(f"/episodes/{eid}/state")
    assert r.status_code == 200
    dump = r.json()
    assert dump["episode_id"] == eid and dump["environment"] == "coinpurse" and dump["steps"] == 2
    assert set(dump["collections"]) == {"account", "contacts", "requests", "transactions", "outgoing"}
    assert dump["collections"]["requests"]["rq-16"]["status"] == "paid"
    assert dump["collections"]["contacts"]["c-s002"]["handle"] == "@someone-new"
    assert dump["digest"] == show(http, eid)["digest"]
    assert cli_digest(tmp_path, dump) == dump["digest"]


def test_chosen_collections(http, tmp_path):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    full = http.get(f"/episodes/{eid}/state").json()
    part = http.get(f"/episodes/{eid}/state", params={"collections": "account, contacts"}).json()
    assert set(part["collections"]) == {"account", "contacts"}
    assert part["collections"]["contacts"] == full["collections"]["contacts"]
    assert part["digest"] == full["digest"]  # the whole state's
    assert part["collections_digest"] != full["digest"]
    assert cli_digest(tmp_path, part) == part["collections_digest"]
    assert "collections_digest" not in full


def test_bad_collections_and_unknown_episodes(http):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    err = assert_error(http.get(f"/episodes/{eid}/state", params={"collections": "account,wallets"}), 400,
                       "invalid_request")
    assert "wallets" in err["message"] and "transactions" in err["message"]
    assert_error(http.get(f"/episodes/{eid}/state", params={"collections": ""}), 400, "invalid_request")
    assert_error(http.get("/episodes/ep_nope/state"), 404, "not_found")


def test_a_submitted_episode_still_shows_its_state(http):
    eid = create(http, seed=1)["episode_id"]
    step(http, eid, "set", key="it-02", value=77)
    http.post(f"/episodes/{eid}/submit")
    dump = http.get(f"/episodes/{eid}/state").json()
    assert dump["collections"]["items"]["it-02"]["value"] == 77
