"""Sandbox mode in every world: safe tools run, guarded tools preview, unclassed tools are blocked."""

from __future__ import annotations

import msgspec
import pytest

from sw_runtime import errors, schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.worlds import registry
from sw_runtime.worlds.dummy import WORLD as DUMMY
from sw_runtime.worlds.tool import tool
from sw_runtime.worlds.world import World


class BumpArgs(msgspec.Struct, forbid_unknown_fields=True):
    key: str


@tool(writes=True, params=BumpArgs, cls=None)
def bump(ctx, args):
    """Add one to an item (a tool nobody classified)."""
    item = ctx.store.get("items", args.key)
    return ctx.store.update("items", args.key, {"value": item["value"] + 1})


WORLD = World(name="unclassed-test", version="0.0.1", title="Unclassed", description="test", epoch=DUMMY.epoch,
              collections=DUMMY.collections, policy="", tools=[*DUMMY.tools, bump], tasks=[], generate=DUMMY.generate)


@pytest.fixture
def engine():
    registry()[WORLD.name] = WORLD
    try:
        yield Engine()
    finally:
        del registry()[WORLD.name]


def test_another_worlds_write_tool_answers_would_change_and_changes_nothing(engine):
    ep = engine.create("coinpurse", schemas.CreateEpisode(task_id="cp-12", seed=2, mode="sandbox"))
    pending = engine.step(ep.id, "list_requests", {"status": "pending"})
    assert pending["ok"] and "sandbox" not in pending["result"]
    paid = engine.step(ep.id, "pay_request", {"request_id": "rq-16"})
    assert paid["ok"] is True and paid["result"]["sandbox"] is True
    assert set(paid["result"]["would_change"]) == {"account", "requests", "transactions"}
    assert paid["result"]["would_change"]["requests"]["updated"] == ["rq-16"]
    assert ep.digest == ep.seed_digest and ep.calls[-1] == ("pay_request", True, False)
    refused = engine.step(ep.id, "pay_request", {"request_id": "rq-nope"})
    assert refused["ok"] is False  # a call the app refuses is refused in a sandbox too


def test_an_unclassed_tool_is_blocked_in_sandbox_mode_only(engine):
    assert "class" not in bump.definition()
    ep = engine.create(WORLD.name, schemas.CreateEpisode(mode="sandbox"))
    blocked = engine.step(ep.id, "bump", {"key": "it-01"})
    assert blocked["ok"] is False and blocked["error"]["code"] == "unclassified_tool"
    assert "needs a tool class" in blocked["error"]["message"] and "safe or guarded" in blocked["error"]["message"]
    assert engine.step(ep.id, "get", {"key": "it-01"})["ok"] is True  # safe tools still run
    live = engine.create(WORLD.name, schemas.CreateEpisode())
    assert engine.step(live.id, "bump", {"key": "it-01"})["ok"] is True


def test_an_unknown_mode_is_an_invalid_request(engine):
    with pytest.raises(errors.InvalidRequest, match="unknown mode 'dry'"):
        engine.create("dummy", schemas.CreateEpisode(mode="dry"))


def test_a_fork_of_a_sandbox_episode_is_a_sandbox_episode(engine):
    from sw_runtime.engine.forks import clone

    ep = engine.create("dummy", schemas.CreateEpisode(mode="sandbox"))
    twin = clone(ep, "ep_00twin", inherited=True)
    answer = twin.call("set", {"key": "it-01", "value": 5})
    assert answer["result"]["sandbox"] is True and twin.digest == ep.seed_digest
    assert twin.summary()["mode"] == "sandbox"
