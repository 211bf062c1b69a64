"""The scoring rules and the step budget, on real episodes over HTTP.

``share`` (the default, references 000 and 001) counts every weighted check,
so a do-nothing run collects the weight of what already holds; ``informative``
(reference 003) leaves such checks out of the denominator. Either way pass
needs every check, and the task's step budget.
"""

from __future__ import annotations

import pytest

from sw_core_ext import Store
from sw_runtime.worlds import registry

QUICKSTART = ("offsite-planning", "task_schedule_q4_offsite")  # reference 001's quickstart task
REFUSAL = ("coinpurse", "cp-06")  # the right answer is to decline


def do_nothing(http, world, task, **extra):
    r = http.post(f"/environments/{world}/episodes", json={"task_id": task, "seed": 0, **extra})
    assert r.status_code == 201, r.text
    assert r.json()["scoring"] == extra.get("scoring", "share")
    return http.post(f"/episodes/{r.json()['episode_id']}/submit", json={"output": ""}).json()


def test_quickstart_do_nothing_scores_a_fifth_under_share_and_nothing_under_informative(http):
    share = do_nothing(http, *QUICKSTART)
    assert share["scoring"] == "share" and share["score"] == 0.2 and share["pass"] is False
    assert share["denominators"] == {"share": 5.0, "informative": 4.0}
    assert all(c["scored"] for c in share["checks"] if c["id"] != "within-budget")
    informative = do_nothing(http, *QUICKSTART, scoring="informative")
    assert informative["scoring"] == "informative" and informative["score"] == 0.0
    assert informative["pass"] is False and informative["denominators"] == share["denominators"]
    assert informative["scores"] == share["scores"] == {"share": 0.2, "informative": 0.0}
    unscored = [c for c in informative["checks"] if c["scored"] is False and c["id"] != "within-budget"]
    assert len(unscored) == 1 and unscored[0]["pass"] is True


def test_refusal_task_do_nothing_gets_partial_credit_only_under_share(http):
    share = do_nothing(http, *REFUSAL)
    informative = do_nothing(http, *REFUSAL, scoring="informative")
    assert share["pass"] is informative["pass"] is False  # declining is still work to do
    assert share["score"] == 0.6 and informative["score"] == 0.0
    assert share["denominators"] == {"share": 5.0, "informative": 2.0}


def test_an_unknown_scoring_rule_is_refused(http):
    r = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-01", "scoring": "generous"})
    assert r.status_code == 400 and "share" in r.json()["error"]["message"]


def test_batch_create_takes_the_scoring_rule(http):
    body = {"episodes": [{"environment": QUICKSTART[0], "task_id": QUICKSTART[1], "scoring": "informative"},
                         {"environment": QUICKSTART[0], "task_id": QUICKSTART[1]},
                         {"environment": "coinpurse", "scoring": "nope"}]}
    results = http.post("/batch/episodes", json=body).json()["results"]
    assert [r.get("scoring") for r in results[:2]] == ["informative", "share"]
    assert results[2]["ok"] is False and results[2]["error"]["code"] == "invalid_request"
    scores = [http.post(f"/episodes/{r['episode_id']}/submit").json()["score"] for r in results[:2]]
    assert scores == [0.0, 0.2]


def reference_calls(world_name, task_id, seed=0):
    world = registry()[world_name]
    start = Store(world.generate(seed), collections=world.collections)
    return world.tasks_by_id[task_id].setup(start.fork())


@pytest.mark.parametrize("extra_reads, passes", [(0, True), (4, False)])
def test_a_task_run_over_its_budget_does_not_pass(http, extra_reads, passes):
    # cp-01's budget is 4 steps; its one-call reference solution fits, the
    # same work after four reads (5 steps) does not.
    setup = reference_calls("coinpurse", "cp-01")
    budget = registry()["coinpurse"].tasks_by_id["cp-01"].step_budget
    ep = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-01", "seed": 0}).json()
    assert ep["step_budget"] == budget == 4
    calls = [("get_balance", {})] * extra_reads + list(setup.solution)
    for tool, arguments in calls:
        assert http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": tool, "arguments": arguments}).json()["ok"]
    ev = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": setup.output}).json()
    row = next(c for c in ev["checks"] if c["id"] == "within-budget")
    assert ev["pass"] is passes and row["pass"] is passes and ev["step_budget"] == 4
    assert ev["score"] == 1.0  # the budget gates pass, not the dense score
    assert all(c["pass"] for c in ev["checks"] if c["id"] != "within-budget")
    assert ev["failure_kind"] == (None if passes else "over_budget")
    assert row["detail"].startswith(f"{len(calls)} step{'s' if len(calls) > 1 else ''} of a budget of 4")
