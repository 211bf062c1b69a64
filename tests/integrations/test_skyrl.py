"""SkyRL-gym: the env made by skyrl_gym.make, driven as SkyRL's generator drives it
(``make(id, env_config=…, extras=row)``, ``init(prompt)``, ``step(text)`` per turn)."""

from __future__ import annotations

import skyrl_gym
from skyrl_gym.envs.base_text_env import BaseTextEnv

from sandworld.integrations.skyrl import register_worlds
from tests.integrations.helpers import hermes, reference


def test_every_world_registers_and_a_scripted_policy_scores_one(api):
    ids = register_worlds(base_url=api)
    assert {"sandworld/coinpurse", "sandworld/quickbasket"} <= set(ids)
    env = skyrl_gym.make("sandworld/coinpurse", env_config={"base_url": api},
                         extras={"task_id": "cp-04", "seed": 1, "max_turns": 10})
    assert isinstance(env, BaseTextEnv)
    prompt, info = env.init([{"role": "user", "content": "Solve the task."}])
    assert prompt[0]["role"] == "system" and prompt[-1]["role"] == "user" and info["task_id"] == "cp-04"
    setup = reference("coinpurse", env.env.observation)
    for tool, arguments in setup.solution:
        out = env.step(hermes(tool, arguments))
        assert not out["done"] and out["reward"] == 0.0
        assert out["observations"][0]["role"] == "tool" and '"ok":true' in out["observations"][0]["content"]
    end = env.step(f"<think>done</think>{setup.output}")
    assert end["done"] and end["reward"] == 1.0 and end["metadata"]["evaluation"]["pass"] is True
    env.close()


def test_running_out_of_turns_submits(api):
    register_worlds(base_url=api, worlds=["coinpurse"])
    env = skyrl_gym.make("sandworld/coinpurse", env_config={"base_url": api},
                         extras={"task_id": "cp-01", "seed": 0, "max_turns": 1})
    env.init([])
    out = env.step(hermes("get_balance", {}))
    assert out["done"] and out["observations"][0]["role"] == "tool" and out["reward"] < 1.0
    env.close()


def test_the_prompt_carries_the_tool_schemas_and_keeps_the_rows_system_message(api):
    # SkyRL-train applies the chat template without tools=, so the schemas must be in the prompt itself.
    import json

    register_worlds(base_url=api, worlds=["coinpurse"])
    env = skyrl_gym.make("sandworld/coinpurse", env_config={"base_url": api}, extras={"task_id": "cp-01", "seed": 0})
    prompt, info = env.init([{"role": "system", "content": "You are a careful agent."},
                             {"role": "user", "content": "Solve the task."}])
    system = [m for m in prompt if m["role"] == "system"]
    assert len(system) == 1
    text = system[0]["content"]
    assert "You are a careful agent." in text and env.env.observation["policy"] in text
    listed = text.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0].splitlines()
    tools = [json.loads(line) for line in listed]
    assert [t["function"]["name"] for t in tools] == [t["name"] for t in info["tools"]]
    assert tools[0]["function"]["parameters"] == info["tools"][0]["parameters"]
    assert "<tool_call>" in text  # how to call one, in the format parse_tool_calls reads
    env.close()


def test_a_rows_episode_options_reach_the_episode(api):
    import httpx

    register_worlds(base_url=api, worlds=["coinpurse"])
    env = skyrl_gym.make("sandworld/coinpurse", env_config={"base_url": api}, extras={
        "task_id": "cp-04", "seed": 1, "scoring": "informative", "signals": True,
        "fault_profile": "timeout_before_commit", "user_simulator": "scripted", "agent_name": "skyrl-options"})
    _, info = env.init([])
    episode = httpx.get(f"{api}/episodes/{info['episode_id']}").json()
    assert episode["scoring"] == "informative" and episode["signals"] is True
    assert episode["fault_profile"] == "timeout_before_commit" and episode["agent_name"] == "skyrl-options"
    env.close()


def test_with_signals_each_turn_earns_its_progress_and_the_rewards_add_up_to_the_score(api):
    register_worlds(base_url=api, worlds=["coinpurse"])
    env = skyrl_gym.make("sandworld/coinpurse", env_config={"base_url": api},
                         extras={"task_id": "cp-04", "seed": 1, "signals": True, "scoring": "informative"})
    env.init([])
    setup = reference("coinpurse", env.env.observation)
    rewards = []
    for tool, arguments in setup.solution:
        out = env.step(hermes(tool, arguments))
        rewards.append(out["reward"])
    end = env.step(setup.output)
    trace = env.env.episode()["trace"]
    assert rewards == [e["signals"]["progress_delta"] for e in trace] and any(rewards)
    assert end["done"] and abs(sum(rewards) + end["reward"] - 1.0) < 1e-9
    env.close()


def test_envs_stepping_in_skyrls_worker_pool_share_batch_requests(api):
    # SkyRL's generator runs every trajectory as a task and env.step in a ThreadPoolExecutor
    # (skyrl/train/generators/skyrl_gym_generator.py, _run_in_executor_if_available; max_env_workers 32).
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from sandworld.integrations.skyrl import SandworldTextEnv

    register_worlds(base_url=api, worlds=["coinpurse"])
    pool = ThreadPoolExecutor(max_workers=32)
    setup = None

    def make():
        return skyrl_gym.make("sandworld/coinpurse", env_config={"base_url": api, "batch_window": 0.02},
                              extras={"task_id": "cp-04", "seed": 1})

    async def trajectory(loop, env, started):
        # the model's turns come out of one batched generation, so the trajectories step together
        await loop.run_in_executor(pool, env.init, [])
        await started()
        for tool, arguments in setup.solution:
            await loop.run_in_executor(pool, env.step, hermes(tool, arguments))
        out = await loop.run_in_executor(pool, env.step, setup.output)
        await loop.run_in_executor(pool, env.close)
        return out["reward"]

    async def main():
        nonlocal setup
        loop = asyncio.get_running_loop()
        probe = make()
        probe.init([])
        setup = reference("coinpurse", probe.env.observation)
        probe.close()
        envs = [make() for _ in range(16)]
        barrier = asyncio.Barrier(16)
        return await asyncio.gather(*(trajectory(loop, env, barrier.wait) for env in envs))

    _, batcher = SandworldTextEnv._connection(api, 0.02)
    before = (batcher.requests, batcher.calls)
    rewards = asyncio.run(main())
    pool.shutdown()
    requests, calls = batcher.requests - before[0], batcher.calls - before[1]
    assert rewards == [1.0] * 16 and calls == 16 * len(setup.solution)
    assert requests <= len(setup.solution) * 3, (requests, calls)
    print(f"{calls} steps in {requests} requests")


def test_the_step_limit_ends_the_episode_with_its_score_batched_or_not():
    from sandworld.local import local_server

    with local_server("--step-limit", "2") as url:
        register_worlds(base_url=url, worlds=["coinpurse"])
        for window in (0, 0.002):
            env = skyrl_gym.make("sandworld/coinpurse", env_config={"base_url": url, "batch_window": window},
                                 extras={"task_id": "cp-04", "seed": 1})
            env.init([])
            setup = reference("coinpurse", env.env.observation)
            calls = "".join(hermes(tool, arguments) for tool, arguments in setup.solution)  # one turn, 3 calls
            out = env.step(calls)
            assert out["done"] and len(out["observations"]) == 2, window
            assert out["reward"] == out["metadata"]["evaluation"]["score"] < 1.0
            env.close()
