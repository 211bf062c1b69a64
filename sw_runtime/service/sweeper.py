"""The background sweeps: endings past their deadlines (idle, over-age, runs that are due),
memory, retention, compaction."""

from __future__ import annotations

import asyncio
import logging

from ..engine.lifetimes import return_memory

log = logging.getLogger("sandworld.service")

_SLICE = 500  # endings per turn of the event loop
_STORE_SLICE = 50  # results written to the results store per turn of the event loop


async def sweep_forever(engine, data) -> None:
    """End episodes past their deadlines (idle, timeout, step_limit) in slices,
    logging each slice; store the results of ended episodes (in slices); drop
    results past the retention; hand
    memory back to the OS after many episodes were freed; compact the log
    when it has grown."""
    period = max(0.25, min(60.0, engine.settings.idle_timeout / 4))
    trimmed_at = 0
    while True:
        await asyncio.sleep(period)
        try:
            while engine.sweep(most=_SLICE) >= _SLICE:
                data.commit(engine)
                await asyncio.sleep(0)
            data.commit(engine)
            while data.store_results(engine, _STORE_SLICE) >= _STORE_SLICE:
                await asyncio.sleep(0)
            if data.results is not None:
                data.results.prune()
            if engine.freed - trimmed_at >= 1000:
                trimmed_at = engine.freed
                return_memory()
            if data.needs_compaction() and not engine.pending_results:
                # (compaction drops ended episodes' records: only once every result is stored)
                await data.compact()
        except Exception:  # keep sweeping whatever one pass hit
            log.exception("sweep failed")


async def sweep_runs_forever(svc, period: float = 2.0) -> None:
    """End runs past their idle window or timeout (reference 001: every few seconds)."""
    while True:
        await asyncio.sleep(period)
        try:
            await svc.sweep_runs()
        except Exception:  # keep sweeping whatever one pass hit
            log.exception("run sweep failed")
