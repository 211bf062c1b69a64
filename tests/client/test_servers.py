"""A list of servers: new episodes spread over them, calls routed to the
server that holds the episode."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from sandworld import AsyncSandworldClient, BatchStepper, SandworldClient, SandworldEnv, errors
from sandworld.routing import shard_of
from tests.conftest import running_server


@pytest.fixture(scope="module")
def two_servers():
    with running_server("--shard", "0") as a, running_server("--shard", "1") as b:
        yield a, b


def test_new_episodes_are_spread_over_the_servers(two_servers):
    with SandworldClient(list(two_servers)) as client:
        envs = [SandworldEnv(client=client) for _ in range(6)]
        for env in envs:
            env.reset("coinpurse", task_id="cp-01")
    assert Counter(env.url for env in envs) == {two_servers[0]: 3, two_servers[1]: 3}
    assert {shard_of(env.episode_id) for env in envs if env.url == two_servers[1]} == {1}


def test_calls_go_to_the_server_that_holds_the_episode(two_servers):
    with SandworldClient(",".join(two_servers)) as client:
        envs = [SandworldEnv(client=client) for _ in range(4)]
        for env in envs:
            env.reset("coinpurse", task_id="cp-01")
            assert env.step("get_balance").step == 1
        # By bare id too: the shard in the id names the server.
        for env in envs:
            assert client.step(env.episode_id, "get_balance").step == 2
            assert client.submit(env.episode_id).steps == 2
        with SandworldClient(list(two_servers)) as stranger:
            with pytest.raises(errors.SandworldError) as unknown:
                stranger.step(envs[0].episode_id, "get_balance")
        assert unknown.value.code == "unknown_server"


def test_one_batch_over_two_servers_keeps_call_order(two_servers):
    with BatchStepper(base_url=list(two_servers)) as stepper:
        envs = stepper.group("coinpurse", 6, task_id="cp-01", seed=3)
        assert len({e.url for e in envs}) == 2
        calls = [(env, "get_balance", {}) for env in envs for _ in range(2)]
        results = stepper.step_many(calls)
        evaluations = stepper.submit(envs)
    assert [r.episode_id for r in results] == [env.episode_id for env in envs for _ in range(2)]
    assert [r.step for r in results] == [1, 2] * 6
    assert [ev.steps for ev in evaluations] == [2] * 6


def test_the_async_client_spreads_and_routes_too(two_servers):
    async def main():
        async with AsyncSandworldClient(list(two_servers)) as client:
            obs = [await client.create_episode("coinpurse", task_id="cp-01") for _ in range(4)]
            steps = await asyncio.gather(*(client.step(o.episode_id, "get_balance") for o in obs))
            return obs, steps

    obs, steps = asyncio.run(main())
    assert Counter(shard_of(o.episode_id) for o in obs) == {0: 2, 1: 2}
    assert [s.step for s in steps] == [1, 1, 1, 1]


def test_fresh_envs_one_per_worker_spread_over_the_shards(two_servers):
    # The common pattern: one env (so one client) per rollout worker. Every
    # fresh client used to start its turn at shard 0: 20 of 20 there.
    envs = [SandworldEnv(list(two_servers)) for _ in range(20)]
    try:
        for env in envs:
            env.reset("coinpurse", task_id="cp-01")
        counts = Counter(shard_of(env.episode_id) for env in envs)
    finally:
        for env in envs:
            env.close()
    assert set(counts) == {0, 1} and min(counts.values()) >= 5, counts
