"""The Gymnasium env against a real server, checked by Gymnasium's own env checker."""

from __future__ import annotations

import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

from sandworld import errors
from sandworld.evaluation.agents import reference_setup
from sandworld.integrations.gym import SandworldGymEnv, register_worlds, submit_action
from tests.conftest import running_server


def solve(env, info):
    setup = reference_setup("coinpurse", env.env.observation.environment_version, info["task_id"], info["seed"],
                            info["digest"])
    return setup


def test_reset_returns_obs_and_info(api):
    env = SandworldGymEnv("coinpurse", "cp-12", base_url=api)
    obs, info = env.reset(seed=2)
    env.close()
    assert set(obs) == {"instruction", "policy", "tools", "tool", "ok", "result"} and "Luca" in obs["instruction"]
    assert obs in env.observation_space and json.loads(obs["tools"])[0]["name"]
    assert info["seed"] == 2 and info["task_id"] == "cp-12" and info["digest"].startswith("sha256:")
    assert info["training"] is False


def test_score_reward_comes_at_the_end_with_checks_and_digest(api):
    env = SandworldGymEnv("coinpurse", "cp-04", base_url=api)
    obs, info = env.reset(seed=1)
    setup = solve(env, info)
    rewards = []
    for tool, arguments in setup.solution:
        obs, reward, terminated, truncated, step_info = env.step({"tool": tool, "arguments": arguments})
        assert obs["ok"] == 1 and obs["tool"] == tool and not terminated and not truncated and "signals" not in obs
        assert obs in env.observation_space
        rewards.append(reward)
    _, final, terminated, truncated, end = env.step(submit_action(setup.output))
    assert rewards == [0.0] * len(setup.solution)
    assert final == 1.0 and terminated and not truncated
    assert end["pass"] is True and {c["id"] for c in end["checks"]} and end["digest"].startswith("sha256:")
    with pytest.raises(errors.SandworldError):
        env.step(("get_balance", {}))
    env.close()


def test_pass_reward_is_one_or_zero(api):
    env = SandworldGymEnv("coinpurse", "cp-04", reward="pass", base_url=api)
    env.reset(seed=1)
    *_, reward, terminated, _, info = env.step(submit_action(None))
    assert reward == 0.0 and terminated and info["pass"] is False
    env.close()


def test_progress_reward_is_dense_from_signals_and_sums_to_the_score(api):
    env = SandworldGymEnv("coinpurse", "cp-12", reward="progress", base_url=api)
    obs, info = env.reset(seed=2)
    assert info["training"] is True
    setup = solve(env, info)
    total, per_step = 0.0, []
    for tool, arguments in setup.solution:
        obs, reward, _, _, step_info = env.step((tool, arguments))
        assert "signals" not in obs and set(step_info["signals"]) >= {"progress_delta", "reference_progress"}
        per_step.append(reward)
        total += reward
    *_, final, terminated, _, end = env.step(submit_action(setup.output))
    assert any(r > 0 for r in per_step)  # dense: credit arrives before the end
    assert total + final == pytest.approx(end["score"]) == pytest.approx(1.0)
    env.close()


def test_reaching_max_steps_truncates_and_scores(api):
    env = SandworldGymEnv("coinpurse", "cp-01", base_url=api, max_steps=2)
    env.reset(seed=0)
    first = env.step(("get_balance", {}))
    *_, reward, terminated, truncated, info = env.step(("get_balance", {}))
    assert first[3] is False and truncated and not terminated
    assert info["evaluation"]["steps"] == 2 and reward == info["score"]
    env.close()


@pytest.mark.slow  # starts a server of its own
def test_the_server_step_limit_truncates_too():
    with running_server("--step-limit", "1") as url:
        env = SandworldGymEnv("coinpurse", "cp-01", base_url=url)
        env.reset(seed=0)
        *_, truncated, info = env.step(("get_balance", {}))
        env.close()
    assert truncated and info["evaluation"]["steps"] == 1


def test_progress_reward_needs_signals():
    with pytest.raises(ValueError):
        SandworldGymEnv("coinpurse", reward="progress", signals=False)
    with pytest.raises(ValueError):
        SandworldGymEnv("coinpurse", reward="curiosity")


def test_check_env_passes(api):
    env = SandworldGymEnv("coinpurse", "cp-04", base_url=api)
    check_env(env, skip_render_check=True)
    env.close()


def test_every_world_is_registered_and_made_by_gymnasium(api):
    ids = register_worlds(base_url=api)
    assert {"sandworld/coinpurse-v0", "sandworld/quickbasket-v0"} <= set(ids)
    env = gymnasium.make("sandworld/coinpurse-v0", task_id="cp-04")
    obs, info = env.reset(seed=1)
    assert info["task_id"] == "cp-04" and info["seed"] == 1 and obs["instruction"]
    env.close()


def test_reset_without_a_seed_draws_seeds_and_tasks_from_np_random(api):
    env = SandworldGymEnv("coinpurse", base_url=api)
    env.reset(seed=7)
    drawn = [(info["seed"], info["task_id"]) for info in (env.reset()[1] for _ in range(4))]
    env.reset(seed=7)
    again = [(info["seed"], info["task_id"]) for info in (env.reset()[1] for _ in range(4))]
    env.close()
    assert drawn == again  # reproducible from the first seed
    assert len({seed for seed, _ in drawn}) == 4 and 0 not in {seed for seed, _ in drawn}


def test_arguments_that_are_not_json_are_refused_as_an_observation(api):
    env = SandworldGymEnv("coinpurse", "cp-04", base_url=api)
    env.reset(seed=1)
    obs, reward, terminated, truncated, _ = env.step({"tool": "get_balance", "arguments": "{not json"})
    assert obs["ok"] == 0 and json.loads(obs["result"])["code"] == "invalid_arguments"
    assert (reward, terminated, truncated) == (0.0, False, False)
    obs, *_ = env.step({"tool": "get_balance", "arguments": "{}"})
    assert obs["ok"] == 1 and "balance" in obs["result"]
    env.close()
