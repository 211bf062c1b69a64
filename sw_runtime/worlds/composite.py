"""Composite worlds: one episode over two or three worlds (reference 003's sandboxes).

A composite is a ``World`` made of its parts, named by joining their names
in name order with ``+`` (``codehost+offsite-planning``), so the engine runs
it like any other world. What makes it one:

- **State.** Each part keeps its own ``Store`` (``Parts`` holds them), so a
  fork stays O(1) per part and a part's tools never see another part's
  records. The composite's collections are the parts' *qualified* by world,
  ``world.collection`` (``codehost.pulls``): that is how a check, a state dump
  and a diff name them.
- **Tools.** Every part's tools, under their own names and aliases (a pure
  read keeps its shared answers, keyed on its part's collections); a name two
  parts share is served as ``world_name`` in both (``offsite-planning_slack_chat_postMessage``,
  with the alias ``offsite-planning.slack.chat.postMessage``: tool.py's rule on ``world.name``).
  A tool runs against its part's store and at its part's own simulated time
  (``epoch + 7·n``), so a world's rules (an overdue invoice, an SLA) answer in
  a composite exactly as they do alone. The episode's clock (the ``at`` of
  its answers) starts at the latest of the parts' epochs.
- **Digest.** ``sha256`` of ``b"sandworld-composite-v1"`` followed by the
  canonical JSON of ``[[world, world_digest], …]`` in world-name order: the
  same states give the same digest whatever the order of writes, and a write
  costs what it costs in its own world plus one hash of a few hundred bytes
  (docs/DIGEST.md works an example).
- **Seeds.** A custom state is an envelope keyed by world,
  ``{"codehost": {...}}``; a part the envelope leaves out boots its default
  state from the seed number.
- **Tasks.** Cross-app tasks are registered per set of worlds (``crossapp``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from datetime import datetime, timezone

from sw_core_ext import Store, canonical_json

from .. import errors
from .state_schema import Issue
from .tool import ReadContext, served_name
from .world import Reaction, World

SEP = "+"
MAX_PARTS = 3
DIGEST_DOMAIN = b"sandworld-composite-v1"


def part_names(names) -> list:
    """The worlds of a composite, checked and in name order: two or three,
    none twice (``InvalidRequest`` naming what is wrong). Unknown names are
    the registry's to refuse."""
    if isinstance(names, str):
        names = names.split(SEP)
    names = [n.strip() for n in names]
    if any(not n for n in names):
        raise errors.InvalidRequest("environments: an empty world name; name each world once, e.g. "
                                    "[\"codehost\", \"offsite-planning\"]")
    twice = sorted(n for n, k in Counter(names).items() if k > 1)
    if twice:
        raise errors.InvalidRequest(f"environments: {', '.join(twice)} named twice; an episode holds each world once")
    if len(names) > MAX_PARTS:
        raise errors.InvalidRequest(f"environments: {len(names)} worlds ({', '.join(names)}); an episode holds "
                                    f"at most {MAX_PARTS}")
    return sorted(names)


def combine(digests: dict) -> str:
    """The composite digest of ``{world: its state digest}``."""
    body = canonical_json([[name, digests[name]] for name in sorted(digests)])
    return "sha256:" + hashlib.sha256(DIGEST_DOMAIN + body).hexdigest()


def split(qualified: str) -> tuple:
    """``"codehost.pulls"`` -> ``("codehost", "pulls")`` (world names hold no dot)."""
    world, dot, collection = qualified.partition(".")
    if not dot:
        raise KeyError(qualified)
    return world, collection


def nest(flat: dict) -> dict:
    """``{"codehost.pulls": x}`` -> ``{"codehost": {"pulls": x}}``: a diff or dump keyed by world."""
    out: dict = {}
    for qualified, value in flat.items():
        world, collection = split(qualified)
        out.setdefault(world, {})[collection] = value
    return out


class _Journal(list):
    """A composite store's journal as the engine reads it: every part's
    ``(collection, id)`` writes, qualified; clearing it clears the parts'."""

    __slots__ = ("_parts",)

    def __init__(self, parts):
        super().__init__((f"{name}.{c}", rid) for name, store in parts for c, rid in store.journal)
        self._parts = parts

    def clear(self) -> None:
        super().clear()
        for _name, store in self._parts:
            store.journal.clear()


class Parts:
    """The state of a composite episode: one ``Store`` per world, seen as one
    store whose collections are ``world.collection``. It offers the Store API
    the engine and the verifier use; a part's tools are given ``part(world)``."""

    __slots__ = ("_parts", "_by_name")

    def __init__(self, parts: dict):
        self._parts = tuple(sorted(parts.items()))
        self._by_name = dict(self._parts)

    def part(self, world: str):
        return self._by_name[world]

    @property
    def worlds(self) -> list:
        return [name for name, _s in self._parts]

    def _at(self, qualified: str):
        world, collection = split(qualified)
        return self._by_name[world], collection

    # -- reads
    @property
    def collections(self) -> list:
        return sorted(f"{name}.{c}" for name, store in self._parts for c in store.collections)

    def has_collection(self, qualified: str) -> bool:
        world, dot, collection = qualified.partition(".")
        store = self._by_name.get(world) if dot else None
        return store is not None and store.has_collection(collection)

    def get(self, qualified, rid):
        store, collection = self._at(qualified)
        return store.get(collection, rid)

    def count(self, qualified, where=None, **query):
        store, collection = self._at(qualified)
        return store.count(collection, where, **query)

    def ids(self, qualified):
        store, collection = self._at(qualified)
        return store.ids(collection)

    def scan(self, qualified, where=None, **query):
        store, collection = self._at(qualified)
        return store.scan(collection, where, **query)

    def select(self, qualified, where=None, **query):
        store, collection = self._at(qualified)
        return store.select(collection, where, **query)

    def select_json(self, qualified, where=None, **query):
        store, collection = self._at(qualified)
        return store.select_json(collection, where, **query)

    def sum(self, qualified, field, where=None, **query):
        store, collection = self._at(qualified)
        return store.sum(collection, field, where, **query)

    # -- writes (a part's tools write through their own store; these serve checks and tests)
    def insert(self, qualified, rid, record):
        store, collection = self._at(qualified)
        store.insert(collection, rid, record)

    def put(self, qualified, rid, record):
        store, collection = self._at(qualified)
        store.put(collection, rid, record)

    def update(self, qualified, rid, fields):
        store, collection = self._at(qualified)
        return store.update(collection, rid, fields)

    def remove(self, qualified, rid):
        store, collection = self._at(qualified)
        return store.remove(collection, rid)

    # -- what the engine watches
    @property
    def version(self) -> int:
        return sum(store.version for _n, store in self._parts)

    @property
    def identity(self):
        return tuple(store.identity for _n, store in self._parts)

    def identity_of(self, collections):
        if collections is None:
            return self.identity
        return tuple(self._at(q)[0].identity_of((self._at(q)[1],)) for q in collections)

    @property
    def journal(self):
        if self._parts[0][1].journal is None:
            return None
        return _Journal(self._parts)

    @journal.setter
    def journal(self, value) -> None:
        for _name, store in self._parts:
            store.journal = None if value is None else []

    # -- forks, digests, dumps
    def fork(self) -> "Parts":
        return Parts({name: store.fork() for name, store in self._parts})

    def digest(self) -> str:
        return combine({name: store.digest() for name, store in self._parts})

    def recompute_digest(self) -> str:
        return combine({name: store.recompute_digest() for name, store in self._parts})

    def digests(self) -> dict:
        """Each world's own state digest."""
        return {name: store.digest() for name, store in self._parts}

    def to_dict(self, collections=None) -> dict:
        if collections is None:
            collections = self.collections
        out = {}
        for qualified in collections:
            store, collection = self._at(qualified)
            out[qualified] = store.to_dict([collection])[collection]
        return out

    def diff(self, base: "Parts") -> dict:
        out = {}
        for name, store in self._parts:
            for collection, change in store.diff(base.part(name)).items():
                out[f"{name}.{collection}"] = change
        return out


class PartsSchema:
    """A composite's state schema: the parts' record types under qualified
    names (what field checks read), and the envelope's validation."""

    def __init__(self, parts: dict):
        self.parts = parts
        self.records = {f"{name}.{c}": t for name, w in parts.items() if w.state_schema is not None
                        for c, t in w.state_schema.records.items()}

    @property
    def collections(self) -> tuple:
        return tuple(self.records)

    def validate(self, envelope) -> list:
        """Issues with a seed envelope, each path under its world (``$.codehost.repos…``)."""
        if not isinstance(envelope, dict):
            return [Issue("$", "a composite episode's state is an envelope keyed by world, "
                               f"{{\"{next(iter(self.parts))}\": {{...}}}}")]
        issues = []
        for key in envelope:
            if key not in self.parts:
                issues.append(Issue(f"$.{key}", f"{key!r} is not a world of this episode; its worlds are "
                                                f"{', '.join(self.parts)}"))
        for name, state in envelope.items():
            world = self.parts.get(name)
            if world is None:
                continue
            if world.state_schema is None:
                issues.append(Issue(f"$.{name}", f"{name} does not declare a state schema, so it takes no custom state"))
                continue
            issues += [Issue(f"$.{name}{i.path[1:]}", i.message) for i in world.state_schema.validate(state)]
        return issues


@dataclasses.dataclass
class Composite(World):
    """A world made of two or three worlds (see the module docstring)."""

    parts: dict = dataclasses.field(default_factory=dict)  # name -> World, in name order
    # composite tool name -> (world, the tool's own name in its world)
    origins: dict = dataclasses.field(default_factory=dict)

    def seed_store(self, seed: int):
        return Parts({name: w.seed_store(seed) for name, w in self.parts.items()})

    def state_store(self, envelope: dict, seed: int = 0):
        return Parts({name: (w.state_store(envelope[name], seed) if name in envelope else w.seed_store(seed))
                      for name, w in self.parts.items()})

    @property
    def environments(self) -> list:
        return list(self.parts)

    @property
    def environment_versions(self) -> dict:
        return {name: w.version for name, w in self.parts.items()}

    def by_world(self, flat: dict) -> dict:
        return nest(flat)

    def tool_name(self, world: str, name: str) -> str:
        """What the composite calls ``world``'s tool ``name`` (its served name or alias there)."""
        return self._served[(world, self.parts[world].served(name))]

    def served(self, name: str) -> str:
        tool = self.tools_by_name.get(name)
        if tool is not None:
            return tool.name
        found = [self._served[(w, part.served(name))] for w, part in self.parts.items() if name in part.tools_by_name]
        return found[0] if len(found) == 1 else name

    def describe(self, full: bool = True) -> dict:
        out = super().describe(full)
        out["environments"] = self.environments
        out["environment_versions"] = self.environment_versions
        return out


def compose(worlds: list, tasks: list = ()) -> Composite:
    """The composite of ``worlds`` (World objects, two or three), with the
    cross-app ``tasks`` written for exactly this set."""
    parts = {w.name: w for w in sorted(worlds, key=lambda w: w.name)}
    seen = Counter(t.name for w in parts.values() for t in w.tools)
    epoch = max(parts.values(), key=lambda w: w.epoch_ms).epoch
    epoch_ms = max(w.epoch_ms for w in parts.values())
    tools, reactions, origins, served = [], [], {}, {}
    for name, world in parts.items():
        for t in world.tools:
            shared = seen[t.name] > 1
            new = served_name(f"{name}.{t.name}") if shared else t.name
            alias = f"{name}.{t.alias or t.name}" if shared else t.alias
            origins[new] = (name, t.name)
            served[(name, t.name)] = new
            # A pure read stays pure (its answers are shared per state of the
            # collections it reads, now qualified); a pure write does not: the
            # read cache's shared write identities are a single store's.
            pure = t.pure and not t.writes
            reads = tuple(f"{name}.{c}" for c in t.reads) if pure and t.reads else None
            tools.append(dataclasses.replace(t, name=new, alias=alias, fn=_in_part(t.fn, world, epoch_ms), pure=pure,
                                             reads=reads))
        for r in world.reactions:
            reactions.append(Reaction(id=r.id, on=served[(name, world.served(r.on))], fire=_in_part_reaction(r.fire, world, epoch_ms)))
    composite = Composite(
        name=SEP.join(parts),
        version=SEP.join(f"{n}@{w.version}" for n, w in parts.items()),
        title=" + ".join(w.title for w in parts.values()),
        description="One episode over " + ", ".join(f"{w.title} ({w.description.rstrip('.')})" for w in parts.values()),
        epoch=epoch,
        collections=tuple(f"{n}.{c}" for n, w in parts.items() for c in w.collections),
        policy="\n\n".join(f"# {w.title} ({n})\n\n{w.policy.strip()}" for n, w in parts.items()),
        tools=tools,
        tasks=list(tasks),
        generate=lambda seed: {n: w.generate(seed) for n, w in parts.items()},
        state_schema=PartsSchema(parts),
        reactions=reactions,
        parts=parts,
        origins=origins,
    )
    composite._served = served
    return composite


class _PartContext:
    """A tool's context in its own part: its world's store and its world's time."""

    __slots__ = ("store", "step", "at_ms", "seed", "_ctx")

    def __init__(self, ctx, store, at_ms: int):
        self.store = store
        self.step = ctx.step
        self.at_ms = at_ms
        self.seed = ctx.seed
        self._ctx = ctx

    @property
    def at(self) -> str:
        """The part's own simulated time (formatted only for the tools that read it)."""
        return _format_ms(self.at_ms)

    def new_id(self, collection: str, prefix: str) -> str:
        # the step's own id sequence, on the part's store
        while True:
            self._ctx._ids += 1
            rid = f"{prefix}-s{self.step:03d}" + ("" if self._ctx._ids == 1 else f"-{self._ctx._ids}")
            if self.store.get(collection, rid) is None:
                return rid


_TIMES: dict = {}


def _format_ms(ms: int) -> str:
    text = _TIMES.get(ms)
    if text is None:
        if len(_TIMES) > 100_000:
            _TIMES.clear()
        t = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
        text = _TIMES[ms] = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
    return text


def _part_context(ctx, world: World, epoch_ms: int):
    store = ctx.store.part(world.name)
    if type(ctx) is ReadContext:  # a pure read: the part's store and nothing else
        return ReadContext(store)
    return _PartContext(ctx, store, ctx.at_ms - epoch_ms + world.epoch_ms)


def _in_part(fn, world: World, epoch_ms: int):
    def run(ctx, args):
        return fn(_part_context(ctx, world, epoch_ms), args)

    run.__name__ = getattr(fn, "__name__", "tool")
    return run


def _in_part_reaction(fire, world: World, epoch_ms: int):
    def run(ctx, args, result):
        return fire(_part_context(ctx, world, epoch_ms), args, result)

    return run
