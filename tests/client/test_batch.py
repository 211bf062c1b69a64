"""``BatchStepper`` and the client's batch routes against a real server: order,
per-slot errors, the batched create and submit, and the fallback for servers
that lack them."""

from __future__ import annotations

import httpx
import pytest

from sandworld import BatchStepper, SandworldClient, errors
from sandworld.evaluation.agents import reference_setup
from tests.client.helpers import Fault, FaultProxy

NO_ROUTE = {"error": {"code": "not_found", "message": "no route POST /api/v1/batch/episodes"}}


def test_step_many_returns_results_in_call_order(api):
    with BatchStepper(base_url=api) as stepper:
        specs = [{"environment": "coinpurse", "task_id": t, "seed": 2} for t in ("cp-01", "cp-04", "cp-12")]
        a, b, c = stepper.reset(specs)
        calls = [(a, "get_balance", {}), (b, "list_requests", {"status": "pending"}), (a, "list_contacts", {}),
                 (c, "get_balance", {}), (a, "get_balance", {})]
        results = stepper.step_many(calls)
    assert [(r.episode_id, r.tool, r.step) for r in results] == [
        (a.episode_id, "get_balance", 1), (b.episode_id, "list_requests", 1), (a.episode_id, "list_contacts", 2),
        (c.episode_id, "get_balance", 1), (a.episode_id, "get_balance", 3)]
    assert (a.steps, b.steps, c.steps) == (3, 1, 1)


def test_step_takes_one_action_per_env_and_none_skips(api):
    with BatchStepper(base_url=api) as stepper:
        envs = stepper.group("coinpurse", 4, task_id="cp-01", seed=0)
        results = stepper.step(envs, [("get_balance", {}), None, {"tool": "list_contacts", "arguments": {}}, None])
        with pytest.raises(ValueError):
            stepper.step(envs, [None])
    assert [r and r.tool for r in results] == ["get_balance", None, "list_contacts", None]
    assert [e.steps for e in envs] == [1, 0, 1, 0]


def test_a_call_that_cannot_run_fails_in_its_slot(api):
    with BatchStepper(base_url=api) as stepper:
        done, live = stepper.group("coinpurse", 2, task_id="cp-01")
        done.submit()
        closed, fine = stepper.step([done, live], [("get_balance", {}), ("get_balance", {})])
    assert closed.ok is False and closed.error["code"] == "episode_closed" and closed.episode_id == done.episode_id
    assert fine.ok is True and fine.step == 1


def test_reset_creates_many_in_one_request_and_submit_scores_many_in_one(api):
    proxy = FaultProxy(api)
    specs = [{"environment": "coinpurse", "task_id": "cp-04", "seed": s} for s in range(10)]
    with proxy.running() as url, BatchStepper(base_url=url, agent_name="batch-test") as stepper:
        envs = stepper.reset(specs)
        for env in envs:
            obs = env.observation
            setup = reference_setup("coinpurse", obs.environment_version, "cp-04", obs.seed, obs.seed_digest)
            for tool, arguments in setup.solution:
                env.step(tool, arguments)
        outputs = [reference_setup("coinpurse", e.observation.environment_version, "cp-04", e.observation.seed,
                                   e.observation.seed_digest).output for e in envs]
        evaluations = stepper.submit(envs, outputs)
    assert [e.observation.seed for e in envs] == list(range(10))
    assert {e.observation.agent_name for e in envs} == {"batch-test"}
    assert len(proxy.requests("POST", r"/batch/episodes$")) == 1
    assert len(proxy.requests("POST", r"/environments/coinpurse/episodes$")) == 0
    assert len(proxy.requests("POST", r"/batch/submit$")) == 1
    assert [ev.episode_id for ev in evaluations] == [e.episode_id for e in envs]
    assert all(ev.passed for ev in evaluations) and all(e.done for e in envs)


def test_without_the_batch_routes_it_falls_back_to_one_request_per_episode(api):
    proxy = FaultProxy(api)
    proxy.add(Fault("POST", r"/batch/episodes$", "status", status=404, times=10, body=NO_ROUTE),
              Fault("POST", r"/batch/submit$", "status", status=404, times=10, body=NO_ROUTE))
    with proxy.running() as url, BatchStepper(base_url=url) as stepper:
        first = stepper.group("coinpurse", 3, task_id="cp-01", seed=5)
        second = stepper.group("coinpurse", 2, task_id="cp-02", seed=6)
        evaluations = stepper.submit(first + second)
    assert [e.observation.task_id for e in first + second] == ["cp-01"] * 3 + ["cp-02"] * 2
    assert len(proxy.requests("POST", r"/batch/episodes$")) == 1  # learned once, not asked again
    assert len(proxy.requests("POST", r"/environments/coinpurse/episodes$")) == 5
    assert len(proxy.requests("POST", r"/batch/submit$")) == 1
    assert len(proxy.requests("POST", r"/episodes/[^/]+/submit$")) == 5
    assert [ev.episode_id for ev in evaluations] == [e.episode_id for e in first + second]


def test_a_bad_spec_fails_in_its_slot(api):
    specs = [{"environment": "coinpurse", "task_id": "cp-01"}, {"environment": "coinpurse", "task_id": "cp-999"},
             {"environment": "atlantis"}, {"environment": "coinpurse", "seed": 7}]
    with BatchStepper(base_url=api) as stepper:
        envs = stepper.reset(specs, return_exceptions=True)
        with pytest.raises(errors.InvalidRequest) as first_bad:
            stepper.reset(specs)
    assert envs[0].episode_id and envs[3].observation.seed == 7
    assert isinstance(envs[1], errors.InvalidRequest) and "cp-999" in envs[1].message
    assert isinstance(envs[2], errors.NotFound) and envs[2].code == "not_found"
    assert first_bad.value.index == 1


def test_submitting_a_closed_episode_fails_in_its_slot(api):
    with BatchStepper(base_url=api) as stepper:
        a, b, c = stepper.group("coinpurse", 3, task_id="cp-01")
        scored = a.submit()
        assert httpx.delete(f"{api}/episodes/{c.episode_id}").status_code == 200  # ended, not submitted
        first, second, third = stepper.submit([a, b, c], return_exceptions=True)
    assert first == scored  # submitted already: its evaluation again, not scored twice
    assert second.episode_id == b.episode_id and b.done
    assert isinstance(third, errors.EpisodeClosed) and third.details["episode_id"] == c.episode_id


def test_the_client_batch_accepts_dicts_and_tuples(api):
    with SandworldClient(api) as client:
        (obs,) = client.create_episodes([{"environment": "coinpurse", "task_id": "cp-01"}])
        results = client.batch([{"episode_id": obs.episode_id, "tool": "get_balance"},
                                (obs.episode_id, "get_balance"), (obs.episode_id, "list_contacts", {"query": "a"})])
        (ev,) = client.submit_episodes([obs.episode_id])
    assert [r.step for r in results] == [1, 2, 3] and ev.steps == 3


def test_big_batches_are_split_in_order(api):
    with BatchStepper(base_url=api, max_calls=7) as stepper:
        (env,) = stepper.group("coinpurse", 1, task_id="cp-01")
        results = stepper.step_many([(env, "get_balance", {})] * 30)
    assert [r.step for r in results] == list(range(1, 31))


def test_a_composite_group_steps_both_worlds_in_one_batch(api):
    with BatchStepper(base_url=api) as stepper:
        envs = stepper.group(["codehost", "offsite-planning"], 3, seed=1)
        assert {e.observation["environment"] for e in envs} == {"codehost+offsite-planning"}
        results = stepper.step(envs, [("repos.get", {"owner": "acme", "repo": "api"}),
                                      ("slack.conversations.list", {}), None])
        assert [r and r.ok for r in results] == [True, True, None]
        specs = [{"environment": ["offsite-planning", "codehost"], "seed": 1}, {"environment": "coinpurse", "seed": 1}]
        mixed = stepper.reset(specs)
        assert [e.observation["environment"] for e in mixed] == ["codehost+offsite-planning", "coinpurse"]
        assert mixed[0].observation["seed_digest"] == envs[0].observation["seed_digest"]
