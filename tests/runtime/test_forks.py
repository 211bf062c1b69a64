"""Forking live episodes, against a real server."""

from __future__ import annotations

from sw_core_ext import Store

from tests.runtime.test_api import assert_error, create


def step(http, eid, tool, **arguments):
    r = http.post(f"/episodes/{eid}/step", json={"tool": tool, "arguments": arguments})
    assert r.status_code == 200, r.text
    return r.json()


def fork(http, eid, n=1, **kw):
    r = http.post(f"/episodes/{eid}/fork", json={"n": n}, **kw)
    assert r.status_code == 201, r.text
    return r.json()


def show(http, eid):
    r = http.get(f"/episodes/{eid}")
    assert r.status_code == 200, r.text
    return r.json()


def value(http, eid, key):
    return http.get(f"/episodes/{eid}/state", params={"collections": "items"}).json()["collections"]["items"][key][
        "value"]


def test_fork_answers_n_episodes_at_the_source_state(http):
    eid = create(http, task_id="dm-01", seed=1)["episode_id"]
    step(http, eid, "set", key="it-00", value=42)
    src = show(http, eid)
    body = fork(http, eid, 3)
    assert body["forked_from"] == eid and body["steps"] == 1 and body["digest"] == src["digest"]
    kids = body["episodes"]
    assert len(kids) == 3 and len({k["episode_id"] for k in kids} | {eid}) == 4
    for k in kids:
        assert k["episode_id"].startswith("ep_") and k["forked_from"] == eid
        assert k["steps"] == 1 and k["digest"] == src["digest"] and k["now"] == "2026-01-01T00:00:07.000Z"
        assert k["next"]["step"] == f"/api/v1/episodes/{k['episode_id']}/step"


def test_fork_carries_task_clock_trace_and_settings(http):
    src = create(http, "coinpurse", task_id="cp-12", seed=2, signals=True, agent_name="grpo")
    eid = src["episode_id"]
    step(http, eid, "list_requests", status="pending")
    step(http, eid, "pay_request", request_id="rq-16")
    before = show(http, eid)
    kid = fork(http, eid)["episodes"][0]["episode_id"]
    got = show(http, kid)
    for field in ("environment", "task_id", "seed", "agent_name", "status", "steps", "step_limit", "step_budget",
                  "now", "signals", "fault_profile", "seed_digest", "digest", "start", "snapshot_id"):
        assert got[field] == before[field], field
    assert got["forked_from"] == eid and before["forked_from"] is None
    assert [dict(e, inherited=True) for e in before["trace"]] == got["trace"]
    assert all("inherited" not in e for e in before["trace"])
    # The clock goes on from the prefix: the fork's first own call is step 3.
    nxt = step(http, kid, "decline_request", request_id="rq-17")
    assert nxt["step"] == 3 and nxt["at"] == "2026-03-05T18:00:21.000Z" and "signals" in nxt
    trace = show(http, kid)["trace"]
    assert [e.get("inherited", False) for e in trace] == [True, True, False]
    after = show(http, eid)
    assert after.pop("expires_at") >= before.pop("expires_at")  # a fork is a use: the source lives on from it
    assert after == before  # the source was not modified


def test_fork_isolation_across_three_generations(http):
    """Parent, children and grandchildren each write; no write shows anywhere else."""
    parent = create(http, seed=3)["episode_id"]
    start = {k: value(http, parent, k) for k in ("it-01", "it-02", "it-03", "it-04")}
    step(http, parent, "set", key="it-00", value=1)
    p_digest = show(http, parent)["digest"]

    kids = [k["episode_id"] for k in fork(http, parent, 2)["episodes"]]
    for i, kid in enumerate(kids):
        assert show(http, kid)["digest"] == p_digest
        step(http, kid, "set", key="it-01", value=100 + i)
    k_digests = [show(http, k)["digest"] for k in kids]
    assert len({p_digest, *k_digests}) == 3
    assert show(http, parent)["digest"] == p_digest

    grandkids = [g["episode_id"] for g in fork(http, kids[0], 2)["episodes"]]
    for i, g in enumerate(grandkids):
        assert show(http, g)["digest"] == k_digests[0] and show(http, g)["steps"] == 2
        step(http, g, "set", key="it-02", value=200 + i)
    g_digests = [show(http, g)["digest"] for g in grandkids]
    assert len({p_digest, *k_digests, *g_digests}) == 5
    assert show(http, parent)["digest"] == p_digest
    assert [show(http, k)["digest"] for k in kids] == k_digests

    # Writes after the fork, in the parent and in a child, reach no descendant.
    step(http, parent, "set", key="it-03", value=7)
    step(http, kids[0], "set", key="it-04", value=8)
    assert show(http, kids[1])["digest"] == k_digests[1]
    assert [show(http, g)["digest"] for g in grandkids] == g_digests

    assert value(http, parent, "it-01") == start["it-01"]
    assert [value(http, k, "it-01") for k in kids] == [100, 101]
    assert [value(http, g, "it-01") for g in grandkids] == [100, 100]
    assert [value(http, g, "it-02") for g in grandkids] == [200, 201]
    assert value(http, kids[0], "it-02") == value(http, kids[1], "it-02") == start["it-02"]
    assert [value(http, e, "it-03") for e in (*kids, *grandkids)] == [start["it-03"]] * 4
    assert [value(http, e, "it-04") for e in (kids[1], *grandkids)] == [start["it-04"]] * 3
    # Every episode's digest is the digest of the records it holds.
    for eid in (parent, *kids, *grandkids):
        dump = http.get(f"/episodes/{eid}/state").json()
        assert Store(dump["collections"]).digest() == dump["digest"] == show(http, eid)["digest"]
    assert [e.get("inherited", False) for e in show(http, grandkids[1])["trace"]] == [True, True, False]


def test_a_fork_is_scored_against_the_true_start(http):
    eid = create(http, "coinpurse", task_id="cp-12", seed=2)["episode_id"]
    step(http, eid, "list_requests", status="pending")
    step(http, eid, "pay_request", request_id="rq-16")
    good, bad = (k["episode_id"] for k in fork(http, eid, 2)["episodes"])
    step(http, good, "decline_request", request_id="rq-17")
    step(http, bad, "pay_request", request_id="rq-17")
    ev_good = http.post(f"/episodes/{good}/submit").json()
    ev_bad = http.post(f"/episodes/{bad}/submit").json()
    assert ev_good["pass"] is True and ev_good["score"] == 1.0 and ev_good["steps"] == 3
    assert ev_good["write_steps"] == 2  # the inherited payment counts
    assert ev_good["state_diff"]["requests"]["updated"] == ["rq-16", "rq-17"]
    assert ev_bad["pass"] is False
    assert {c["id"] for c in ev_bad["checks"] if not c["pass"]} >= {"one-payment", "copy-declined"}
    assert show(http, eid)["status"] == "open" and show(http, eid)["steps"] == 2


def test_forks_of_a_faulted_episode_fault_alike(http):
    """Fault profile, stale-read state and clock carry over: forks answer alike."""
    eid = create(http, seed=4, fault_profile="stale_read")["episode_id"]
    step(http, eid, "set", key="it-00", value=5)
    step(http, eid, "set", key="it-00", value=6)
    kids = [k["episode_id"] for k in fork(http, eid, 2)["episodes"]]
    answers = {e: [step(http, e, "get", key="it-00") for _ in range(6)] for e in [eid, *kids]}
    assert answers[kids[0]] == answers[kids[1]] == answers[eid]
    assert show(http, kids[0])["fault_profile"] == "stale_read"


def test_fork_n_from_1_to_1024(http):
    eid = create(http, seed=5)["episode_id"]
    for n in (0, -1, 1025, 10**9):
        err = assert_error(http.post(f"/episodes/{eid}/fork", json={"n": n}), 400, "invalid_request")
        assert "1 to 1024" in err["message"]
    assert_error(http.post(f"/episodes/{eid}/fork", json={"n": "2"}), 400, "invalid_request")
    assert_error(http.post(f"/episodes/{eid}/fork", json={"n": 2, "m": 1}), 400, "invalid_request")
    r = http.post(f"/episodes/{eid}/fork")  # no body: one fork
    assert r.status_code == 201 and len(r.json()["episodes"]) == 1
    many = fork(http, eid, 1024)["episodes"]
    assert len({k["episode_id"] for k in many}) == 1024


def test_fork_of_a_closed_or_unknown_episode(http):
    eid = create(http, seed=6)["episode_id"]
    http.post(f"/episodes/{eid}/submit")
    assert_error(http.post(f"/episodes/{eid}/fork", json={"n": 2}), 409, "episode_closed")
    assert_error(http.post("/episodes/ep_nope/fork", json={"n": 2}), 404, "not_found")


def test_a_fork_keeps_the_simulated_user(http):
    """A task with details only the user knows: the fork still offers ask_user,
    and the question asked in the prefix counts for the fork's checks."""
    from sw_runtime.worlds import registry

    world = registry()["coinpurse"]
    setup = world.tasks_by_id["cp-13"].setup(Store(world.generate(1), collections=world.collections))
    eid = create(http, "coinpurse", task_id="cp-13", seed=1)["episode_id"]
    (ask, ask_args), *rest = setup.solution
    assert ask == "ask_user" and step(http, eid, ask, **ask_args)["ok"] is True
    kid = fork(http, eid)["episodes"][0]["episode_id"]
    assert show(http, kid)["user_simulator"] == "scripted"
    assert step(http, kid, ask, **ask_args)["result"] == show(http, eid)["trace"][0]["result"]
    for tool, args in rest:
        assert step(http, kid, tool, **args)["ok"] is True
    ev = http.post(f"/episodes/{kid}/submit", json={"output": setup.output}).json()
    assert ev["pass"] is True, [c for c in ev["checks"] if not c["pass"]]


def test_bench_fork_runs():
    """bench/bench_fork.py stays runnable (tiny sizes; no timing is asserted)."""
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "bench" / "bench_fork.py"), "--large", "2000", "--repeat", "20",
                        "--group", "4"], capture_output=True, text=True, timeout=120, cwd=root)
    assert r.returncode == 0, r.stderr
    assert "fork n=1" in r.stdout and "worst fork ratio" in r.stdout
