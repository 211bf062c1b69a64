"""What the engine counts for ``/metrics``: steps, creates and submits by
world, refusals by code. Plain integers in dicts (one event loop, no locks);
``security/metrics.py`` reads them when Prometheus scrapes, so nothing on the
stepping path touches a metric object."""

from __future__ import annotations

from collections import Counter

import orjson


class Tally:
    __slots__ = ("steps", "creates", "submits", "refusals")

    def __init__(self):
        self.steps: Counter = Counter()
        self.creates: Counter = Counter()
        self.submits: Counter = Counter()
        self.refusals: Counter = Counter()

    def refused(self, payload_json: bytes) -> None:
        """Count a refused call by the code in its error payload."""
        try:
            code = orjson.loads(payload_json).get("code")
        except (orjson.JSONDecodeError, AttributeError):
            code = None
        self.refusals[code if isinstance(code, str) else "unknown"] += 1

    def snapshot(self) -> dict:
        return {"steps": dict(self.steps), "creates": dict(self.creates), "submits": dict(self.submits),
                "refusals": dict(self.refusals)}
