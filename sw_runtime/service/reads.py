"""Reading large things without holding the event loop.

A state dump of a large (custom) state and the trace of a long episode are
megabytes of JSON: built and encoded in one go they held the loop for
0.3-0.8 s (a 13 MiB state, a 100,000-step trace), and every other request,
``/healthz`` too, waited. Here they are encoded a slice at a time, the loop
serving others whenever a turn has used ``TURN`` seconds:

* a state dump is read from an O(1) copy-on-write fork of the episode's
  store taken when the read starts, so steps that run meanwhile do not tear it;
* a trace is read up to its length when the read starts (rows are only ever
  appended, never changed);
* an ended episode read from the results store is fetched off the loop, its
  trace left as the stored JSON rather than decoded and encoded again.

Small ones take the plain path: the answers are the same either way.
"""

from __future__ import annotations

import asyncio
import time

import orjson
from sw_core_ext import digest_of_acc, record_hash

from ..engine import endings, views

TURN = 0.01  # seconds of encoding between two yields to the event loop
SLICE = 2000  # records or trace entries encoded per step of a turn
_dumps = orjson.dumps


class Turn:
    """Yields to the event loop once ``TURN`` seconds were spent since the last yield."""

    def __init__(self):
        self.since = time.perf_counter()

    async def step(self) -> None:
        if time.perf_counter() - self.since >= TURN:
            await asyncio.sleep(0)
            self.since = time.perf_counter()


async def state_json(ep, collections: list | None = None) -> bytes:
    """``views.state`` as JSON, encoded a slice at a time when the state is large."""
    names = views.state_names(ep, collections)
    store = ep.store
    if sum(store.count(n) for n in names) <= SLICE:
        return _dumps(views.state(ep, collections))
    store = store.fork()  # what the state is now, whatever steps run while it is read
    head = views.state_head(ep)
    turn = Turn()
    acc = 0
    dumped = []
    for name in names:
        ids = store.ids(name)  # (not ``scan``: its first call on a large collection sorts it all at once)
        get = store.get
        parts = []
        for i in range(0, len(ids), SLICE):
            part = {rid: get(name, rid) for rid in ids[i:i + SLICE]}
            parts.append(_dumps(part)[1:-1])
            if collections is not None:  # the digest of what is returned: the sum of its records' hashes
                acc += sum(record_hash(name, rid, rec) for rid, rec in part.items())
            await turn.step()
        dumped.append(_dumps(name) + b":{" + b",".join(p for p in parts if p) + b"}")
    head["collections"] = orjson.Fragment(b"{" + b",".join(dumped) + b"}")
    if collections is not None:
        head["collections_digest"] = digest_of_acc(acc % (1 << 256))
    return _dumps(head)


async def episode_json(engine, episode_id: str, project: str | None = None) -> bytes:
    """``Engine.describe`` as JSON: a long trace encoded a slice at a time, an
    episode in the results store read off the loop."""
    ep = engine.episodes.get(episode_id)
    held = ep if ep is not None else engine.pending_results.get(episode_id)
    if held is None:
        if engine.results is not None:
            kept = await asyncio.to_thread(engine.results.get, episode_id, project=project, raw_trace=True)
            if kept is not None:
                return _dumps(kept)
        return _dumps(engine.describe(episode_id, project))  # raises, saying why
    if (project is not None and held.project != project) or len(held.trace) <= SLICE:
        return _dumps(engine.describe(episode_id, project))
    body = held.summary() if ep is not None else endings.summary(held)
    trace, n = held.trace, len(held.trace)
    turn = Turn()
    parts = []
    for i in range(0, n, SLICE):
        parts.append(_dumps(trace.entries(i, min(n, i + SLICE), raw=True))[1:-1])
        await turn.step()
    body["trace"] = orjson.Fragment(b"[" + b",".join(parts) + b"]")
    body["evaluation"] = held.evaluation
    return _dumps(body)
