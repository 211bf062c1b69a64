"""A world: a simulated app with a seeded state, tools and tasks."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from sw_core_ext import Store


@dataclass(frozen=True)
class Reaction:
    """A simulated colleague's rule: after a successful call to ``on``,
    ``fire(ctx, args, result)`` may write records through ``ctx.store`` and
    returns the reactions it made as ``[{id, user, ts, text}]`` (or nothing).

    Reactions are not steps: they come back on the step that caused them, in
    the trace, in the state diff and in the digest.
    """

    id: str
    on: str  # tool name
    fire: Callable


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
    reactions: list = field(default_factory=list)
    # state_schema.StateSchema: the typed records custom seeds are parsed with;
    # None: the world takes no custom state.
    state_schema: object = None
    # kind -> hydrate(store, entity_id | None) -> payload: episodes may start
    # from these events (engine/triggers.py); e.g. receivables' invoice.
    triggers: dict = field(default_factory=dict)
    # every name a call may use -> its tool: the served names and the aliases (tool.py)
    tools_by_name: dict = field(init=False, repr=False)
    tasks_by_id: dict = field(init=False, repr=False)
    epoch_ms: int = field(init=False, repr=False)
    reactions_by_tool: dict = field(init=False, repr=False)

    def __post_init__(self):
        dt = datetime.strptime(self.epoch, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        self.epoch_ms = int(dt.timestamp() * 1000)
        self.tools_by_name = {t.name: t for t in self.tools}
        if len(self.tools_by_name) != len(self.tools):
            raise ValueError(f"world {self.name}: duplicate tool names")
        for t in self.tools:
            if t.alias is not None:
                if self.tools_by_name.setdefault(t.alias, t) is not t:
                    raise ValueError(f"world {self.name}: the alias {t.alias!r} of {t.name} is another tool's name")
        self.reactions_by_tool = {}  # keyed by served name, as calls are traced
        for r in self.reactions:
            if r.on not in self.tools_by_name:
                raise ValueError(f"world {self.name}: reaction {r.id} is on unknown tool {r.on!r}")
            self.reactions_by_tool.setdefault(self.tools_by_name[r.on].name, []).append(r)
        for t in self.tools:
            unknown = set(t.reads or ()) - set(self.collections)
            if unknown:
                raise ValueError(f"world {self.name}: tool {t.name} reads unknown collections {sorted(unknown)}")
        self.tasks_by_id = {t.id: t for t in self.tasks}
        if len(self.tasks_by_id) != len(self.tasks):
            raise ValueError(f"world {self.name}: duplicate task ids")
        if self.state_schema is not None and set(self.state_schema.collections) != set(self.collections):
            raise ValueError(f"world {self.name}: its state_schema must type exactly its collections")

    def seed_store(self, seed: int):
        """The start ``Store`` of ``seed`` (a composite's holds one per part)."""
        return Store(self.generate(seed), collections=self.collections, shapes=self.shapes)

    def state_store(self, state: dict, seed: int = 0):
        """The start ``Store`` of a custom ``state`` already validated by
        ``state_schema`` (a composite fills the parts its envelope leaves
        out from ``seed``)."""
        return Store(state, collections=self.collections, shapes=self.shapes)

    @property
    def shapes(self) -> dict | None:
        """Collection -> its records' field names in ``state_schema``'s order:
        the state core keeps such records compactly (``Store(shapes=...)``)."""
        if self.state_schema is None:
            return None
        return self.state_schema.shapes

    def tool_names(self) -> list:
        """The served names of the tools, sorted (``tools_by_name`` holds the aliases too)."""
        return sorted(t.name for t in self.tools)

    def served(self, name: str) -> str:
        """The served name of the tool its own world calls ``name`` (its
        served name or alias; a composite may serve it as ``world_name``);
        ``name`` itself when there is none."""
        tool = self.tools_by_name.get(name)
        return tool.name if tool is not None else name

    def by_world(self, flat: dict) -> dict:
        """A state diff or dump keyed by collection, as answers show it (a
        composite nests it by world)."""
        return flat

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
            out["triggers"] = list(self.triggers)
            out["tools"] = [t.definition() for t in self.tools]
            out["tasks"] = [
                {"id": t.id, "title": t.title, "step_budget": t.step_budget, "refusal": t.refusal}
                for t in self.tasks
            ]
        else:
            out["tasks"] = len(self.tasks)
            out["tools"] = len(self.tools)
        return out


# module of a world package -> {World field: the module's name for it}; the
# optional ones (triggers, reactions) only where the package has the module.
_LAYOUT = {
    "state": {"epoch": "EPOCH", "collections": "COLLECTIONS", "generate": "generate"},
    "schema": {"state_schema": "SCHEMA"},
    "tools": {"tools": "TOOLS"},
    "tasks": {"tasks": "TASKS"},
}
_OPTIONAL = {"triggers": {"triggers": "TRIGGERS"}, "reactions": {"reactions": "REACTIONS"}}


def from_package(package: str, **fields) -> World:
    """The world of a package laid out as the bundled ones are: ``state.py``
    (``EPOCH``, ``COLLECTIONS``, ``generate``), ``schema.py`` (``SCHEMA``),
    ``tools.py`` (``TOOLS``), ``tasks.py`` (``TASKS``) and ``policy.md``, and
    where the package has them ``triggers.py`` (``TRIGGERS``) and
    ``reactions.py`` (``REACTIONS``). ``fields`` give the rest (``name``,
    ``version``, ``title``, ``description``) and win over the layout's, for a
    package laid out otherwise (offsite-planning's tools come from three modules).

    Call it from the package's ``__init__`` as ``from_package(__name__, ...)``.
    """
    parts = {}
    for module, names in [*_LAYOUT.items(), *_OPTIONAL.items()]:
        if all(f in fields for f in names):
            continue
        if module in _OPTIONAL and importlib.util.find_spec(f"{package}.{module}") is None:
            continue
        mod = importlib.import_module(f"{package}.{module}")
        parts.update({f: getattr(mod, name) for f, name in names.items()})
    root = Path(importlib.import_module(package).__file__).parent
    parts["policy"] = (root / "policy.md").read_text(encoding="utf-8")
    return World(**{**parts, **fields})
