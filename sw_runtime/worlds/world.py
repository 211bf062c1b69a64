"""A world: a simulated app with a seeded state, tools and tasks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Callable


@dataclass
class World:
    name: str
    version: str
    title: str
    description: str
    epoch: str  # simulated time of step 0, "YYYY-MM-DDTHH:MM:SS.000Z"
    collections: tuple
    policy: str
    tools: list
    tasks: list
    generate: Callable  # (seed: int) -> {collection: {id: record}}
    seconds_per_step: int = 7
    tools_by_name: dict = field(init=False, repr=False)
    tasks_by_id: dict = field(init=False, repr=False)
    epoch_ms: int = field(init=False, repr=False)

    def __post_init__(self):
        dt = datetime.strptime(self.epoch, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        self.epoch_ms = int(dt.timestamp() * 1000)
        self.tools_by_name = {t.name: t for t in self.tools}
        self.tasks_by_id = {t.id: t for t in self.tasks}
        if len(self.tools_by_name) != len(self.tools):
            raise ValueError(f"world {self.name}: duplicate tool names")
        if len(self.tasks_by_id) != len(self.tasks):
            raise ValueError(f"world {self.name}: duplicate task ids")

    def clock(self, steps: int) -> list:
        """Timestamps of steps 0..steps, formatted once (formatting costs more than a step)."""
        start = datetime.fromtimestamp(self.epoch_ms / 1000, tz=timezone.utc)
        out = []
        for n in range(steps + 1):
            t = start + timedelta(seconds=self.seconds_per_step * n)
            out.append(t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z")
        return out

    def describe(self, full: bool = True) -> dict:
        out = {
            "name": self.name,
            "version": self.version,
            "title": self.title,
            "description": self.description,
        }
        if full:
            out["collections"] = list(self.collections)
            out["tools"] = [t.definition() for t in self.tools]
            out["tasks"] = [
                {"id": t.id, "title": t.title, "step_budget": t.step_budget, "refusal": t.refusal}
                for t in self.tasks
            ]
        else:
            out["tasks"] = len(self.tasks)
            out["tools"] = len(self.tools)
        return out
