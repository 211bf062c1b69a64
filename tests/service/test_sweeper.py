"""The sweeper ends and stores in small steps, yielding to the event loop
between them, and still ends, frees and stores everything that is due."""

from __future__ import annotations

import asyncio
import time

import orjson

from sw_runtime.config import Settings
from sw_runtime.service import Service, reads, sweeper


def test_a_pass_ends_frees_and_stores_everything_due_yielding_between_steps(monkeypatch):
    monkeypatch.setattr(reads, "TURN", 0.0)  # yield after every step, however fast this machine
    svc = Service(Settings(durability="none", idle_timeout=0.05))
    n = 5 * sweeper._END_SLICE + 3

    async def go():
        await svc.start()
        try:
            items = [{"environment": "coinpurse", "task_id": "cp-02", "seed": i} for i in range(n)]
            await svc.create_many(orjson.dumps({"episodes": items}))
            time.sleep(0.1)  # every episode is past its idle deadline
            others = 0

            async def meanwhile():  # another task, served between the sweeper's steps
                nonlocal others
                while not task.done():
                    others += 1
                    await asyncio.sleep(0)

            task = asyncio.ensure_future(sweeper.sweep_once(svc.engine, svc.data))
            await asyncio.gather(task, meanwhile())
            # ending steps (n / _END_SLICE) and storing steps (n / _STORE_SLICE) each gave the loop a turn
            assert others >= n // sweeper._STORE_SLICE
            engine = svc.engine
            assert engine.live == 0 and not engine.episodes and not engine.pending_results
            assert len(engine.results) == n
        finally:
            await svc.stop()

    asyncio.run(go())
