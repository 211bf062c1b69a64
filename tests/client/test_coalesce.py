"""``AsyncStepBatcher`` and ``StepBatcher`` against a real server: concurrent steps of
many episodes go out as few ``/batch`` requests, each caller gets what ``env.step``
would give it, and one bad call fails only its own caller."""

from __future__ import annotations

import asyncio
import threading

import pytest

from sandworld import (
    AsyncSandworldClient, AsyncSandworldEnv, AsyncStepBatcher, SandworldClient, SandworldEnv, StepBatcher, errors,
)


def test_concurrent_async_steps_share_batches_and_keep_each_episodes_order(api):
    async def run():
        async with AsyncSandworldClient(api) as client:
            envs = [AsyncSandworldEnv(client=client) for _ in range(16)]
            await asyncio.gather(*(e.reset("coinpurse", task_id="cp-04", seed=1) for e in envs))
            batcher = AsyncStepBatcher(client, window=0.01)

            async def play(env):
                return [await batcher.step(env, "get_balance") for _ in range(3)]

            played = await asyncio.gather(*(play(e) for e in envs))
            return envs, played, batcher

    envs, played, batcher = asyncio.run(run())
    assert batcher.calls == 48 and batcher.requests <= 6  # 16 episodes stepping at once: a batch per round
    for env, results in zip(envs, played):
        assert [r["step"] for r in results] == [1, 2, 3] and env.steps == 3
        assert all(r["ok"] and r["episode_id"] == env.episode_id for r in results)


def test_one_bad_call_fails_only_its_caller(api):
    async def run():
        async with AsyncSandworldClient(api) as client:
            good, closed = AsyncSandworldEnv(client=client), AsyncSandworldEnv(client=client)
            await good.reset("coinpurse", task_id="cp-04", seed=1)
            await closed.reset("coinpurse", task_id="cp-04", seed=1)
            await closed.submit()
            batcher = AsyncStepBatcher(client, window=0.05)
            return await asyncio.gather(
                batcher.step(good, "get_balance"),
                batcher.step(closed, "get_balance"),                     # cannot run: EpisodeClosed, as /step
                batcher.step(good, "add_contact", {"handle": 1}),        # refused: an answer, ok false
                batcher.step(good, "get_balance", {"x": object()}),      # cannot be encoded: fails here
                batcher.step(good, "list_contacts"),
                return_exceptions=True), batcher

    (ok, closed, refused, unencodable, after), batcher = asyncio.run(run())
    assert ok["ok"] and ok["step"] == 1 and after["ok"] and after["step"] == 3
    assert isinstance(closed, errors.EpisodeClosed)
    assert refused["ok"] is False and refused["step"] == 2 and refused["error"]["code"] == "invalid_arguments"
    assert isinstance(unencodable, TypeError)
    assert batcher.requests == 1 and batcher.calls == 4


def test_one_turns_calls_stay_in_order_in_one_batch(api):
    async def run():
        async with AsyncSandworldClient(api) as client:
            env = AsyncSandworldEnv(client=client)
            await env.reset("coinpurse", task_id="cp-04", seed=1)
            batcher = AsyncStepBatcher(client)
            results = await batcher.step_many([(env, "get_balance", {}), (env, "list_contacts", {}),
                                               (env, "get_balance", None)])
            return results, batcher

    results, batcher = asyncio.run(run())
    assert [(r["tool"], r["step"]) for r in results] == [("get_balance", 1), ("list_contacts", 2), ("get_balance", 3)]
    assert batcher.requests == 1


def test_steps_from_many_threads_share_batches(api):
    with SandworldClient(api) as client:
        envs = [SandworldEnv(client=client) for _ in range(8)]
        for env in envs:
            env.reset("coinpurse", task_id="cp-04", seed=1)
        closed = SandworldEnv(client=client)
        closed.reset("coinpurse", task_id="cp-04", seed=1)
        closed.submit()
        batcher = StepBatcher(client, window=0.02)
        start = threading.Barrier(9)
        results, failures = {}, []

        def play(env):
            start.wait()
            results[env.episode_id] = [batcher.step(env, "get_balance") for _ in range(2)]

        def fail():
            start.wait()
            try:
                batcher.step(closed, "get_balance")
            except errors.EpisodeClosed as e:
                failures.append(e)

        threads = [threading.Thread(target=play, args=(e,)) for e in envs] + [threading.Thread(target=fail)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        batcher.close()
    assert len(failures) == 1 and len(results) == 8
    assert all([r["step"] for r in rs] == [1, 2] for rs in results.values())
    assert batcher.calls == 17 and batcher.requests <= 6
    with pytest.raises(RuntimeError):
        batcher.step(envs[0], "get_balance")
