"""Large reads yield to the loop: a state dump of a large custom state and a
long trace are encoded in slices, with the same answers as the plain path,
and a real server answers /healthz while it sends them."""

from __future__ import annotations

import asyncio
import multiprocessing
import time

import httpx
import orjson
import pytest
from sandworld.local import local_server_process
from sw_core_ext import Store

from sw_runtime.config import Settings
from sw_runtime.engine import views
from sw_runtime.service import Service, reads
from tests.runtime.test_batch_slices import probe

N = 20_000  # records: ten slices


def big_state(n: int = N) -> dict:
    return {"items": {f"it-{i:07d}": {"id": f"it-{i:07d}", "value": i} for i in range(n)}}


def _service(**settings) -> Service:
    return Service(Settings(durability="none", max_seed_body=1 << 30, max_body=1 << 30, **settings))


def test_a_large_state_dump_is_the_plain_one_and_is_not_torn_by_steps_meanwhile(monkeypatch):
    monkeypatch.setattr(reads, "TURN", 0.0)  # yield after every slice, however fast this machine
    svc = _service()

    async def go():
        eid = orjson.loads((await svc.create("dummy", orjson.dumps({"state": big_state()}))).body)["episode_id"]
        ep = svc.engine.episodes[eid]
        plain = views.state(ep)
        before = svc.state_json(eid)
        turns = 0

        async def step_meanwhile():  # a step between two slices of the read
            nonlocal turns
            while not task.done():
                turns += 1
                svc.engine.step(eid, "set", {"key": "it-0000001", "value": 1000 + turns})
                await asyncio.sleep(0)

        task = asyncio.ensure_future(before)
        await asyncio.gather(task, step_meanwhile())
        return plain, orjson.loads(task.result()), turns, svc.engine.get(eid)

    plain, got, turns, ep = asyncio.run(go())
    assert turns > 1  # the read did yield, and steps ran while it was read
    assert got == plain  # as the state was when the read began, whole and untorn
    assert Store(got["collections"]).digest() == got["digest"] != ep.digest


def test_a_large_dump_of_some_collections_has_their_digest():
    svc = _service()

    async def go():
        body = orjson.dumps({"state": big_state()})
        eid = orjson.loads((await svc.create("dummy", body)).body)["episode_id"]
        return views.state(svc.engine.get(eid), ["items"]), orjson.loads(await svc.state_json(eid, ["items"]))

    plain, got = asyncio.run(go())
    assert got == plain and got["collections_digest"] == Store(got["collections"]).digest()


def test_a_long_trace_reads_the_same_in_slices_from_memory_and_from_the_store():
    svc = _service(step_limit=3 * reads.SLICE)

    async def go():
        await svc.start()  # opens the results store (in memory, --durability none)
        eid = orjson.loads((await svc.create("coinpurse", b'{"task_id": "cp-02", "seed": 1}')).body)["episode_id"]
        tools = ["get_balance", "list_requests", "list_contacts", "list_transactions"]
        calls = [{"episode_id": eid, "tool": tools[i % 4], "arguments": {}} for i in range(2 * reads.SLICE + 7)]
        await svc.batch(orjson.dumps({"calls": calls}))
        live = svc.episode(eid)
        sliced = orjson.loads(await svc.episode_json(eid))
        svc.delete(eid)
        svc.data.store_results(svc.engine)  # now only the results store has it
        assert eid not in svc.engine.episodes and eid not in svc.engine.pending_results
        try:
            return live, sliced, svc.episode(eid), orjson.loads(await svc.episode_json(eid))
        finally:
            await svc.stop()

    live, sliced, stored, stored_sliced = asyncio.run(go())
    assert len(live["trace"]) == 2 * reads.SLICE + 7
    assert sliced == orjson.loads(orjson.dumps(live))
    assert stored_sliced == stored and stored["trace"] == live["trace"]


def _during(root: str, read) -> tuple:
    """Run ``read()`` while another process probes /healthz: (its answer,
    its seconds, the probe latencies that fell inside it)."""
    ctx = multiprocessing.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    prober = ctx.Process(target=probe, args=(root, stop, out))
    prober.start()
    time.sleep(1.0)  # the prober is up
    start = time.perf_counter()
    r = read()
    end = time.perf_counter()
    stop.set()
    got = out.get(timeout=60)
    prober.join()
    return r, end - start, sorted(lat for t, lat in got if start <= t and t + lat <= end)


@pytest.mark.slow
def test_healthz_answers_while_a_large_state_and_a_long_trace_are_read():
    state = big_state(400_000)  # 18 MiB of JSON
    env = {"SW_MAX_SEED_BODY": str(1 << 28), "SW_MAX_BODY": str(1 << 28)}
    with local_server_process("--step-limit", "100000", env=env) as (url, _):
        root = url.removesuffix("/api/v1")
        with httpx.Client(base_url=url, timeout=300) as http:
            eid = http.post("/environments/dummy/episodes", content=orjson.dumps({"state": state}),
                            headers={"content-type": "application/json"}).json()["episode_id"]
            r, seconds, during = _during(root, lambda: http.get(f"/episodes/{eid}/state"))
            got = r.json()
            assert len(got["collections"]["items"]) == 400_000
            assert Store(got["collections"]).digest() == got["digest"]
            # A blocked loop answers no probe until the read is done; a sliced one answers them all along.
            assert len(during) >= seconds / 0.1, (len(during), seconds)
            assert during[len(during) // 2] < 0.1

            long = http.post("/environments/dummy/episodes", json={"task_id": "dm-01"}).json()["episode_id"]
            calls = [{"episode_id": long, "tool": "get", "arguments": {"key": "it-01"}}] * 25_000
            for _ in range(4):
                http.post("/batch", content=orjson.dumps({"calls": calls}),
                          headers={"content-type": "application/json"}).raise_for_status()
            r, seconds, during = _during(root, lambda: http.get(f"/episodes/{long}"))
            trace = r.json()["trace"]
            assert [e["seq"] for e in trace] == list(range(1, 100_001))
            assert len(during) >= seconds / 0.1, (len(during), seconds)
            assert during[len(during) // 2] < 0.1
