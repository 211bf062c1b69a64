"""Billing's episodes through every door a world has: /batch, forks, snapshots,
sandbox mode, MCP and a restart on the durable log, each ending where a
plain run of the same calls ends (real servers)."""

from __future__ import annotations

import signal

import httpx
import pytest
from sandworld.local import local_server_process
from sw_core_ext import Store

from sw_runtime.mcp import mcp_name
from sw_runtime.worlds.billing import WORLD
from tests.mcp.test_server import mcp
from tests.runs.conftest import base  # noqa: F401  (the server's root, a fixture)

SEED = 2


def solution(task_id: str, seed: int = SEED) -> tuple:
    setup = WORLD.tasks_by_id[task_id].setup(Store(WORLD.generate(seed), collections=WORLD.collections))
    return setup.solution, setup.output


def play(http, eid: str, calls: list) -> list:
    return [http.post(f"/episodes/{eid}/step", json={"tool": t, "arguments": a}).json() for t, a in calls]


def straight(http, task_id: str) -> dict:
    calls, output = solution(task_id)
    ep = http.post("/environments/billing/episodes", json={"task_id": task_id, "seed": SEED}).json()
    assert all(a["ok"] for a in play(http, ep["episode_id"], calls))
    return http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": output}).json()


def test_batched_episodes_end_as_a_single_one_does(http):
    calls, output = solution("bl-07")
    made = http.post("/batch/episodes", json={"episodes": [
        {"environment": "billing", "task_id": "bl-07", "seed": SEED} for _ in range(4)]}).json()["results"]
    ids = [m["episode_id"] for m in made]
    assert len({m["seed_digest"] for m in made}) == 1
    for tool, args in calls:  # one batch per step, every episode in it
        answers = http.post("/batch", json={"calls": [{"episode_id": e, "tool": tool, "arguments": args}
                                                      for e in ids]}).json()["results"]
        assert all(a["ok"] for a in answers), answers
    done = http.post("/batch/submit", json={"episodes": [{"episode_id": e, "output": output}
                                                         for e in ids]}).json()["results"]
    alone = straight(http, "bl-07")
    assert all(d["pass"] and d["score"] == 1 for d in done)
    assert {d["digest"] for d in done} == {alone["digest"]}


def test_forks_go_on_from_the_state_they_were_forked_in(http):
    calls, output = solution("bl-06")
    ep = http.post("/environments/billing/episodes", json={"task_id": "bl-06", "seed": SEED}).json()
    play(http, ep["episode_id"], calls[:4])
    forks = http.post(f"/episodes/{ep['episode_id']}/fork", json={"n": 2}).json()["episodes"]
    ends = []
    for f in forks:
        assert all(a["ok"] for a in play(http, f["episode_id"], calls[4:]))
        ends.append(http.post(f"/episodes/{f['episode_id']}/submit", json={"output": output}).json())
    assert all(e["pass"] for e in ends) and {e["digest"] for e in ends} == {straight(http, "bl-06")["digest"]}


def test_an_episode_starts_from_a_snapshot_of_a_billing_state(http):
    calls, _ = solution("bl-02")
    ep = http.post("/environments/billing/episodes", json={"seed": SEED}).json()
    play(http, ep["episode_id"], calls)
    snap = http.post(f"/episodes/{ep['episode_id']}/snapshots").json()
    again = http.post("/environments/billing/episodes", json={"snapshot_id": snap["snapshot_id"]}).json()
    assert again["seed_digest"] == snap["digest"] != ep["seed_digest"]
    refund = calls[-1][1]
    listed = play(http, again["episode_id"], [("Refund.list", {"charge": refund["charge"]})])[0]["result"]
    assert [r["amount"] for r in listed["data"]] == [refund["amount"]]


def test_in_sandbox_mode_a_refund_answers_what_it_would_change(http):
    calls, _ = solution("bl-24")
    ep = http.post("/environments/billing/episodes", json={"task_id": "bl-24", "seed": SEED, "mode": "sandbox"}).json()
    answers = play(http, ep["episode_id"], calls)
    preview = answers[-1]["result"]
    assert answers[-1]["ok"] and preview["sandbox"] is True
    assert {"refunds", "charges", "balance_transactions", "events"} <= set(preview["would_change"])
    assert http.get(f"/episodes/{ep['episode_id']}").json()["digest"] == ep["seed_digest"]
    refused = play(http, ep["episode_id"], [("Refund.create", {"charge": "ch_NOPE"})])[0]
    assert refused["ok"] is False and refused["error"]["code"] == "resource_missing"  # refused in a sandbox too


def test_mcp_lists_billings_tools_and_calls_one_as_a_step(http, base):
    ep = http.post("/environments/billing/episodes", json={"seed": SEED}).json()
    tools = {t["name"]: t for t in ep["tools"]}

    async def work(s):
        return (await s.list_tools()).tools, await s.call_tool(mcp_name("Charge.list"), {"limit": 2})

    listed, result = mcp(base + ep["mcp_url"], ep["tools_token"], work)
    assert {t.name: t.inputSchema for t in listed} == {mcp_name(n): t["parameters"] for n, t in tools.items()}
    assert result.isError is False
    assert [t["tool"] for t in http.get(f"/episodes/{ep['episode_id']}").json()["trace"]] == ["Charge_list"]  # called by its alias: traced by its served name


@pytest.mark.slow
def test_a_restarted_server_replays_billing_episodes_from_its_log(tmp_path):
    calls, output = solution("bl-03")
    with local_server_process("--data-dir", str(tmp_path)) as (url, proc):
        with httpx.Client(base_url=url, timeout=60) as http:
            ep = http.post("/environments/billing/episodes", json={"task_id": "bl-03", "seed": SEED}).json()
            play(http, ep["episode_id"], calls[:4])
            before = http.get(f"/episodes/{ep['episode_id']}").json()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with local_server_process("--data-dir", str(tmp_path)) as (url, proc):
        with httpx.Client(base_url=url, timeout=60) as http:
            after = http.get(f"/episodes/{ep['episode_id']}").json()
            assert [e["state_digest"] for e in after["trace"]] == [e["state_digest"] for e in before["trace"]]
            assert all(a["ok"] for a in play(http, ep["episode_id"], calls[4:]))
            ev = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": output}).json()
            assert ev["pass"] is True and ev["score"] == 1
