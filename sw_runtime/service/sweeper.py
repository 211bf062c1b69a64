"""The background sweeps: idle and over-age episodes, and runs that are due."""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("sandworld.service")


async def sweep_forever(engine) -> None:
    period = max(1.0, min(60.0, engine.settings.idle_timeout / 4))
    while True:
        await asyncio.sleep(period)
        try:
            engine.sweep()
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
