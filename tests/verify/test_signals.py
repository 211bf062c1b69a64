"""Dense signals: values on a hand-worked coinpurse episode, and absence when off."""

from __future__ import annotations

SIGNAL_FIELDS = {"schema_valid", "state_mutated", "progress", "progress_delta", "reference_progress",
                 "reference_progress_delta", "collateral_violation", "fault"}


def start(http, task_id, seed, **extra):
    r = http.post("/environments/coinpurse/episodes", json={"task_id": task_id, "seed": seed, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def step(http, eid, tool, **arguments):
    r = http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": arguments})
    assert r.status_code == 200, r.text
    return r.json()


def test_signals_on_a_hand_worked_cp04_episode(http):
    # cp-04 seed 1: pay Theo's electric bill, rq-08. Under the informative rule
    # the scored checks at the start are bill-paid (weight 2), one-payment (1),
    # balance (1); no-collateral already passes, so it is not scored while it
    # holds. The reference solution makes three record-level changes: rq-08
    # updated, one transaction created, the account updated.
    ep = start(http, "cp-04", 1, signals=True, scoring="informative")
    assert ep["training"] is True and ep["signals"] is True
    eid = ep["episode_id"]

    s1 = step(http, eid, "list_requests", status="pending")["signals"]
    assert s1 == {"schema_valid": True, "state_mutated": False, "progress": 0.0, "progress_delta": 0.0,
                  "reference_progress": 0.0, "reference_progress_delta": 0.0,
                  "collateral_violation": False, "fault": None}

    s2 = step(http, eid, "pay_request", request_id="rq-08")["signals"]
    assert s2 == {"schema_valid": True, "state_mutated": True, "progress": 1.0, "progress_delta": 1.0,
                  "reference_progress": 1.0, "reference_progress_delta": 1.0,
                  "collateral_violation": False, "fault": None}

    # A contact nobody asked for: collateral. no-collateral now fails, so it
    # comes back into the denominator: 4 of 5.
    s3 = step(http, eid, "add_contact", name="Zed Example", handle="@zed-example")["signals"]
    assert s3["state_mutated"] is True and s3["collateral_violation"] is True
    assert s3["progress"] == 0.8 and s3["progress_delta"] == -0.2
    assert s3["reference_progress"] == 1.0 and s3["reference_progress_delta"] == 0.0

    s4 = step(http, eid, "pay_request", request_id=8)["signals"]  # wrong type: fails the schema
    assert s4["schema_valid"] is False and s4["state_mutated"] is False and s4["collateral_violation"] is False

    s5 = step(http, eid, "get_balance")["signals"]
    assert s5["collateral_violation"] is False and s5["progress"] == 0.8  # a read after collateral is not collateral

    trace = http.get(f"/episodes/{eid}").json()["trace"]
    assert [e["signals"] for e in trace] == [s1, s2, s3, s4, s5]


def test_reference_progress_is_dense_midway(http):
    # cp-12 seed 1: pay rq-16, decline its copy rq-17: four reference changes.
    eid = start(http, "cp-12", 1, signals=True)["episode_id"]
    a = step(http, eid, "decline_request", request_id="rq-17")["signals"]
    assert a["reference_progress"] == 0.25 and a["collateral_violation"] is False
    b = step(http, eid, "pay_request", request_id="rq-16")["signals"]
    assert b["reference_progress"] == 1.0 and b["reference_progress_delta"] == 0.75
    assert b["progress"] == 1.0


def test_signals_in_batch_results(http):
    eid = start(http, "cp-04", 1, signals=True)["episode_id"]
    res = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "pay_request",
                                               "arguments": {"request_id": "rq-08"}}]}).json()["results"]
    assert set(res[0]["signals"]) == SIGNAL_FIELDS and res[0]["signals"]["progress"] == 1.0


def test_no_signal_field_anywhere_without_signals(http):
    ep = start(http, "cp-04", 1)
    assert ep["training"] is False
    eid = ep["episode_id"]
    answers = [step(http, eid, "pay_request", request_id="rq-08"), step(http, eid, "teleport")]
    answers += http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "get_balance"}]}).json()["results"]
    got = http.get(f"/episodes/{eid}").json()
    ev = http.post(f"/episodes/{eid}/submit").json()
    text = str([answers, got, ev])
    for field in SIGNAL_FIELDS - {"fault"}:
        assert field not in text
    assert all("signals" not in a for a in answers) and all("signals" not in e for e in got["trace"])


def test_a_fork_and_a_dry_run_never_touch_the_source_signals(http):
    ep = start(http, "cp-04", 1, signals=True)
    eid = ep["episode_id"]
    child = http.post(f"/episodes/{eid}/fork", json={"n": 1}).json()["episodes"][0]["episode_id"]
    # collateral in the child, and previewed collateral in the source
    assert step(http, child, "add_contact", name="Zed Example", handle="@zed-example")["signals"]["collateral_violation"]
    preview = http.post(f"/episodes/{eid}/step", json={"tool": "add_contact", "dry_run": True,
                                                       "arguments": {"name": "Zed", "handle": "@zed-x"}}).json()
    assert preview["signals"]["collateral_violation"] is True
    # the source did nothing wrong: paying the bill scores it fully
    s = step(http, eid, "pay_request", request_id="rq-08")["signals"]
    assert s["progress"] == 1.0 and s["collateral_violation"] is False
    c = step(http, child, "pay_request", request_id="rq-08")["signals"]
    assert c["progress"] == 0.8  # the child's own collateral still counts against it


def test_progress_follows_the_share_rule_by_default(http):
    # cp-04 seed 1 under share: no-collateral (1 of 5) holds from the start, so
    # progress starts at 0.2; paying the bill makes it 1.0, collateral 0.8.
    eid = start(http, "cp-04", 1, signals=True)["episode_id"]
    assert step(http, eid, "list_requests", status="pending")["signals"]["progress"] == 0.2
    assert step(http, eid, "pay_request", request_id="rq-08")["signals"]["progress"] == 1.0
    s3 = step(http, eid, "add_contact", name="Zed Example", handle="@zed-example")["signals"]
    assert s3["progress"] == 0.8 and s3["progress_delta"] == -0.2
