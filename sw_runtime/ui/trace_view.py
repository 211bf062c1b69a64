"""An episode as the episode page shows it: steps, changes, checks.

One shape for both places an episode comes from: ``GET /episodes/{id}`` on a
server, and a trial of an evaluation run (``sandworld view``), which keeps
the same trace and submit answer. The page is built from the episode's JSON
only, so what it shows is what the API answers.

The trace says which steps wrote (``mutated``) and the state diff says which
records differ from the start (``created``, ``updated``, ``removed`` per
collection). A record is put beside each writing step whose arguments or
result name its id; when only one step wrote, every change is that step's.
Records no writing step names are listed apart.

Changes are grouped by world. A composite episode (several worlds in one)
has a group per world, from its ``state_diff`` keyed by world, then collection;
beside a step its records are named ``world.collection/id``, as the API names
a composite's collections.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import orjson

from .templating import FOLD

KINDS = ("created", "updated", "removed")
WINDOW = 500  # steps shown on one page: a longer trace (a raised --step-limit) is shown in windows


@dataclass
class Step:
    entry: dict  # the trace entry as the API answers it
    changes: list = field(default_factory=list)  # (collection, id, kind) this step names

    @property
    def body(self):
        return self.entry.get("result") if self.entry.get("ok") else self.entry.get("error")

    @property
    def folded(self) -> bool:
        return len(orjson.dumps(self.body)) > FOLD


@dataclass
class Changes:
    world: str
    collections: dict  # collection -> {kind: [ids]}
    unattributed: list = field(default_factory=list)  # (collection, id, kind)

    @property
    def count(self) -> int:
        return sum(len(ids) for kinds in self.collections.values() for ids in kinds.values())


@dataclass
class EpisodeView:
    episode: dict
    steps: list
    changes: list  # Changes per world
    checks: list
    evaluation: dict | None
    signals: bool
    start: int = 0  # the first step shown (an index into ``steps``)

    @property
    def inherited(self) -> int:
        return sum(1 for s in self.steps if s.entry.get("inherited"))

    @property
    def shown(self) -> list:
        return self.steps[self.start:self.start + WINDOW]

    @property
    def earlier(self) -> int | None:
        """Where the window before this one starts (None: this is the first)."""
        return max(0, self.start - WINDOW) if self.start > 0 else None

    @property
    def later(self) -> int | None:
        return self.start + WINDOW if self.start + WINDOW < len(self.steps) else None


def _per_world(episode: dict, diff: dict) -> dict:
    """``{world: {collection: {kind: [ids]}}}``: a composite's diff is keyed by world already."""
    worlds = episode.get("environments") or []
    if len(worlds) > 1:
        return {w: diff[w] for w in worlds if diff.get(w)}
    return {episode.get("environment") or "": diff} if diff else {}


def _entries(kinds_by_collection: dict, prefix: str) -> list:
    out = []
    for collection, kinds in kinds_by_collection.items():
        for kind in KINDS:
            for rid in kinds.get(kind, ()):
                out.append((prefix + collection, rid, kind))
    return out


def build(episode: dict, diff: dict | None = None, start: int = 0) -> EpisodeView:
    """The page's view of ``episode`` (an ``/episodes/{id}`` answer, or a stored
    trial shaped like one); ``diff`` is the state diff when the episode has no
    evaluation yet (a live one); ``start``: the first step of the window shown."""
    evaluation = episode.get("evaluation") or None
    if diff is None and evaluation:
        diff = evaluation.get("state_diff")
    steps = [Step(e) for e in episode.get("trace") or ()]
    worlds = _per_world(episode, diff or {})
    composite = len(episode.get("environments") or []) > 1
    per_world = {w: _entries(kinds, f"{w}." if composite else "") for w, kinds in worlds.items()}
    entries = [e for es in per_world.values() for e in es]
    writers = [(s, orjson.dumps([s.entry.get("arguments"), s.body]).decode()) for s in steps if s.entry.get("mutated")]
    named = set()
    for collection, rid, kind in entries:
        needle = orjson.dumps(rid).decode()  # the id as JSON text, quotes and all: no partial matches
        for step, text in writers:
            if needle in text:
                step.changes.append((collection, rid, kind))
                named.add((collection, rid, kind))
    if len(writers) == 1:  # only one step changed the state: all of it is that step's
        writers[0][0].changes = list(entries)
        named = set(entries)
    changes = []
    for world, kinds in worlds.items():
        grouped = {c: {k: list(ids.get(k, ())) for k in KINDS} for c, ids in kinds.items()}
        changes.append(Changes(world, grouped, [e for e in per_world[world] if e not in named]))
    checks = list((evaluation or {}).get("checks") or ())
    signals = bool(episode.get("signals")) or any("signals" in s.entry for s in steps)
    start = min(max(0, start), max(0, len(steps) - 1))
    return EpisodeView(episode, steps, changes, checks, evaluation, signals, start)


def window_start(query) -> int:
    """The ``from`` query parameter: the first step shown (0-based; bad values show the first window)."""
    text = query.get("from") or "0"
    return int(text) if text.isdigit() else 0
