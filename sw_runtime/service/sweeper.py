"""The background sweeps: endings past their deadlines (idle, over-age, runs that are due),
memory, retention, compaction, the results store's checkpoints.

Every piece of work here runs on the event loop between requests, so none
may hold it for long: endings are scored and results stored a few at a time,
and the sweeper yields once a turn has used ``reads.TURN`` seconds. (Measured in
the soak: storing 50 results in one turn, packing their traces, held the
loop for 100-500 ms, and ``/healthz`` p99 went to 220-370 ms.)
"""

from __future__ import annotations

import asyncio
import logging
import time

from ..engine.lifetimes import return_memory
from .reads import Turn

log = logging.getLogger("sandworld.service")

_END_SLICE = 16  # endings scored per step of a turn
_STORE_SLICE = 4  # results packed and written per step of a turn (one transaction each)


async def sweep_forever(engine, data) -> None:
    """End episodes past their deadlines (idle, timeout, step_limit) and log
    them; store the results of ended episodes; drop results past the
    retention; hand memory back to the OS after many episodes were freed;
    compact the log when it has grown. Each in steps, yielding every ``reads.TURN`` seconds."""
    period = max(0.25, min(60.0, engine.settings.idle_timeout / 4))
    trimmed_at = 0
    last = time.monotonic()
    while True:
        # A glance at the earliest deadline every second, a sweep when one is
        # due or a period has passed: an episode's own idle window
        # (idle_timeout_seconds) may be far shorter than the server's.
        await asyncio.sleep(min(period, 1.0))
        now = time.monotonic()
        due = engine.lifetimes.next_due()
        if now - last < period and (due is None or due > now):
            continue
        last = now
        try:
            await sweep_once(engine, data)
            if engine.freed - trimmed_at >= 1000:
                trimmed_at = engine.freed
                return_memory()
            if data.needs_compaction() and not engine.pending_results:
                # (compaction drops ended episodes' records: only once every result is stored)
                await data.compact()
        except Exception:  # keep sweeping whatever one pass hit
            log.exception("sweep failed")


async def sweep_once(engine, data) -> None:
    """One pass: end what is due, store what ended, prune the results store,
    yielding to the loop every ``reads.TURN`` seconds."""
    if not data.writable():
        return  # a full disk: endings wait until the log takes them (no undo every pass)
    turn = Turn()
    while True:
        freed = engine.freed
        ended = engine.sweep(most=_END_SLICE)  # ends and frees up to _END_SLICE each
        data.commit(engine)  # each step's endings are logged before the loop moves on
        if ended < _END_SLICE and engine.freed - freed < _END_SLICE:
            break
        await turn.step()
    stored = 0
    while n := data.store_results(engine, _STORE_SLICE):
        stored += n
        await turn.step()
    if data.results is not None:
        data.results.prune()
        if stored:
            await asyncio.to_thread(data.results.checkpoint)  # its fsyncs off the loop


async def sweep_runs_forever(svc, period: float = 2.0) -> None:
    """End runs past their idle window or timeout (reference 001: every few seconds)."""
    while True:
        await asyncio.sleep(period)
        if not svc.log_writable():
            continue  # a full disk or a damaged log: runs end once the log takes their endings
        try:
            await svc.sweep_runs()
        except Exception:  # keep sweeping whatever one pass hit
            log.exception("run sweep failed")
