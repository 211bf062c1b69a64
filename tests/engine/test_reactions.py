"""Reactions of simulated colleagues: returned on the step, in the trace, the
state diff and the digest, and never counted as steps."""

from __future__ import annotations

import msgspec
import pytest

from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.verify import checks as C
from sw_runtime.worlds import registry
from sw_runtime.worlds.task import Setup, Task
from sw_runtime.worlds.tool import tool
from sw_runtime.worlds.world import Reaction, World


class PostArgs(msgspec.Struct, forbid_unknown_fields=True):
    channel: str
    text: str


@tool(writes=True, params=PostArgs)
def post(ctx, args):
    """Post a message."""
    mid = ctx.new_id("messages", "msg")
    ctx.store.insert("messages", mid, {"id": mid, "channel": args.channel, "user": "me", "text": args.text,
                                       "thread": None})
    return {"ok": True, "id": mid}


def reply_in_thread(ctx, args, result):
    if args.channel != "team":
        return None
    rid = f"{result['id']}-r1"
    ctx.store.insert("messages", rid, {"id": rid, "channel": "team", "user": "ann", "text": "On it.",
                                       "thread": result["id"]})
    return [{"id": "rx_ann", "user": "ann", "ts": ctx.at, "text": "On it."}]


def _setup(store):
    return Setup(instruction="Tell the team.", checks=[
        C.RecordExists(id="told", label="told", collection="messages", where={"channel": "team", "user": "me"})],
        solution=[("post", {"channel": "team", "text": "hi"})])


WORLD = World(name="rx-test", version="0.0.1", title="Reactions", description="test", epoch="2026-01-01T00:00:00.000Z",
              collections=("messages",), policy="", tools=[post], tasks=[Task(id="rx-01", title="t", setup=_setup)],
              generate=lambda seed: {"messages": {}}, reactions=[Reaction(id="ann", on="post", fire=reply_in_thread)])


@pytest.fixture
def engine():
    registry()["rx-test"] = WORLD
    try:
        yield Engine()
    finally:
        del registry()["rx-test"]


def test_reaction_comes_back_on_the_step_and_is_not_a_step(engine):
    ep = engine.create("rx-test", schemas.CreateEpisode(task_id="rx-01", signals=True))
    quiet = engine.step(ep.id, "post", {"channel": "random", "text": "hello"})
    assert "reactions" not in quiet and quiet["step"] == 1
    answer = engine.step(ep.id, "post", {"channel": "team", "text": "hi"})
    assert answer["step"] == 2
    assert answer["reactions"] == [{"id": "rx_ann", "user": "ann", "ts": "2026-01-01T00:00:14.000Z", "text": "On it."}]
    assert ep.steps == 2
    entry = ep.trace.entries()[-1]
    assert entry["reactions"] == answer["reactions"] and ep.trace.entries()[0]["reactions"] == []
    # the digest after the step includes the colleague's reply
    assert entry["state_digest"] == ep.store.digest() and ep.store.get("messages", "msg-s002-r1")["user"] == "ann"
    ev = engine.submit(ep.id, "")
    assert ev["state_diff"]["messages"]["created"] == ["msg-s001", "msg-s002", "msg-s002-r1"]
    assert ev["steps"] == 2 and ev["pass"] is True


def test_a_reaction_on_an_unknown_tool_is_refused_at_load():
    with pytest.raises(ValueError, match="unknown tool"):
        World(name="bad", version="0", title="", description="", epoch="2026-01-01T00:00:00.000Z",
              collections=(), policy="", tools=[post], tasks=[], generate=lambda s: {},
              reactions=[Reaction(id="x", on="nope", fire=reply_in_thread)])
