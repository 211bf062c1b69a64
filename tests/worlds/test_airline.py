"""The airline world: the seeded state, the tools' refusals, the policy's
numbers, every task's reference solution on seeds 0-49, plausible wrong
answers caught by the check named for them, the fault profiles that matter,
and the simulated member (scripted and llm) on every task.

In-process episodes run through the engine (``Engine`` + ``CreateEpisode``);
the llm user runs against a real server and a fake model on a real socket.
"""

from __future__ import annotations

import re

import httpx
import pytest

from sw_core_ext import Store
from sw_runtime import schemas
from sw_runtime.engine import faults
from sw_runtime.engine.engine import Engine
from sw_runtime.worlds.airline import WORLD, rules
from sw_runtime.worlds.airline.cast import view
from sw_runtime.worlds.airline.tasks import FAULTS
from tests.conftest import running_server
from tests.fakes import fake_model

ID_PATTERNS = {"members": r"mb-\d{4}", "payment_methods": r"pm-\d{4}", "reservations": r"[A-Z2-9]{6}",
               "flights": r"HA\d{4}-2026-06-\d\d", "airports": r"[A-Z]{3}", "fares": r"saver|standard|flex"}


@pytest.fixture(scope="module")
def engine():
    return Engine()


class Run:
    def __init__(self, engine, task_id, seed=0, **create):
        self.engine = engine
        self.ep = engine.create(WORLD.name, schemas.CreateEpisode(task_id=task_id, seed=seed, **create))
        self.setup = self.ep.setup

    def __call__(self, tool, args):
        return self.engine.step(self.ep.id, tool, args)

    def play(self, calls):
        return [self(tool, args) for tool, args in calls]

    def submit(self, output=None):
        return self.engine.submit(self.ep.id, self.setup.output if output is None else output)


def start(seed: int) -> Store:
    return Store(WORLD.generate(seed), collections=WORLD.collections)


def failed(ev) -> list:
    return [c["id"] for c in ev["checks"] if c["pass"] is not True]


def writes_of(calls) -> list:
    return [(t, a) for t, a in calls if t in WORLD.tools_by_name and WORLD.tools_by_name[t].writes]


# -- the world -------------------------------------------------------------------------------------------------------


def test_the_world_meets_the_bar():
    assert [t.id for t in WORLD.tasks] == [f"al-{i:02d}" for i in range(1, 26)]
    assert len({t.title for t in WORLD.tasks}) == 25
    assert sum(t.refusal for t in WORLD.tasks) >= 3
    assert sum("trap" in t.tags for t in WORLD.tasks) >= 3
    assert sorted(FAULTS) == sorted(t.id for t in WORLD.tasks if any(g.startswith("fault:") for g in t.tags))
    assert len(FAULTS) >= 2
    asks, long_ = set(), set()
    for seed in range(50):
        s = start(seed)
        for task in WORLD.tasks:
            setup = task.setup(s.fork())
            calls = [tool for tool, _ in setup.solution]
            if "ask_user" in calls:
                asks.add(task.id)
            if len(calls) >= 6:
                long_.add(task.id)
            assert len(calls) <= task.step_budget, (task.id, seed)
            assert setup.checks[-1].id == "no-collateral" and all(c.id and c.label for c in setup.checks)
            assert setup.hidden_facts and setup.persona, task.id  # every task has a simulated member
            assert setup.output
    assert len(asks) >= 3 and {"al-10", "al-12", "al-13"} <= asks
    assert len(long_) >= 5, long_
    for t in WORLD.tools:
        params = t.definition()["parameters"]
        assert params["additionalProperties"] is False, t.name
        assert t.cls == ("guarded" if t.writes else "safe")
        for prop, spec in params["properties"].items():
            assert spec.get("description"), f"{t.name}.{prop} needs a description"
    assert all(t.preview for t in WORLD.tools if t.writes)  # a sandbox preview for every guarded tool
    assert {t.name for t in WORLD.tools if t.writes} == {
        "book_reservation", "change_flights", "change_cabin", "update_passengers", "update_bags",
        "cancel_reservation", "issue_certificate", "transfer_to_human_agent"}
    for words in ("Saver fares cannot be changed", "24-hour rule", "One certificate per event", "Only the holder",
                  "Passengers travel together", "cents", "ask_user", "$40.00", "180 minutes"):
        assert words in WORLD.policy, words


@pytest.mark.parametrize("seed", range(0, 100, 3))
def test_generator_invariants(seed):
    state = WORLD.generate(seed)
    assert tuple(state) == WORLD.collections and WORLD.state_schema.validate(state) == []
    assert sum(len(v) for v in state.values()) >= 200
    for collection, pattern in ID_PATTERNS.items():
        ids = list(state[collection])
        assert all(re.fullmatch(pattern, rid) for rid in ids), collection
        assert not [(a, b) for a in ids for b in ids if a != b and a.lower() in b.lower()], collection
    # Every status, tier and kind the app has.
    assert {f["status"] for f in state["flights"].values()} == {"scheduled", "delayed", "cancelled", "departed"}
    assert {r["status"] for r in state["reservations"].values()} == {"confirmed", "cancelled", "completed"}
    assert {m["tier"] for m in state["members"].values()} == set(rules.TIERS)
    assert {p["kind"] for p in state["payment_methods"].values()} == {"card", "gift_card", "certificate"}
    assert {r["trip"] for r in state["reservations"].values()} == {"one_way", "round_trip"}
    assert {f["cause"] for f in state["flights"].values() if f["status"] == "cancelled"} & {"weather",
                                                                                           "air_traffic_control"}
    # Look-alikes: members who share a surname, a stale cancelled booking of a live trip's flight.
    surnames = [m["last_name"] for m in state["members"].values()]
    assert len(set(surnames)) < len(surnames)
    live = {r["flights"][0]["flight_id"] for r in state["reservations"].values() if r["status"] == "confirmed"}
    assert any(r["status"] == "cancelled" and r["flights"][0]["flight_id"] in live
               for r in state["reservations"].values())
    for r in state["reservations"].values():
        assert all(type(s["price"]) is int and s["price"] > 0 for s in r["flights"])
        assert rules.paid(r) == (0 if r["status"] == "cancelled" else r["history"][0]["amount"])
        flights = [state["flights"][s["flight_id"]] for s in r["flights"]]
        assert rules.itinerary_problem(flights, r["origin"], r["destination"], r["trip"]) is None, r["id"]
    for f in state["flights"].values():
        assert (f["status"] == "departed") == (f["status"] != "cancelled" and rules.departure(f) <= rules.NOW)


def test_the_seed_varies_what_the_tasks_are_about():
    picks = {t.id: set() for t in WORLD.tasks}
    for seed in range(6):
        s = start(seed)
        for t in WORLD.tasks:
            picks[t.id].add(t.setup(s.fork()).instruction)
    assert all(len(v) == 6 for v in picks.values()), {k: len(v) for k, v in picks.items()}


def test_the_policys_numbers():
    fares = rules.FARES
    flight = {"prices": {"economy": 20000, "business": 52000}}
    assert [rules.fare_price(flight, "economy", fares[f]) for f in ("saver", "standard", "flex")] == [16000, 20000,
                                                                                                        27000]
    assert rules.bag_cost("silver", "economy", 2, 4) == 2 * rules.BAG_FEE  # 1 free each
    assert rules.bag_cost("gold", "business", 1, 3) == 0
    assert rules.change_fee(fares["standard"], "silver", 2) == 15000
    assert rules.change_fee(fares["standard"], "gold", 2) == 0
    member, res = {"tier": "regular"}, {"cabin": "economy", "insurance": False, "passengers": [{}, {}]}
    cancelled = {"status": "cancelled", "cause": "crew", "delay_minutes": 0}
    assert rules.compensation(member, res, cancelled) == 0  # regular, economy, uninsured
    assert rules.compensation(member, {**res, "insurance": True}, cancelled) == 20000
    late = {"status": "departed", "cause": "technical", "delay_minutes": 180}
    assert rules.compensation({"tier": "silver"}, res, late) == 10000
    assert rules.compensation({"tier": "silver"}, res, {**late, "delay_minutes": 175}) == 0
    assert rules.compensation({"tier": "silver"}, res, {**late, "cause": "weather"}) == 0


# -- the reference solutions, and doing nothing ------------------------------------------------------------------------


def test_every_reference_solution_passes_and_doing_nothing_fails_on_seeds_0_to_49(engine):
    for seed in range(50):
        for task in WORLD.tasks:
            run = Run(engine, task.id, seed)
            answers = run.play(run.setup.solution)
            assert all(a["ok"] for a in answers), (task.id, seed, [a for a in answers if not a["ok"]])
            ev = run.submit()
            assert ev["pass"] and ev["score"] == 1, (task.id, seed, failed(ev))
            idle = Run(engine, task.id, seed).submit("")
            assert not idle["pass"], (task.id, seed)


# -- tools --------------------------------------------------------------------------------------------------------------


def _live_trip(v, **kw):
    return next(r for r in v.reservations.values() if v.flying(r) and all(r[k] == x for k, x in kw.items()))


def test_refused_calls_change_nothing(engine):
    s = start(4)
    v = view(s)
    r = _live_trip(v, trip="one_way", fare="standard")
    m = v.owner(r)
    other = next(x for x in v.members.values() if x["id"] != m["id"])
    flown = next(x for x in v.reservations.values() if x["status"] == "confirmed"
                 and rules.flown(v.flight(x["flights"][0])))
    seg = v.flight(r["flights"][0])
    wrong_way = next(f for f in v.flights.values() if f["origin"] != seg["origin"] and rules.bookable(f))
    gift = next(p for p in v.methods.values() if p["kind"] == "gift_card" and p["member_id"] == m["id"]) \
        if v.methods_of(m, "gift_card") else None
    cases = [
        ("change_flights", {"reservation_id": r["id"], "flights": [wrong_way["id"]]}, "invalid_itinerary"),
        ("change_flights", {"reservation_id": "ZZZZZZ", "flights": [seg["id"]]}, "not_found"),
        ("change_flights", {"reservation_id": r["id"], "flights": [seg["id"]]}, "invalid_itinerary"),
        ("cancel_reservation", {"reservation_id": flown["id"], "reason": "other"}, "flown"),
        ("update_passengers", {"reservation_id": r["id"], "passengers": r["passengers"] * 2}, "passenger_count"),
        ("update_bags", {"reservation_id": r["id"], "bags": r["bags"] + 1,
                         "payments": [{"payment_id": v.card(other)["id"], "amount": 99}]}, "amount_mismatch"),
        ("change_cabin", {"reservation_id": r["id"], "cabin": r["cabin"]}, "invalid_request"),
        ("book_reservation", {"member_id": m["id"], "origin": seg["origin"], "destination": seg["destination"],
                              "trip_type": "one_way", "flights": [seg["id"]], "cabin": "economy", "fare": "saver",
                              "passengers": [{"first_name": "A", "last_name": "B", "date_of_birth": "1990-01-01"}],
                              "payments": [{"payment_id": v.card(m)["id"], "amount": 1}]}, "amount_mismatch"),
        ("issue_certificate", {"member_id": other["id"], "reservation_id": r["id"], "flight_id": seg["id"],
                               "amount": 5000}, "not_found"),
        ("get_flight_status", {"flight_number": "HA0000", "date": "2026-06-18"}, "not_found"),
    ]
    if r["bags"]:
        cases.append(("update_bags", {"reservation_id": r["id"], "bags": r["bags"] - 1}, "bags_cannot_decrease"))
    if gift is not None:
        price = rules.fare_price(seg, "economy", rules.FARES["flex"]) * 9
        cases.append(("book_reservation", {
            "member_id": m["id"], "origin": seg["origin"], "destination": seg["destination"], "trip_type": "one_way",
            "flights": [seg["id"]], "cabin": "economy", "fare": "flex", "passengers": [r["passengers"][0]] * 9,
            "payments": [{"payment_id": gift["id"], "amount": price}]}, "no_seats" if seg["seats"]["economy"] < 9
            else "insufficient_balance"))
    run = Run(engine, None, 4)
    for tool, args, code in cases:
        answer = run(tool, args)
        assert answer["ok"] is False and answer["error"]["code"] == code, (tool, answer)
        assert run.engine.episodes[run.ep.id].store.digest() == run.ep.seed_digest, tool


def test_a_change_replacing_a_cancelled_flight_is_free_and_seats_follow(engine):
    s = start(2)
    setup = WORLD.tasks_by_id["al-02"].setup(s.fork())
    run = Run(engine, "al-02", 2)
    change = next(a for t, a in setup.solution if t == "change_flights")
    r = run.setup.solution[1][1]["reservation_id"]
    before = view(s).reservations[r]
    target = view(s).flights[change["flights"][0]]
    out = run("change_flights", change)
    assert out["ok"] and out["result"]["charged"] == 0 and out["result"]["payments"] == before["payments"]
    store = run.engine.episodes[run.ep.id].store
    pax = len(before["passengers"])
    assert store.get("flights", target["id"])["seats"][before["cabin"]] == target["seats"][before["cabin"]] - pax


# -- plausible wrong answers fail the check named for them ------------------------------------------------------------


def _solution_with(setup, tool, **changes):
    return [(t, {**a, **changes} if t == tool else a) for t, a in setup.solution]


@pytest.mark.parametrize("seed", [0, 7])
def test_wrong_answers_fail_their_checks(engine, seed):
    def run(task_id, calls, output=None):
        r = Run(engine, task_id, seed)
        r.play(calls)
        return failed(r.submit(output))

    def setup(task_id):
        return WORLD.tasks_by_id[task_id].setup(start(seed).fork())

    # al-05: cancelling the Saver fare anyway.
    s = setup("al-05")
    rid = s.solution[1][1]["reservation_id"]
    assert {"status-kept", "no-writes", "no-collateral"} <= set(
        run("al-05", [("cancel_reservation", {"reservation_id": rid, "reason": "change_of_plans"})]))
    # al-05: refusing without naming the rule.
    assert run("al-05", s.solution, "Sorry, I can't do that.") == ["told-saver"]
    # al-15: a certificate nobody asked for.
    s = setup("al-15")
    r = view(start(seed)).reservations[s.solution[1][1]["reservation_id"]]
    extra = ("issue_certificate", {"member_id": r["member_id"], "reservation_id": r["id"],
                                   "flight_id": r["flights"][0]["flight_id"], "amount": 10000})
    assert {"no-certificate", "no-collateral"} <= set(run("al-15", [*s.solution, extra]))
    # al-16: a second certificate for the same delay.
    s = setup("al-16")
    flight = s.solution[2][1]
    r = view(start(seed)).reservations[s.solution[1][1]["reservation_id"]]
    again = ("issue_certificate", {"member_id": r["member_id"], "reservation_id": r["id"],
                                   "flight_id": f"{flight['flight_number']}-{flight['date']}", "amount": 5000})
    assert "no-certificate" in run("al-16", [*s.solution, again])
    # al-12: moving both without asking first.
    s = setup("al-12")
    assert run("al-12", [c for c in s.solution if c[0] != "ask_user"]) == ["asked-companion"]
    # al-10: guessing the trip without asking.
    s = setup("al-10")
    assert "asked-which" in run("al-10", [c for c in s.solution if c[0] != "ask_user"])
    # al-11: the cheapest ticket, a Saver, which never allows a change.
    s = setup("al-11")
    book = s.solution[-1][1]
    f = view(start(seed)).flights[book["flights"][0]]
    saver = rules.fare_price(f, "economy", rules.FARES["saver"])
    wrong = _solution_with(s, "book_reservation", fare="saver",
                           payments=[{"payment_id": book["payments"][0]["payment_id"], "amount": saver}])
    assert "booked" in run("al-11", wrong)
    # al-02: the delay's amount for a cancellation.
    s = setup("al-02")
    cert = next(a for t, a in s.solution if t == "issue_certificate")
    assert run("al-02", _solution_with(s, "issue_certificate", amount=cert["amount"] // 2)) == ["compensated"]
    # al-06: compensating a weather delay.
    s = setup("al-06")
    r = view(start(seed)).reservations[s.solution[1][1]["reservation_id"]]
    flight = s.solution[2][1]
    pay = ("issue_certificate", {"member_id": r["member_id"], "reservation_id": r["id"],
                                 "flight_id": f"{flight['flight_number']}-{flight['date']}", "amount": 5000})
    assert {"no-certificate", "no-collateral"} <= set(run("al-06", [*s.solution, pay]))
    # al-09: cancelling a relative's reservation.
    s = setup("al-09")
    rid = s.solution[1][1]["reservation_id"]
    assert "status-kept" in run("al-09", [*s.solution, ("cancel_reservation",
                                                        {"reservation_id": rid, "reason": "health"})])
    # al-18: cancelling with a reason that is not true.
    s = setup("al-18")
    assert run("al-18", _solution_with(s, "cancel_reservation", reason="airline_cancelled")) == ["true-reason"]


# -- fault profiles: a careful agent reads before redoing a write that timed out -------------------------------------


def _faulted_seed(task_id: str, profile: str) -> int:
    """A seed on which the reference solution's write is hit by the profile."""
    for seed in range(200):
        setup = WORLD.tasks_by_id[task_id].setup(start(seed).fork())
        step = next(i for i, (t, _a) in enumerate(setup.solution, 1) if t in WORLD.tools_by_name
                    and WORLD.tools_by_name[t].writes)
        if faults.hits(profile, seed, step) and not faults.hits(profile, seed, step + 1):
            return seed
    raise AssertionError("no seed faults the write")


@pytest.mark.parametrize("task_id", sorted(FAULTS))
def test_a_timeout_after_commit_needs_a_read_before_redoing(engine, task_id):
    profile = FAULTS[task_id]
    seed = _faulted_seed(task_id, profile)

    def play(careful: bool):
        run = Run(engine, task_id, seed, fault_profile=profile)
        member = run.setup.solution[0][1].get("member_id")
        for tool, args in run.setup.solution:
            answer = run(tool, args)
            if not answer["ok"] and answer["error"]["code"] == "timeout":
                if careful:  # it may have been applied: look before redoing it
                    seen = run("get_member", {"member_id": member})
                    assert seen["ok"]
                    before = start(seed).get("members", member)
                    if seen["result"]["reservations"] != before["reservations"] or len(
                            seen["result"]["payment_methods"]) != len(before["payment_methods"]):
                        continue
                answer = run(tool, args)
            assert answer["ok"], answer
        return run.submit()

    careless = play(careful=False)
    assert not careless["pass"] and {"one-certificate", "one-booking"} & set(failed(careless))
    careful = play(careful=True)
    assert careful["pass"] and careful["score"] == 1, failed(careful)


# -- the simulated member ---------------------------------------------------------------------------------------------


def test_the_scripted_member_answers_what_only_they_know(engine):
    for task_id in ("al-10", "al-12", "al-13"):
        run = Run(engine, task_id, 3)
        ask = next(a for t, a in run.setup.solution if t == "ask_user")
        answer = run("ask_user", ask)["result"]["answer"]
        assert answer != "" and "not sure" not in answer
        assert "go ahead" in run("ask_user", {"question": "Shall I go ahead?"})["result"]["answer"]
        assert run.setup.hidden_facts and "ask_user" in run.ep.tool_names()


def test_the_llm_member_plays_every_task():
    def person(messages):
        system = messages[0]["content"]
        assert "Halcyon Air" in system and "member id" in system
        return "Yes, please go ahead."

    with fake_model(person) as model:
        env = {"SW_USER_SIM": "sim-1", "SW_USER_SIM_URL": model.url}
        with running_server(env=env) as url, httpx.Client(base_url=url, timeout=30) as http:
            for task in WORLD.tasks:
                ep = http.post("/environments/airline/episodes",
                               json={"task_id": task.id, "seed": 1, "user_simulator": "llm"}).json()
                got = http.post(f"/episodes/{ep['episode_id']}/step",
                                json={"tool": "ask_user", "arguments": {"question": "Shall I go ahead?"}}).json()
                assert got["ok"] and got["result"]["answer"] == "Yes, please go ahead.", task.id
            assert len(model.requests) == len(WORLD.tasks)


def test_a_sandbox_episode_previews_every_write_and_changes_nothing(engine):
    for task_id in ("al-02", "al-13", "al-04", "al-22"):
        run = Run(engine, task_id, 5, mode="sandbox")
        answers = run.play(run.setup.solution)
        for (tool, _args), answer in zip(run.setup.solution, answers):
            t = WORLD.tools_by_name.get(tool)
            assert answer["ok"], answer
            if t is not None and t.writes:
                assert answer["result"]["sandbox"] is True and t.preview in answer["result"], tool
        assert run.engine.episodes[run.ep.id].store.digest() == run.ep.seed_digest


# -- the doors: /batch, fork, snapshots, the durable log's replay, /v1/runs and MCP ---------------------------------


@pytest.mark.slow
def test_airline_episodes_go_through_every_door(tmp_path):
    import signal

    from sandworld.local import local_server_process
    from sw_runtime.mcp import mcp_name
    from tests.mcp.test_server import mcp

    rebook = WORLD.tasks_by_id["al-02"].setup(start(1).fork())
    book = WORLD.tasks_by_id["al-13"].setup(start(1).fork())
    with local_server_process("--data-dir", str(tmp_path)) as (url, proc):
        with httpx.Client(base_url=url, timeout=60) as http:
            made = http.post("/batch/episodes", json={"episodes": [
                {"environment": "airline", "task_id": "al-02", "seed": 1},
                {"environment": "airline", "task_id": "al-13", "seed": 1}]}).json()["results"]
            a, b = (r["episode_id"] for r in made)
            calls = [{"episode_id": a, "tool": t, "arguments": x} for t, x in rebook.solution[:4]]
            calls += [{"episode_id": b, "tool": t, "arguments": x} for t, x in book.solution]
            assert all(r["ok"] for r in http.post("/batch", json={"calls": calls}).json()["results"])
            child = http.post(f"/episodes/{a}/fork", json={"n": 1}).json()["episodes"][0]["episode_id"]
            for t, x in rebook.solution[4:]:
                assert http.post(f"/episodes/{child}/step", json={"tool": t, "arguments": x}).json()["ok"]
            snap = http.post(f"/episodes/{child}/snapshots").json()["snapshot_id"]
            again = http.post("/environments/airline/episodes", json={"snapshot_id": snap}).json()
            assert again["seed_digest"] == http.get(f"/episodes/{child}").json()["digest"]
            scored = http.post("/batch/submit", json={"episodes": [
                {"episode_id": child, "output": rebook.output}, {"episode_id": b, "output": book.output}]}).json()
            assert [r["pass"] for r in scored["results"]] == [True, True]
            before = {e: http.get(f"/episodes/{e}").json() for e in (a, child, b)}
            proc.send_signal(signal.SIGKILL)
            proc.wait()
    with local_server_process("--data-dir", str(tmp_path)) as (url, _):
        with httpx.Client(base_url=url, timeout=60) as http:
            for eid, was in before.items():  # the log replays every call to the same digests
                now = http.get(f"/episodes/{eid}").json()
                assert [now[k] for k in ("digest", "steps", "seed_digest")] == [was[k] for k in
                                                                                 ("digest", "steps", "seed_digest")]
                assert [e["state_digest"] for e in now["trace"]] == [e["state_digest"] for e in was["trace"]]
            root = url.removesuffix("/api/v1")
            transfer = WORLD.tasks_by_id["al-22"].setup(start(2).fork())
            run = httpx.post(root + "/v1/runs", headers={"authorization": "Bearer any-key"}, json={
                "environment": "airline", "task": "A trip that has begun", "seed": 2}).json()

            async def work(s):
                return [await s.call_tool(mcp_name(t), x) for t, x in transfer.solution]

            assert [r.isError for r in mcp(run["mcp_url"], run["token"], work)] == [False] * 3
            done = httpx.post(f"{root}/v1/runs/{run['id']}/finish", headers={"authorization": "Bearer any-key"},
                              json={"output": transfer.output}).json()
            assert done["evaluation"]["passed"] is True
