"""Batch create through the service: the episodes of a group (one item
repeated) start from one plan and their answers share what they have in
common, encoded once; each episode's answer is still byte for byte what
``_created`` encodes for it, the log replays them all, and listeners that
hear nothing are not told of each episode."""

from __future__ import annotations

import asyncio

import msgspec
import orjson

from sw_runtime.config import Settings
from sw_runtime.engine import views
from sw_runtime.service import Service
from sw_runtime.service.operations import _CREATE_SLICE

GROUP = {"environment": "coinpurse", "task_id": "cp-05", "seed": 7}
ITEMS = [
    *[GROUP] * 3,
    # a task with details only the user knows (a scripted user), signals, an agent name JSON must escape
    *[{"environment": "coinpurse", "task_id": "cp-14", "seed": 3, "signals": True,
       "agent_name": "é \"quoted\" \u2028 </script>"}] * 2,
    {"environment": "dummy", "task_id": "dm-01", "seed": 1, "mode": "sandbox", "fault_profile": "stale_read",
     "checks": [{"kind": "write_count", "min": 1}], "scoring": "informative"},
    *[{"environment": "receivables", "seed": 2, "trigger": {"kind": "invoice"}}] * 2,
    {"environment": "nowhere"},
    {"environment": "dummy", "seed": -1},
    {"environment": "coinpurse", "task_id": "cp-99"},
    GROUP,  # the first group again, after the others
]


def _batch(svc, items) -> bytes:
    return asyncio.run(svc.create_many(orjson.dumps({"episodes": items}))).body


def _expected(svc, body: bytes) -> bytes:
    """``body`` as the service encoded answers before batch create shared
    anything: each episode's ``_created`` dict, each refusal's slot, encoded whole."""
    slots = [orjson.dumps(svc._created(svc.engine.episodes[r["episode_id"]])) if "episode_id" in r
             else orjson.dumps(r) for r in orjson.loads(body)["results"]]
    return b'{"results":[' + b",".join(slots) + b"]}"


def test_each_answer_is_byte_for_byte_the_episodes_own():
    svc = Service(Settings(durability="none"))
    body = _batch(svc, ITEMS)
    results = orjson.loads(body)["results"]
    assert [r.get("error", {}).get("code") for r in results] == [None] * 8 + ["not_found", "invalid_request",
                                                                               "invalid_request", None]
    assert len({r["episode_id"] for r in results if "episode_id" in r}) == 9
    assert body == _expected(svc, body)


def test_a_batch_of_many_slices_answers_the_same_bytes():
    svc = Service(Settings(durability="none"))
    other = {**GROUP, "seed": 8}
    body = _batch(svc, [GROUP] * (_CREATE_SLICE + 3) + [other] * _CREATE_SLICE + [GROUP] * 5)
    assert len(orjson.loads(body)["results"]) == 2 * _CREATE_SLICE + 8
    assert body == _expected(svc, body)


def test_the_episodes_of_a_group_share_one_plan_and_nothing_they_change():
    svc = Service(Settings(durability="none"))
    trigger = {"environment": "receivables", "seed": 2, "trigger": {"kind": "invoice"}}
    items = [msgspec.Raw(orjson.dumps(i)) for i in (GROUP, GROUP, trigger, trigger, GROUP)]
    (a, pa), (b, pb), (c, pc), (d, pd), (e, pe) = svc.engine.create_many(items)
    assert pa is pb is pe and pc is pd and pa is not pc
    assert a.start is b.start is pa.store and a.store is not b.store and a.checks is b.checks
    assert c.trigger == d.trigger and c.trigger is not d.trigger


def test_only_listeners_that_hear_are_told_of_each_episode():
    svc = Service(Settings(durability="none"))
    deaf, hearing, plain = [], [], []
    svc.listen(lambda event, project, data: deaf.append(data), lambda event, project: False)
    svc.listen(lambda event, project, data: hearing.append(data), lambda event, project: project == "alpha")
    _batch(svc, [GROUP] * 3)
    assert deaf == hearing == []
    svc.listen(lambda event, project, data: plain.append(data["episode_id"]))  # no hears: always told
    body = asyncio.run(svc.create_many(orjson.dumps({"episodes": [GROUP] * 3}), project="alpha")).body
    ids = [r["episode_id"] for r in orjson.loads(body)["results"]]
    assert [d["episode_id"] for d in hearing] == ids == plain


def test_a_batch_create_replays_from_the_log(tmp_path):
    async def session(items=None):
        svc = Service(Settings(data_dir=str(tmp_path)))
        await svc.start()
        try:
            if items is not None:
                await svc.create_many(orjson.dumps({"episodes": items}))
            # (less expires_at: a replayed episode's windows start again at the restart)
            return svc.health()["replay"], {eid: {k: v for k, v in views.full(ep).items() if k != "expires_at"}
                                            for eid, ep in svc.engine.episodes.items()}
        finally:
            await svc.stop()

    _, before = asyncio.run(session(ITEMS))
    replay, after = asyncio.run(session())
    assert replay["mismatches"] == 0 and replay["episodes"] == 9
    assert after == before
