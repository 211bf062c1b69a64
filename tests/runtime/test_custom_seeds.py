"""Custom seeds: validate, start, step and digest-check a state the client sends."""

from __future__ import annotations

import copy

import pytest
from sw_core_ext import Store

from sw_runtime.worlds import registry
from tests.runtime.test_api import assert_error, create
from tests.runtime.test_forks import show, step
from tests.runtime.test_state import cli_digest

T0 = "2026-03-01T12:00:00.000Z"


def small_state() -> dict:
    """A coinpurse account of our own: two contacts, one pending request, no history."""
    return {
        "account": {"acct": {"id": "acct", "name": "Ada Park", "handle": "@ada-park", "currency": "USD",
                             "balance": 50_000, "daily_limit": 100_000, "sent_today": 0,
                             "limit_resets_at": "2026-03-06T00:00:00.000Z"}},
        "contacts": {
            "c-001": {"id": "c-001", "name": "Bo Li", "handle": "@bo-li", "verified": True, "blocked": False,
                      "added_at": T0},
            "c-002": {"id": "c-002", "name": "Cy Ng", "handle": "@cy-ng", "verified": True, "blocked": True,
                      "added_at": T0},
        },
        "requests": {"rq-01": {"id": "rq-01", "name": "Bo Li", "handle": "@bo-li", "amount": 2_500, "note": "Pizza",
                               "status": "pending", "created_at": T0, "resolved_at": None, "transaction_id": None}},
    }


def validate(http, state, env="coinpurse", **extra) -> dict:
    """The verdict: 200 ``{valid: true, checked, unchecked, ...}``, or 422
    ``invalid_seed`` (reference 003), read back as ``{valid: false, issues}``."""
    r = http.post(f"/environments/{env}/seeds/validate", json={"state": state, **extra})
    if r.status_code == 422:
        err = assert_error(r, 422, "invalid_seed")
        assert err["environment"] == env and err["issue_count"] == len(err["issues"]) and err["issues"], err
        assert err["checked"] == [] and err["unchecked"] == []
        return {"valid": False, "issues": err["issues"]}
    assert r.status_code == 200, r.text
    assert r.json()["checked"] == [env] and r.json()["unchecked"] == []
    return r.json()


def test_coinpurse_and_dummy_declare_their_state_schemas():
    assert registry()["coinpurse"].state_schema is not None and registry()["dummy"].state_schema is not None


@pytest.mark.parametrize("name", sorted(n for n, w in registry().items() if w.state_schema is not None))
def test_every_world_parses_its_own_generated_states(name):
    world = registry()[name]
    for seed in range(20):
        assert world.state_schema.validate(world.generate(seed)) == [], (name, seed)


def test_a_valid_state_validates_with_its_digest(http, tmp_path):
    got = validate(http, small_state())
    assert got == {"valid": True, "checked": ["coinpurse"], "unchecked": [], "issues": [],
                   "digest": Store(small_state()).digest()}
    assert got["digest"] == cli_digest(tmp_path, small_state())


def test_validation_names_the_path_of_each_failing_field(http):
    bad = small_state()
    bad["account"]["acct"]["balance"] = "lots"
    del bad["contacts"]["c-001"]["verified"]
    bad["contacts"]["c-002"]["nickname"] = "cy"
    bad["requests"]["rq-01"]["status"] = "maybe"
    bad["requests"]["rq-02"] = {**bad["requests"]["rq-01"], "id": "rq-02", "status": "pending", "amount": 12.5}
    bad["requests"]["rq-03"] = {**bad["requests"]["rq-01"], "id": "rq-99", "status": "pending"}
    bad["wallets"] = {}
    bad["outgoing"] = []
    got = validate(http, bad)
    assert got["valid"] is False
    paths = {i["path"]: i["message"] for i in got["issues"]}
    assert set(paths) == {
        "$.account['acct'].balance", "$.contacts['c-001'].verified", "$.contacts['c-002'].nickname",
        "$.requests['rq-01'].status", "$.requests['rq-02'].amount", "$.requests['rq-03'].id", "$.wallets",
        "$.outgoing",
    }
    assert "int" in paths["$.account['acct'].balance"] and "missing" in paths["$.contacts['c-001'].verified"]
    assert "unknown field" in paths["$.contacts['c-002'].nickname"]
    assert "rq-99" in paths["$.requests['rq-03'].id"]
    assert "collections are" in paths["$.wallets"]


def test_validation_applies_the_worlds_own_rules(http):
    no_account = small_state()
    no_account["account"] = {}
    twins = small_state()
    twins["contacts"]["c-002"]["handle"] = "@bo-li"
    missing = small_state()
    del missing["account"]
    for state, path, words in [
        (no_account, "$.account['acct']", "missing"),
        (twins, "$.contacts['c-002'].handle", "c-001"),
        (missing, "$.account", "required"),
        ([1, 2], "$", "JSON object"),
    ]:
        got = validate(http, state)
        assert got["valid"] is False and got["issues"][0]["path"] == path, got
        assert words in got["issues"][0]["message"]
    assert validate(http, {"items": {"x": {"id": "x", "value": -1}}}, env="dummy")["issues"] == [
        {"path": "$.items['x'].value", "message": "Expected `int` >= 0"}
    ]


def test_create_with_an_invalid_state_answers_the_same_issues(http):
    bad = small_state()
    bad["contacts"]["c-001"]["handle"] = "Bo Li"
    issues = validate(http, bad)["issues"]
    r = http.post("/environments/coinpurse/episodes", json={"state": bad})
    err = assert_error(r, 400, "invalid_request")
    assert err["issues"] == issues and issues[0]["path"] == "$.contacts['c-001'].handle"
    assert issues[0]["path"] in err["message"] and "seeds/validate" in err["message"]
    assert_error(http.post("/environments/coinpurse/seeds/validate", json={}), 400, "invalid_request")
    assert_error(http.post("/environments/nope/seeds/validate", json={"state": {}}), 404, "not_found")


def test_a_custom_seed_is_validated_started_stepped_and_digest_checked(http, tmp_path):
    state = small_state()
    checked = validate(http, state)
    assert checked["valid"] is True
    ep = create(http, "coinpurse", state=state)
    eid = ep["episode_id"]
    assert ep["seed_digest"] == checked["digest"] == cli_digest(tmp_path, state)
    got = show(http, eid)
    assert got["start"] == "state" and got["digest"] == ep["seed_digest"]

    contacts = step(http, eid, "list_contacts")["result"]["contacts"]
    assert [c["handle"] for c in contacts] == ["@bo-li", "@cy-ng"]  # ours, nothing generated
    paid = step(http, eid, "pay_request", request_id="rq-01")
    assert paid["ok"] is True and paid["result"]["balance"] == 47_500
    sent = step(http, eid, "send_money", contact_id="c-001", amount=1_000, note="Coffee")
    assert sent["ok"] is True and sent["result"]["balance"] == 46_500
    blocked = step(http, eid, "send_money", contact_id="c-002", amount=100, note="Hi")
    assert blocked["ok"] is False and blocked["error"]["code"] == "blocked"

    dump = http.get(f"/episodes/{eid}/state").json()
    assert dump["digest"] == show(http, eid)["digest"] != ep["seed_digest"]
    assert cli_digest(tmp_path, dump) == dump["digest"]
    assert sorted(dump["collections"]["transactions"]) == ["tx-s002", "tx-s003"]
    assert dump["collections"]["outgoing"] == {}
    ev = http.post(f"/episodes/{eid}/submit").json()
    assert ev["pass"] is None and ev["seed_digest"] == ep["seed_digest"]  # free play


def test_a_seed_replaces_the_default_state(http):
    eid = create(http, "dummy", state={"items": {"solo": {"id": "solo", "value": 3}}}, seed=9)["episode_id"]
    assert http.get(f"/episodes/{eid}/state").json()["collections"] == {"items": {"solo": {"id": "solo", "value": 3}}}
    assert step(http, eid, "get", key="it-00")["error"]["code"] == "not_found"
    assert step(http, eid, "set", key="solo", value=4)["result"]["value"] == 4


def test_a_task_on_a_custom_state_is_set_up_on_it(http):
    world = registry()["coinpurse"]
    generated = world.generate(5)
    seeded = create(http, "coinpurse", seed=5, task_id="cp-12")
    custom = create(http, "coinpurse", state=copy.deepcopy(generated), task_id="cp-12")
    assert custom["seed_digest"] == seeded["seed_digest"] and custom["instruction"] == seeded["instruction"]
    setup = world.tasks_by_id["cp-12"].setup(Store(generated, collections=world.collections))
    for tool, args in setup.solution:
        step(http, custom["episode_id"], tool, **args)
    assert http.post(f"/episodes/{custom['episode_id']}/submit", json={"output": setup.output}).json()["pass"] is True

    # A task that cannot find what it is about says so, and free play still works.
    err = assert_error(http.post("/environments/coinpurse/episodes", json={"state": small_state(), "task_id": "cp-04"}),
                       400, "invalid_request")
    assert "cp-04" in err["message"] and "free play" in err["message"]
    assert err["issues"][0]["path"].startswith("$.") and err["issues"][0]["path"] in err["message"]
    got = validate(http, small_state(), task_id="cp-04")
    assert got["valid"] is False and got["issues"] == err["issues"]
    assert validate(http, small_state(), task_id="cp-99")["issues"][0]["path"] == "$.task_id"
    assert validate(http, generated, task_id="cp-12")["valid"] is True


def test_bodies_over_4_mib_are_413(http):
    def items(n):
        return {"items": {f"i{i}": {"id": f"i{i}", "value": i % 1000} for i in range(n)}}

    big = items(130_000)  # about 4.8 MB as JSON
    assert_error(http.post("/environments/dummy/episodes", json={"state": big}), 413, "payload_too_large")
    assert_error(http.post("/environments/dummy/seeds/validate", json={"state": big}), 413, "payload_too_large")
    ok = create(http, "dummy", state=items(100_000))  # about 3.6 MB
    assert http.get(f"/episodes/{ok['episode_id']}/state", params={"collections": "items"}).status_code == 200


@pytest.mark.parametrize("task_id", ["ch-01", "ch-02", "ch-04"])
def test_a_task_that_cannot_be_set_up_names_the_missing_seed_path(http, task_id):
    # Codehost's tasks read acme/backend's team: a state without it used to
    # answer a bare "TypeError: 'NoneType' object is not subscriptable".
    state = registry()["codehost"].generate(0)
    state["teams"] = {}
    want = "$.teams['acme/backend']"
    got = validate(http, state, env="codehost", task_id=task_id)
    assert got["valid"] is False and got["issues"][0]["path"] == want, got
    assert "TypeError" not in got["issues"][0]["message"] and "NoneType" not in got["issues"][0]["message"]
    err = assert_error(http.post("/environments/codehost/episodes", json={"state": state, "task_id": task_id}),
                       400, "invalid_request")
    assert want in err["message"] and "NoneType" not in err["message"], err
    assert err["issues"] == got["issues"]
