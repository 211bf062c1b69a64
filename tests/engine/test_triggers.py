"""Episodes that start from a world's trigger: what is refused, and how."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(("trigger", "says"), [
    ({"kind": "payday"}, "unknown trigger kind"),
    ({"kind": "invoice", "entity_id": "nope"}, "no invoice with uid"),
])
def test_a_bad_trigger_is_an_invalid_request(http, trigger, says):
    r = http.post("/environments/receivables/episodes", json={"trigger": trigger})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request" and says in r.json()["error"]["message"]


def test_a_world_without_triggers_refuses_one(http):
    r = http.post("/environments/coinpurse/episodes", json={"trigger": {"kind": "cron"}})
    assert r.status_code == 400 and "has no triggers" in r.json()["error"]["message"]
