"""Lifecycle events as a listener hears them: created, submitted, and ended
with its ending (a submit, or the server ending the episode, scored)."""

from __future__ import annotations

import asyncio

import orjson

from sw_runtime.config import Settings
from sw_runtime.service import Service


def test_each_ending_is_announced_once_with_its_ending_and_score():
    svc = Service(Settings(durability="none"))
    heard = []
    svc.listen(lambda event, project, data: heard.append((event, project, data)))

    def create() -> str:
        reply = asyncio.run(svc.create("coinpurse", orjson.dumps({"task_id": "cp-01"}), project="alpha"))
        return orjson.loads(reply.body)["episode_id"]

    submitted, deleted = create(), create()
    assert [(e, p, d["episode_id"]) for e, p, d in heard] == [("episode.created", "alpha", submitted),
                                                            ("episode.created", "alpha", deleted)]
    heard.clear()
    asyncio.run(svc.submit(submitted, b"{}", project="alpha"))
    assert [(e, d["ending"] if e == "episode.ended" else None) for e, _p, d in heard] == [
        ("episode.submitted", None), ("episode.ended", "submitted")]
    heard.clear()
    out = svc.delete(deleted, project="alpha")
    (event, project, data), = heard
    assert (event, project, data["episode_id"], data["ending"]) == ("episode.ended", "alpha", deleted, "deleted")
    assert data["score"] == out["evaluation"]["score"] and data["steps"] == 0
