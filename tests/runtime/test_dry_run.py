"""Dry runs (``"dry_run": true`` on step and in /batch), against a real server."""

from __future__ import annotations

from tests.runtime.test_api import assert_error, create
from tests.runtime.test_forks import show, step

# Seed 2 of coinpurse: rq-16 and rq-17 are a pending duplicate pair that can be
# paid and declined; c-012 is Luca Romano, a verified, unblocked contact.
WRITES = [
    ("pay_request", {"request_id": "rq-16"}, {"requests": ["rq-16"], "transactions": ["tx-s001"], "account": ["acct"]}),
    ("decline_request", {"request_id": "rq-17"}, {"requests": ["rq-17"]}),
    ("send_money", {"contact_id": "c-012", "amount": 1250, "note": "Lunch"},
     {"transactions": ["tx-s001"], "account": ["acct"]}),
    ("request_money", {"contact_id": "c-012", "amount": 800, "note": "Cab"}, {"outgoing": ["out-s001"]}),
    ("add_contact", {"handle": "@new-friend", "name": "New Friend"}, {"contacts": ["c-s001"]}),
]


def changed_ids(diff: dict) -> dict:
    return {c: sorted(d["created"] + d["updated"] + d["removed"]) for c, d in diff.items()}


def state_digest(http, eid) -> str:
    return http.get(f"/episodes/{eid}/state").json()["digest"]


def test_every_coinpurse_write_tool_previews_without_changing_anything(http):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    before = show(http, eid)
    assert before["steps"] == 0
    for tool, args, touched in WRITES:
        r = http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": args, "dry_run": True})
        assert r.status_code == 200, r.text
        pre = r.json()
        assert pre["ok"] is True and pre["dry_run"] is True, (tool, pre)
        assert pre["step"] == 1 and pre["at"] == "2026-03-05T18:00:07.000Z"
        assert changed_ids(pre["would_change"]) == touched, tool
        assert pre["would_digest"].startswith("sha256:") and pre["would_digest"] != before["digest"]
        now = show(http, eid)
        assert now["digest"] == before["digest"] == state_digest(http, eid), tool
        assert now["steps"] == 0 and now["trace"] == [], tool


def test_a_preview_is_what_the_call_then_does(http):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    for n, (tool, args, _touched) in enumerate(WRITES, 1):
        pre = http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": args, "dry_run": True}).json()
        real = step(http, eid, tool, **args)
        would = {k: pre.pop(k) for k in ("dry_run", "would_change", "would_digest")}
        assert pre == real and real["step"] == n, tool
        got = show(http, eid)
        assert got["digest"] == would["would_digest"] == got["trace"][-1]["state_digest"], tool


def test_dry_run_inside_batch(http):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    other = create(http, "coinpurse", seed=2)["episode_id"]
    before = show(http, eid)
    calls = [{"episode_id": eid, "tool": t, "arguments": a, "dry_run": True} for t, a, _ in WRITES]
    calls.append({"episode_id": other, "tool": "decline_request", "arguments": {"request_id": "rq-17"}})
    r = http.post("/batch", json={"calls": calls})
    assert r.status_code == 200, r.text
    res = r.json()["results"]
    for (tool, _args, touched), got in zip(WRITES, res):
        assert got["episode_id"] == eid and got["ok"] is True and got["dry_run"] is True, tool
        assert got["step"] == 1 and changed_ids(got["would_change"]) == touched, tool
        assert got["would_digest"] != before["digest"]
    assert "dry_run" not in res[-1] and res[-1]["step"] == 1  # a real call beside them
    after = show(http, eid)
    assert after["digest"] == before["digest"] and after["steps"] == 0 and after["trace"] == []
    assert show(http, other)["steps"] == 1


def test_refused_and_read_calls_would_change_nothing(http):
    eid = create(http, "coinpurse", seed=2)["episode_id"]
    digest = show(http, eid)["digest"]
    for tool, args in [("pay_request", {"request_id": "rq-99"}), ("send_money", {"amount": 5}),
                       ("get_balance", {}), ("teleport", {})]:
        pre = http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": args, "dry_run": True}).json()
        assert pre["dry_run"] is True and pre["would_change"] == {} and pre["would_digest"] == digest, tool
    assert show(http, eid)["steps"] == 0


def test_dry_run_leaves_signals_and_faults_alone(http):
    """The episode's signal state and fault schedule are as if no preview happened."""
    a = create(http, "coinpurse", task_id="cp-12", seed=2, signals=True)["episode_id"]
    b = create(http, "coinpurse", task_id="cp-12", seed=2, signals=True)["episode_id"]
    for tool, args, _ in WRITES[:2]:
        http.post(f"/episodes/{a}/step", json={"tool": tool, "arguments": args, "dry_run": True})
    for tool, args, _ in WRITES[:2]:
        assert step(http, a, tool, **args) == step(http, b, tool, **args)
    f = create(http, seed=4, fault_profile="server_error")["episode_id"]
    g = create(http, seed=4, fault_profile="server_error")["episode_id"]
    faulted = []
    for _ in range(8):
        pre = http.post(f"/episodes/{f}/step", json={"tool": "get", "arguments": {"key": "it-01"}, "dry_run": True})
        real = step(http, f, "get", key="it-01")
        assert {k: v for k, v in pre.json().items() if not k.startswith(("dry_run", "would_"))} == real
        assert real == step(http, g, "get", key="it-01")
        faulted.append(not real["ok"])
    assert faulted == [False] * 4 + [True] * 3 + [False]  # seed 4's schedule; previews included


def test_dry_run_on_a_closed_or_full_episode_is_refused_like_a_step(http):
    eid = create(http, seed=1)["episode_id"]
    http.post(f"/episodes/{eid}/submit")
    body = {"tool": "noop", "dry_run": True}
    assert_error(http.post(f"/episodes/{eid}/step", json=body), 409, "episode_closed")
    assert_error(http.post("/episodes/ep_nope/step", json=body), 404, "not_found")
    res = http.post("/batch", json={"calls": [{"episode_id": eid, **body}]}).json()["results"]
    assert res[0]["ok"] is False and res[0]["error"]["code"] == "episode_closed"
    assert_error(http.post(f"/episodes/{eid}/step", json={"tool": "noop", "dry_run": "yes"}), 400,
                 "invalid_request")
