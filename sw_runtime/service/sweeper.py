"""The background sweep that evicts idle and over-age episodes."""

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
