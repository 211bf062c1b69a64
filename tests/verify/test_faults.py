"""Fault profiles: deterministic from (seed, profile, step), each with its effect."""

from __future__ import annotations

import pytest

from sw_runtime.engine import faults

PROFILES = ["timeout_after_commit", "timeout_before_commit", "rate_limited", "server_error", "stale_read"]
STEPS = 24


def start(http, seed, profile):
    r = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-04", "seed": seed, "fault_profile": profile})
    assert r.status_code == 201, r.text
    return r.json()


def write(http, eid, i):
    # request_money always succeeds on a real contact, so any failure is the fault's.
    return http.post(f"/episodes/{eid}/step", json={"tool": "request_money", "arguments": {
        "contact_id": "c-001", "amount": 100 + i, "note": f"test {i}"}}).json()


def read(http, eid):
    return http.post(f"/episodes/{eid}/step", json={"tool": "list_outgoing_requests", "arguments": {}}).json()


def run(http, seed, profile):
    """Alternate writes (odd steps) and reads (even steps); answer each step's answer and the trace."""
    eid = start(http, seed, profile)["episode_id"]
    answers = []
    for i in range(STEPS // 2):
        answers.append(write(http, eid, i))
        answers.append(read(http, eid))
    return answers, http.get(f"/episodes/{eid}").json()["trace"]


def test_profiles_are_listed(http):
    listed = {p["name"]: p for p in http.get("/fault-profiles").json()["fault_profiles"]}
    assert set(listed) == set(PROFILES)
    assert all(p["description"] for p in listed.values())


def test_unknown_profile_is_400(http):
    r = http.post("/environments/coinpurse/episodes", json={"fault_profile": "meteor"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_request"
    assert "timeout_after_commit" in r.json()["error"]["message"]


@pytest.mark.parametrize("profile", PROFILES)
def test_same_seed_same_faulted_steps(http, profile):
    a, _ = run(http, 5, profile)
    b, _ = run(http, 5, profile)
    c, _ = run(http, 6, profile)
    faulted = [x["step"] for x in a if x["ok"] is False or x.get("error")]
    assert faulted == [x["step"] for x in b if x["ok"] is False or x.get("error")]
    assert a == b
    expected = [n for n in range(1, STEPS + 1) if faults.hits(profile, 5, n)]
    other = [n for n in range(1, STEPS + 1) if faults.hits(profile, 6, n)]
    assert expected != other  # the seed matters
    applicable = {"write": range(1, STEPS + 1, 2), "read": range(2, STEPS + 1, 2), "any": range(1, STEPS + 1)}
    hit = [n for n in expected if n in applicable[faults.PROFILES[profile].applies_to]]
    assert hit, "the test sequence should meet at least one fault"
    _, trace_a = run(http, 5, profile)
    assert [e["seq"] for e in trace_a if e.get("fault")] == hit
    assert c != a


@pytest.mark.parametrize("profile", ["timeout_after_commit", "timeout_before_commit"])
def test_timeouts(http, profile):
    answers, trace = run(http, 5, profile)
    faulted = [e for e in trace if e.get("fault")]
    assert faulted
    for e in faulted:
        assert e["ok"] is False and e["error"]["code"] == "timeout"
        assert "may or may not have been applied" in e["error"]["message"]
        assert e["mutated"] is (profile == "timeout_after_commit")
        prev = trace[e["seq"] - 2]["state_digest"] if e["seq"] > 1 else None
        if prev is not None:
            assert (e["state_digest"] != prev) is (profile == "timeout_after_commit")


def test_rate_limited_and_server_error_apply_nothing(http):
    for profile, code in (("rate_limited", "rate_limited"), ("server_error", "server_error")):
        _, trace = run(http, 5, profile)
        faulted = [e for e in trace if e.get("fault")]
        assert faulted
        for e in faulted:
            assert e["error"]["code"] == code and e["mutated"] is False
            if code == "rate_limited":
                assert e["error"]["retry_after"] == 2
            if e["seq"] > 1:
                assert e["state_digest"] == trace[e["seq"] - 2]["state_digest"]


def test_stale_read_misses_the_latest_write(http):
    answers, trace = run(http, 5, "stale_read")
    stale = [a for a in answers if a["step"] % 2 == 0 and faults.hits("stale_read", 5, a["step"])]
    fresh = [a for a in answers if a["step"] % 2 == 0 and not faults.hits("stale_read", 5, a["step"])]
    assert stale and fresh
    for a in stale + fresh:
        notes = {r["note"] for r in a["result"]["requests"]}
        latest = f"test {a['step'] // 2 - 1}"
        assert a["ok"] is True
        assert (latest in notes) is (a in fresh)
