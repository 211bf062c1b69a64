"""``SandworldEnv`` against a real server: the lifecycle, typed errors, the
base URL, forks and state dumps."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sandworld import DEFAULT_URL, SandworldClient, SandworldEnv, errors
from sandworld.evaluation.agents import reference_setup
from sandworld.transport import resolve_urls
from tests.conftest import running_server


def reference(obs):
    return reference_setup(obs.environment, obs.environment_version, obs.task_id, obs.seed, obs.seed_digest)


def test_reset_returns_instruction_policy_and_tools(api):
    with SandworldEnv(api) as env:
        obs = env.reset("coinpurse", task_id="cp-12", seed=2)
    assert obs.episode_id.startswith("ep_") and env.episode_id == obs.episode_id
    assert obs["instruction"] == obs.instruction and "Luca" in obs.instruction
    assert obs.policy and obs.task_id == "cp-12" and obs.seed == 2
    assert {"list_requests", "pay_request", "decline_request"} <= {t["name"] for t in obs.tools}
    assert all(set(t) == {"name", "description", "parameters", "class"} for t in obs.tools)
    assert obs.seed_digest.startswith("sha256:") and obs.training is False


def test_step_returns_the_step_result_and_refusals_are_data(api):
    with SandworldEnv(api) as env:
        env.reset("coinpurse", task_id="cp-04", seed=1)
        first = env.step("get_balance")
        refused = env.step("no_such_tool", {"x": 1})
    assert first.ok is True and first.step == 1 and first.at == "2026-03-05T18:00:07.000Z"
    assert "balance" in first.result
    assert refused.ok is False and refused.error["code"] == "unknown_tool" and refused.step == 2
    assert env.steps == 2


def test_submit_returns_the_evaluation(api):
    with SandworldEnv(api) as env:
        obs = env.reset("coinpurse", task_id="cp-12", seed=2)
        setup = reference(obs)
        for tool, arguments in setup.solution:
            assert env.step(tool, arguments).ok
        ev = env.submit(setup.output)
    assert env.done and env.evaluation is ev
    assert ev.passed is True and ev["pass"] is True and ev.score == 1.0 and ev.failed_checks == []
    assert ev.steps == len(setup.solution) and ev.digest.startswith("sha256:")
    assert {c["id"] for c in ev.checks} >= {"original-paid", "copy-declined"}


def test_server_errors_are_typed_and_carry_the_server_code(api):
    with SandworldEnv(api) as env:
        with pytest.raises(errors.SandworldError) as none_yet:
            env.step("get_balance")
        assert none_yet.value.code == "no_episode"
        with pytest.raises(errors.NotFound) as nf:
            env.reset("atlantis")
        assert nf.value.code == "not_found" and nf.value.status == 404 and isinstance(nf.value, LookupError)
        with pytest.raises(errors.InvalidRequest) as bad:
            env.reset("coinpurse", task_id="cp-999")
        assert bad.value.code == "invalid_request" and bad.value.status == 400 and "cp-999" in bad.value.message
        env.reset("coinpurse", task_id="cp-01", seed=0)
        first = env.submit()
        with pytest.raises(errors.EpisodeClosed) as closed:
            env.step("get_balance")
        assert closed.value.code == "episode_closed" and closed.value.status == 409
        assert env.submit() == first  # a second submit: the first evaluation again (003's idempotent finalize)
    assert all(issubclass(e, errors.SandworldError) for e in (errors.ApiError, errors.TransportError))


def test_the_step_limit_is_a_typed_error():
    with running_server("--step-limit", "2") as url, SandworldEnv(url) as env:
        env.reset("coinpurse", task_id="cp-01")
        env.step("get_balance")
        env.step("get_balance")
        with pytest.raises(errors.StepLimit) as limit:
            env.step("get_balance")
        assert limit.value.code == "step_limit" and limit.value.status == 409
        assert env.submit().steps == 2


def test_the_base_url_comes_from_sandworld_api_url(api, monkeypatch):
    monkeypatch.delenv("SANDWORLD_API_URL", raising=False)
    assert resolve_urls() == [DEFAULT_URL] == ["http://127.0.0.1:8787/api/v1"]
    monkeypatch.setenv("SANDWORLD_API_URL", api + "/")
    with SandworldEnv() as env:
        assert env.client.urls == [api]
        assert env.reset("coinpurse", task_id="cp-01").episode_id.startswith("ep_")
    monkeypatch.setenv("SANDWORLD_API_URL", f"{api}, http://127.0.0.1:9/api/v1")
    assert resolve_urls() == [api, "http://127.0.0.1:9/api/v1"]
    with pytest.raises(errors.SandworldError):
        resolve_urls("ftp://example.org")


def test_envs_made_from_one_client_share_its_pool(api):
    with SandworldClient(api, max_connections=4) as client:
        envs = [SandworldEnv(client=client) for _ in range(10)]
        for i, env in enumerate(envs):
            env.reset("coinpurse", task_id="cp-01", seed=i)
            env.step("get_balance")
            env.close()  # the env did not make the client: it stays open for the others
        assert {env.client for env in envs} == {client}
        assert len({env.episode_id for env in envs}) == 10
        assert client.episode(envs[3].episode_id)["steps"] == 1


def test_episode_reads_back_the_trace(api):
    with SandworldEnv(api) as env:
        env.reset("coinpurse", task_id="cp-04", seed=3)
        env.step("list_requests", {"status": "pending"})
        record = env.episode()
    assert record["status"] == "open" and record["steps"] == 1
    assert [(e["seq"], e["tool"], e["arguments"]) for e in record["trace"]] == [
        (1, "list_requests", {"status": "pending"})]


def test_state_dumps_the_episode_and_sandworld_digest_agrees(api, tmp_path):
    with SandworldEnv(api) as env:
        obs = env.reset("coinpurse", task_id="cp-04", seed=1)
        start = env.state()
        assert start["digest"] == obs.seed_digest
        setup = reference(obs)
        for tool, arguments in setup.solution:
            env.step(tool, arguments)
        after = env.state()
        only = env.state(["account"])
        dump = tmp_path / "state.json"
        dump.write_text(json.dumps(after))
        printed = subprocess.run([sys.executable, "-m", "sw_runtime", "digest", str(dump)], capture_output=True,
                                 text=True, timeout=60).stdout.strip()
        assert printed == after["digest"] == env.submit(setup.output).digest != start["digest"]
        assert set(only["collections"]) == {"account"}


def test_fork_branches_share_the_prefix_and_stay_isolated(api):
    with SandworldEnv(api) as env:
        env.reset("coinpurse", task_id="cp-12", seed=2)
        env.step("list_requests", {"status": "pending"})
        source = env.state()["digest"]
        a, b = env.fork(2)
        assert {a.episode_id, b.episode_id, env.episode_id} == {a.episode_id, b.episode_id} | {env.episode_id}
        assert len({a.episode_id, b.episode_id, env.episode_id}) == 3
        assert a.steps == b.steps == 1 and a.url == env.url
        assert a.observation.instruction == env.observation.instruction  # the task's text comes with the branch
        paid = a.step("pay_request", {"request_id": "rq-16"})
        assert paid.ok and paid.step == 2
        assert a.state()["digest"] != source
        assert b.state()["digest"] == env.state()["digest"] == source
        (grandchild,) = a.fork(1)
        assert grandchild.state()["digest"] == a.state()["digest"]
        assert grandchild.step("decline_request", {"request_id": "rq-17"}).ok
        assert a.state()["digest"] != grandchild.state()["digest"]
