"""``AsyncSandworldEnv`` and ``AsyncSandworldClient`` against a real server,
up to 2,000 concurrent episodes on one bounded connection pool."""

from __future__ import annotations

import asyncio

import pytest

from sandworld import AsyncBatchStepper, AsyncSandworldClient, AsyncSandworldEnv, errors
from sandworld.evaluation.agents import reference_setup
from tests.client.helpers import FaultProxy
from tests.conftest import running_server


def test_async_env_lifecycle(api):
    async def main():
        async with AsyncSandworldEnv(api) as env:
            obs = await env.reset("coinpurse", task_id="cp-04", seed=1)
            setup = reference_setup(obs.environment, obs.environment_version, "cp-04", 1, obs.seed_digest)
            steps = [await env.step(tool, arguments) for tool, arguments in setup.solution]
            state = await env.state()
            (branch,) = await env.fork(1)
            ev = await env.submit(setup.output)
            with pytest.raises(errors.EpisodeClosed):
                await env.step("get_balance")
            return obs, steps, state, branch, ev

    obs, steps, state, branch, ev = asyncio.run(main())
    assert obs.task_id == "cp-04" and [s.step for s in steps] == list(range(1, len(steps) + 1))
    assert all(s.ok for s in steps)
    assert state["digest"] == ev.digest and ev.passed is True
    assert branch.steps == len(steps) and branch.episode_id != obs.episode_id


def test_async_batch_stepper_creates_steps_and_submits(api):
    async def main():
        async with AsyncBatchStepper(base_url=api) as stepper:
            envs = await stepper.group("coinpurse", 5, task_id="cp-01", seed=4)
            results = await stepper.step(envs, [("get_balance", {})] * 4 + [None])
            evaluations = await stepper.submit(envs)
            return envs, results, evaluations

    envs, results, evaluations = asyncio.run(main())
    assert len({e.episode_id for e in envs}) == 5
    assert [r and r.episode_id for r in results] == [e.episode_id for e in envs[:4]] + [None]
    assert [ev.steps for ev in evaluations] == [1, 1, 1, 1, 0]


def test_the_pool_bounds_the_connections(api):
    """Two hundred requests at once through a pool of 4 use at most 4 connections."""
    proxy = FaultProxy(api)

    async def main(url):
        async with AsyncSandworldClient(url, max_connections=4) as client:
            envs = [AsyncSandworldEnv(client=client) for _ in range(50)]
            await asyncio.gather(*(e.reset("coinpurse", task_id="cp-01", seed=i) for i, e in enumerate(envs)))
            await asyncio.gather(*(e.step("get_balance") for e in envs for _ in range(3)))

    with proxy.running() as url:
        asyncio.run(main(url))
    # 200 calls, after the one look at GET /cluster every client makes first
    assert [s.path for s in proxy.seen].count("/api/v1/cluster") == 1
    assert len(proxy.seen) == 201
    assert 1 <= len({s.peer for s in proxy.seen}) <= 4


def test_2000_concurrent_episodes_without_an_error():
    """One AsyncSandworldEnv per episode, all 2,000 in flight at once, on one
    client whose pool holds 64 connections: every episode is created, stepped,
    submitted and scored, and each answer reaches its own episode."""
    n = 2000

    async def episode(client, i):
        env = AsyncSandworldEnv(client=client)
        obs = await env.reset("coinpurse", task_id="cp-01", seed=i % 50)
        setup = reference_setup(obs.environment, obs.environment_version, "cp-01", obs.seed, obs.seed_digest)
        for tool, arguments in setup.solution:
            result = await env.step(tool, arguments)
            assert result.ok
        ev = await env.submit(setup.output)
        return obs.episode_id, ev

    async def main(url):
        async with AsyncSandworldClient(url, max_connections=64) as client:
            return await asyncio.gather(*(episode(client, i) for i in range(n)), return_exceptions=True)

    with running_server() as url:
        outcomes = asyncio.run(main(url))
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    assert failures == []
    assert len({eid for eid, _ in outcomes}) == n
    assert all(ev.passed and ev.episode_id == eid for eid, ev in outcomes)
