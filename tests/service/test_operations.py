"""The service called directly, as every door calls it: bytes in, encoded
answers out, ``ApiError``s for what cannot be done. The HTTP tests
(tests/runtime/) check the same operations through a real server."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from sw_runtime import errors
from sw_runtime.config import Settings
from sw_runtime.service import Reply, Service


def _run(coro):
    return asyncio.run(coro)


@pytest.fixture
def svc():
    return Service(Settings())


def _create(svc, env="coinpurse", **body) -> dict:
    reply = _run(svc.create(env, orjson.dumps(body)))
    assert isinstance(reply, Reply) and reply.created and not reply.replayed
    return orjson.loads(reply.body)


def test_create_step_batch_submit_round_trip(svc):
    ep = _create(svc, task_id="cp-12", seed=2)
    eid = ep["episode_id"]
    assert ep["environment"] == "coinpurse" and ep["task_id"] == "cp-12" and ep["tools"]
    step = orjson.loads(_run(svc.step(eid, b'{"tool": "list_requests", "arguments": {"status": "pending"}}')))
    assert step["step"] == 1 and step["ok"] is True
    batch = orjson.loads(_run(svc.batch(orjson.dumps({"calls": [
        {"episode_id": eid, "tool": "pay_request", "arguments": {"request_id": "rq-16"}},
        {"episode_id": "ep_nope", "tool": "pay_request", "arguments": {}},
        {"episode_id": eid, "tool": "decline_request", "arguments": {"request_id": "rq-17"}},
    ]}))))["results"]
    assert [r["ok"] for r in batch] == [True, False, True]
    assert batch[1]["error"]["code"] == "not_found"  # one bad call fails its own slot only
    assert [r.get("step") for r in batch] == [2, None, 3]
    ev = orjson.loads(_run(svc.submit(eid, b'{"output": "paid rq-16, declined rq-17"}')).body)
    assert ev["pass"] is True and ev["score"] == 1.0
    read = svc.episode(eid)
    assert read["status"] == "submitted" and len(read["trace"]) == 3 and read["evaluation"] == ev


def test_errors_are_api_errors_not_transport_answers(svc):
    with pytest.raises(errors.NotFound):
        _run(svc.create("no-such-world", b"{}"))
    with pytest.raises(errors.InvalidJson):
        _run(svc.step("ep_x", b"{not json"))
    with pytest.raises(errors.InvalidRequest, match="unknown field: colour"):
        _run(svc.create("coinpurse", b'{"colour": "red"}'))
    eid = _create(svc)["episode_id"]
    _run(svc.submit(eid, b""))
    with pytest.raises(errors.EpisodeClosed):
        _run(svc.step(eid, b'{"tool": "get_balance"}'))


def test_an_idempotency_key_replays_the_first_answer(svc):
    body = orjson.dumps({"task_id": "cp-04", "seed": 1})
    first = _run(svc.create("coinpurse", body, key="k-1"))
    again = _run(svc.create("coinpurse", b'{"seed": 1, "task_id": "cp-04"}', key="k-1"))  # same, reordered
    assert again.replayed and again.created and again.body == first.body
    assert len(svc.engine.episodes) == 1
    with pytest.raises(errors.IdempotencyKeyReused):
        _run(svc.create("coinpurse", b'{"task_id": "cp-04", "seed": 2}', key="k-1"))
    with pytest.raises(errors.InvalidRequest, match="Idempotency-Key"):
        _run(svc.create("coinpurse", body, key="has space"))


def test_batch_submit_honours_its_key(svc):
    """A retried batch submit after a lost answer gets the scores, not episode_closed."""
    eids = [_create(svc, task_id="cp-01", seed=s)["episode_id"] for s in (0, 1)]
    body = orjson.dumps({"episodes": [{"episode_id": e} for e in eids]})
    first = _run(svc.submit_many(body, key="sub-1"))
    again = _run(svc.submit_many(body, key="sub-1"))
    assert again.replayed and again.body == first.body
    assert all("score" in r for r in orjson.loads(again.body)["results"])


def test_fork_and_snapshot_through_the_service(svc):
    eid = _create(svc, task_id="cp-12", seed=2)["episode_id"]
    _run(svc.step(eid, b'{"tool": "pay_request", "arguments": {"request_id": "rq-16"}}'))
    group = orjson.loads(_run(svc.fork(eid, b'{"n": 3}')).body)
    assert group["forked_from"] == eid and len(group["episodes"]) == 3
    assert {f["digest"] for f in group["episodes"]} == {group["digest"]}
    snap = orjson.loads(svc.take_snapshot(eid).body)
    assert svc.snapshot(snap["snapshot_id"])["digest"] == group["digest"]
    assert svc.delete_snapshot(snap["snapshot_id"]) == {"snapshot_id": snap["snapshot_id"], "deleted": True}


def test_state_and_seed_validation(svc):
    eid = _create(svc, seed=3)["episode_id"]
    dump = svc.state(eid)
    assert dump["digest"].startswith("sha256:") and "contacts" in dump["collections"]
    part = svc.state(eid, ["contacts"])
    assert list(part["collections"]) == ["contacts"] and part["digest"] == dump["digest"]
    with pytest.raises(errors.InvalidRequest, match="unknown nope"):
        svc.state(eid, ["nope"])
    ok = _run(svc.validate_seed("coinpurse", orjson.dumps({"state": dump["collections"]})))
    assert ok == {"valid": True, "checked": ["coinpurse"], "unchecked": [], "issues": [], "digest": dump["digest"]}
    with pytest.raises(errors.InvalidSeed) as bad:
        _run(svc.validate_seed("coinpurse", b'{"state": {"contacts": 5}}'))
    assert bad.value.status == 422 and bad.value.extra["issues"]


def test_start_and_stop_run_the_sweeper(tmp_path):
    async def scenario():
        svc = Service(Settings(idle_timeout=1.0, data_dir=str(tmp_path)))
        await svc.start()
        task = svc._sweeper
        assert task is not None and not task.done()
        await svc.stop()
        assert task.cancelled() and svc._sweeper is None

    _run(scenario())


def test_the_catalogue(svc):
    names = [e["name"] for e in svc.environments()["environments"]]
    assert "coinpurse" in names and "dummy" in names
    assert svc.environment("coinpurse")["name"] == "coinpurse"
    assert svc.checks()["kinds"] and svc.fault_profiles()["fault_profiles"]
    assert svc.health()["ok"] is True
