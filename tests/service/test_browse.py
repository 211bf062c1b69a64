"""The viewer's listing (``Service.browse``): newest first over memory and the
results store, with its filters, a cursor that holds across both, and projects."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from sw_runtime.config import Settings
from sw_runtime.pagination import PageRequest, decode_cursor
from sw_runtime.service import Filters, Service


def _ids(listing) -> list:
    return [r["episode_id"] for r in listing["items"]]


@pytest.fixture
def made():
    """Six episodes, oldest first: three ended and gone from memory (stored), three open."""
    svc = Service(Settings(durability="none", keep_ended=0))

    async def go():
        await svc.start()
        ids = []
        for i in range(6):
            body = orjson.dumps({"task_id": "cp-01", "seed": i, "agent_name": "even" if i % 2 == 0 else "odd"})
            reply = await svc.create("coinpurse", body, project="p" if i != 5 else "q")
            ids.append(orjson.loads(reply.body)["episode_id"])
            await asyncio.sleep(0.002)  # created_at is to the millisecond
        for eid in ids[:3]:
            await svc.submit(eid, b"", project="p")
        svc.engine.sweep()  # what the sweeper does: free the ended ones (keep_ended=0) ...
        svc.data.store_results(svc.engine)  # ... and store their results
        return ids

    ids = asyncio.run(go())
    yield svc, ids
    asyncio.run(svc.stop())


def test_newest_first_across_memory_and_the_results_store(made):
    svc, ids = made
    assert not any(e in svc.engine.episodes for e in ids[:3]), "ended episodes left memory (keep_ended=0)"
    listing = svc.browse(Filters(), PageRequest(10))
    assert _ids(listing) == ids[::-1] and listing["next_cursor"] is None
    ended = [r for r in listing["items"] if r["episode_id"] in ids[:3]]
    assert all(r["status"] == "ended" and r["pass"] is False and r["score"] is not None for r in ended)
    assert all(r["pass"] is None for r in listing["items"] if r["episode_id"] in ids[3:])


def test_a_cursor_pages_on_without_a_gap_or_a_repeat(made):
    svc, ids = made
    seen, cursor = [], None
    while True:
        page = svc.browse(Filters(), PageRequest(2, decode_cursor(cursor) if cursor else None))
        seen += _ids(page)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]


def test_filters_and_projects(made):
    svc, ids = made
    assert _ids(svc.browse(Filters(agent_name="even"))) == [ids[4], ids[2], ids[0]]
    assert _ids(svc.browse(Filters(status="ended", ended_by="finished", passed=False))) == ids[2::-1]
    assert _ids(svc.browse(Filters(status="open"), project="p")) == [ids[4], ids[3]]
    assert _ids(svc.browse(Filters(), project="q")) == [ids[5]]
    assert _ids(svc.browse(Filters(passed=True))) == []


def test_a_bad_status_or_a_foreign_cursor_is_invalid_request(made):
    svc, _ = made
    with pytest.raises(Exception, match="status 'gone'"):
        svc.browse(Filters(status="gone"))
    with pytest.raises(Exception, match="another list"):
        svc.browse(Filters(), PageRequest(2, (5,)))
