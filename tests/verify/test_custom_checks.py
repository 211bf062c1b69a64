"""Custom checks at episode create, the vocabulary listing, the rubric judge and 503."""

from __future__ import annotations

import httpx

from tests.conftest import running_server
from tests.fakes import fake_model


def create(http, **body):
    return http.post("/environments/coinpurse/episodes", json={"task_id": "cp-04", "seed": 1, **body})


def test_vocabulary_is_listed_with_a_digest(http):
    body = http.get("/checks").json()
    kinds = {k["kind"]: k for k in body["kinds"]}
    assert {"record_exists", "record_absent", "field_equals", "field_contains", "write_count", "no_writes",
            "action_called", "action_not_called", "output_contains", "output_equals", "rubric"} <= set(kinds)
    assert kinds["field_equals"]["required"] == ["collection", "field", "value"]
    assert kinds["field_equals"]["optional"] == ["where"]
    assert kinds["record_exists"]["required"] == ["collection", "where"]
    assert body["digest"].startswith("sha256:") and http.get("/checks").json()["digest"] == body["digest"]
    for k in kinds.values():
        assert k["passes_when"] and k["example"]["kind"] == k["kind"]


def test_custom_checks_are_scored_after_the_template(http):
    checks = [
        {"kind": "action_called", "action": "list_requests"},
        {"kind": "output_contains", "value": "electric", "weight": 2},
    ]
    ep = create(http, checks=checks, scoring="informative").json()
    assert [c["id"] for c in ep["checks"]] == ["custom-1", "custom-2"]
    assert all(c["source"] == "custom" and c["label"] for c in ep["checks"])
    eid = ep["episode_id"]
    http.post(f"/episodes/{eid}/step", json={"tool": "pay_request", "arguments": {"request_id": "rq-08"}})
    ev = http.post(f"/episodes/{eid}/submit", json={"output": "Paid the Electric bill."}).json()
    rows = {c["id"]: c for c in ev["checks"]}
    assert rows["bill-paid"]["source"] == "template"
    assert rows["custom-1"]["pass"] is False and rows["custom-2"]["pass"] is True
    assert ev["pass"] is False
    # informative: no-collateral held at the start and still holds, so it is not scored:
    # bill-paid 2, one-payment 1, balance 1, custom-1 1, custom-2 2 -> 6 of 7
    assert ev["score"] == round(6 / 7, 2) and ev["scoring"] == "informative"
    # share: no-collateral (1) counts too -> 7 of 8
    assert ev["scores"]["share"] == round(7 / 8, 2) and ev["denominators"] == {"share": 8.0, "informative": 7.0}


def test_replace_template_checks(http):
    ep = create(http, checks=[{"kind": "no_writes", "collection": "contacts"}], replace_template_checks=True).json()
    eid = ep["episode_id"]
    http.post(f"/episodes/{eid}/step", json={"tool": "get_balance"})
    ev = http.post(f"/episodes/{eid}/submit").json()
    # only the client's checks decide: no template check, and no step-budget row
    assert [c["id"] for c in ev["checks"]] == ["custom-1"]
    assert ev["pass"] is True and ev["score"] == 1.0  # already true and still true: passes, and under share earns


def test_bad_checks_name_the_path(http):
    cases = [
        ([{"kind": "record_exists", "collection": "nope", "where": {}}], "checks[0].collection"),
        ([{"kind": "no_writes"}, {"kind": "teleport"}], "checks[1].kind"),
        ([{"kind": "field_equals", "collection": "requests", "field": "status"}], "checks[0]"),
        ([{"kind": "write_count", "min": "two"}], "checks[0].min"),
        ([{"kind": "no_collateral", "allow": [{"collection": "ghosts"}]}], "checks[0].allow[0].collection"),
        ([{"kind": "output_contains", "value": "x", "id": "mine"}], "checks[0].id"),
        ([{"kind": "rubric", "text": "a"}, {"kind": "rubric", "text": "b"}], "at most one rubric"),
        (["not a check"], "checks[0]"),
        # checked against the world: a tool it lacks, fields its records lack
        ([{"kind": "no_writes"}, {"kind": "action_not_called", "action": "send_mony"}], "checks[1].action"),
        ([{"kind": "action_called", "action": "ask_user"}], "checks[0].action"),  # cp-04 has no simulated user
        ([{"kind": "field_equals", "collection": "requests", "field": "stauts", "value": "paid"}], "checks[0].field"),
        ([{"kind": "record_exists", "collection": "requests", "where": {"id": "rq-08", "amount_cent": 5}}],
         "checks[0].where.amount_cent"),
        ([{"kind": "no_collateral", "allow": [{"collection": "requests", "where": {"staus": "paid"}}]}],
         "checks[0].allow[0].where.staus"),
    ]
    for checks, path in cases:
        r = create(http, checks=checks)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request", (checks, r.text)
        assert path in r.json()["error"]["message"], (path, r.json()["error"]["message"])


def test_a_mistyped_action_is_refused_naming_the_path_and_the_tools(http):
    r = create(http, checks=[{"kind": "action_not_called", "action": "sendMoney"}])
    assert r.status_code == 400
    message = r.json()["error"]["message"]
    assert message.startswith("checks[0].action: coinpurse has no tool 'sendMoney'") and "send_money" in message


def test_known_tools_and_fields_are_accepted(http):
    checks = [{"kind": "action_called", "action": "list_requests"},
              {"kind": "field_equals", "collection": "requests", "field": "status", "value": "paid",
               "where": {"id": "rq-08"}}]
    assert create(http, checks=checks).status_code == 201
    # ask_user is a tool of tasks with a simulated user (cp-14)
    r = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-14", "checks": [
        {"kind": "action_called", "action": "ask_user"}]})
    assert r.status_code == 201, r.text


def test_render_turns_checks_into_their_sentences(http):
    body = {"environment": "coinpurse", "checks": [
        {"kind": "action_not_called", "action": "send_money"},
        {"kind": "field_equals", "collection": "requests", "field": "status", "value": "declined",
         "where": {"id": "rq-17"}},
        {"kind": "write_count", "collection": "transactions", "min": 1, "max": 1},
    ]}
    r = http.post("/checks/render", json=body)
    assert r.status_code == 200 and r.text.endswith("\n")
    assert r.json() == {"environment": "coinpurse", "lines": [
        "send_money was not called",
        'A record in requests matching {"id":"rq-17"} has status that equals "declined"',
        "Writes to transactions within 1..1",
    ]}
    # the sentence is the label a custom check gets when it has none
    ep = create(http, checks=body["checks"]).json()
    assert [c["label"] for c in ep["checks"]] == r.json()["lines"]
    bad = http.post("/checks/render", json={"environment": "coinpurse",
                                            "checks": [{"kind": "action_called", "action": "teleport"}]})
    assert bad.status_code == 400 and "checks[0].action" in bad.json()["error"]["message"]
    free = http.post("/checks/render", json={"checks": [{"kind": "action_called", "action": "teleport"}]})
    assert free.json()["lines"] == ["teleport was called"]  # without a world only the shape is checked
    assert http.post("/checks/render", json={"environment": "nowhere", "checks": []}).status_code == 404


def test_rubric_without_judge_is_undecided(http):
    eid = create(http, checks=[{"kind": "rubric", "text": "Was the user told what was paid?"}]).json()["episode_id"]
    http.post(f"/episodes/{eid}/step", json={"tool": "pay_request", "arguments": {"request_id": "rq-08"}})
    ev = http.post(f"/episodes/{eid}/submit", json={"output": "Paid."}).json()
    row = next(c for c in ev["checks"] if c["kind"] == "rubric")
    assert row["pass"] is None and row["detail"].startswith("undecided:")
    assert ev["pass"] is False


def test_rubric_asks_the_judge_model():
    def judge(messages):
        answer = messages[-1]["content"].split("final answer:")[1].split("Question:")[0]
        return "yes\nThe answer says what was paid." if "rq-08" in answer else "no\nIt does not."

    with fake_model(judge) as model:
        env = {"SW_JUDGE_URL": model.url, "SW_JUDGE_MODEL": "judge-1"}
        with running_server(env=env) as url, httpx.Client(base_url=url) as http:
            for output, verdict in (("Paid rq-08.", True), ("Done.", False)):
                eid = create(http, checks=[{"kind": "rubric", "text": "Does the answer say what was paid?"}]
                             ).json()["episode_id"]
                http.post(f"/episodes/{eid}/step", json={"tool": "pay_request", "arguments": {"request_id": "rq-08"}})
                ev = http.post(f"/episodes/{eid}/submit", json={"output": output}).json()
                row = next(c for c in ev["checks"] if c["kind"] == "rubric")
                assert row["pass"] is verdict and "judge-1" in row["detail"]
                assert ev["pass"] is verdict
        assert model.requests and model.requests[0]["model"] == "judge-1"
        assert "Does the answer say what was paid?" in model.requests[0]["messages"][-1]["content"]


def test_verifier_failure_is_503_and_the_episode_stays_open():
    with fake_model(None) as model:  # the judge answers HTTP 500
        env = {"SW_JUDGE_URL": model.url, "SW_JUDGE_MODEL": "judge-1"}
        with running_server(env=env) as url, httpx.Client(base_url=url) as http:
            eid = create(http, checks=[{"kind": "rubric", "text": "Polite?"}]).json()["episode_id"]
            http.post(f"/episodes/{eid}/step", json={"tool": "pay_request", "arguments": {"request_id": "rq-08"}})
            r = http.post(f"/episodes/{eid}/submit", json={"output": "Paid."})
            assert r.status_code == 503
            err = r.json()["error"]
            assert err["code"] == "verifier_unavailable"
            assert err["failure_kind"] == "infra" and err["mask_sample"] is True
            got = http.get(f"/episodes/{eid}").json()
            assert got["status"] == "open" and got["evaluation"] is None
            # the episode can still be stepped, and a retry is scored once the judge is back
            assert http.post(f"/episodes/{eid}/step", json={"tool": "get_balance"}).json()["ok"]
            model.reply = lambda messages: "yes\nFine."
            ev = http.post(f"/episodes/{eid}/submit", json={"output": "Paid."}).json()
            assert ev["pass"] is True and ev["mask_sample"] is False
