"""Tools: what an agent can call in a world.

A tool is a plain function ``fn(ctx, args)`` plus a msgspec ``Struct`` that
types its arguments. The JSON Schema the agent sees is generated from that
Struct, and the same Struct decodes the call, so what is advertised is what is
enforced. A tool that refuses raises ``Refused``; the engine turns it into an
``ok: false`` result (data, never an HTTP error).

A tool may declare itself ``pure`` (the default is not): a pure *read*
answers from the store and its arguments alone, so the engine may answer it
from a cache of earlier answers on the same state (``engine/read_cache.py``)
and runs it with a ``ReadContext``, which has the store and nothing else; a
pure *write* leaves a state that depends only on the state, its arguments
and the ``Context`` (step, time, seed), with no reaction and nothing outside
the store, so the same call at the same step on the same state is known to
lead to the same state. Declare it only when it is true: a wrong declaration
serves one episode's answer to another.

A pure read may also say which collections it ``reads``: its answer is then
kept under the identity of those collections alone, so a write to another
collection does not make it compute again. On a cache miss it runs with a
store that refuses every other collection (``UndeclaredRead``, a bug in the
world), so the tests that run every world's tools catch a wrong declaration.

Every tool has a **class** (reference 004's model), served with its
definition: ``safe`` tools run normally in a sandbox episode, ``guarded``
tools are intercepted there and answer a preview of what they would have done
(``{"sandbox": true, "would_send": {...}}`` when the tool names its
``preview`` key, else ``{"sandbox": true, "would_change": <state diff>}``).
By default a reading tool is safe and a writing tool guarded; a tool declared
with ``cls=None`` is unclassed, and a sandbox episode refuses to run it.

A tool is **served** under a name model APIs accept, ``^[a-zA-Z0-9_-]{1,64}$``
(the Anthropic Messages and OpenAI Chat Completions tool-name pattern), so a
listing goes to a model unchanged. A world may declare a tool under its real
API's method name (``gmail.messages.list``): it is served as that name with
every other character written ``_`` (``gmail_messages_list``), and the
declared name stays its ``alias``, which every door accepts in a call as the
served name (the trace, the answer and the digests are the served name's).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import msgspec


class Refused(Exception):
    """The app said no (``daily_limit``, ``not_found``…): an ``ok: false`` result.

    Tools must raise it before they write anything, so a refused call never
    leaves a half-made change behind.
    """

    def __init__(self, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def as_error(self) -> dict:
        err = {"code": self.code, "message": capped(self.message)}
        err.update({k: capped(v) if type(v) is str else v for k, v in self.extra.items()})
        return err


ERROR_TEXT_CAP = 1024  # characters of an error text; a refusal that quotes a huge argument is cut


def capped(text: str, most: int = ERROR_TEXT_CAP) -> str:
    """``text``, cut to ``most`` characters and saying so: the answer and the
    trace keep an error text, and a refusal may quote the call's arguments."""
    if len(text) <= most:
        return text
    return f"{text[:most]}… ({len(text) - most} characters cut)"


class NoArgs(msgspec.Struct, forbid_unknown_fields=True):
    """A tool that takes no arguments."""


class ReadContext:
    """What a pure read is given: the state, and nothing that changes from
    one step or episode to the next (so its answer can be shared)."""

    __slots__ = ("store",)

    def __init__(self, store):
        self.store = store


class UndeclaredRead(LookupError):
    """A pure read touched a collection its ``reads`` does not name: a bug in the world."""


class _Declared:
    """The reads of a store, limited to some collections."""

    __slots__ = ("_store", "_reads", "_tool")

    def __init__(self, store, reads: tuple, tool: str):
        self._store = store
        self._reads = reads
        self._tool = tool

    def _check(self, collection) -> None:
        if collection not in self._reads:
            raise UndeclaredRead(f"the pure read {self._tool} reads {collection!r} but declares "
                                 f"reads={self._reads}: add it, or its cached answers go stale")

    def get(self, collection, rid):
        self._check(collection)
        return self._store.get(collection, rid)

    def scan(self, collection, where=None, **query):
        self._check(collection)
        return self._store.scan(collection, where, **query)

    def select(self, collection, where=None, **query):
        self._check(collection)
        return self._store.select(collection, where, **query)

    def select_json(self, collection, where=None, **query):
        self._check(collection)
        return self._store.select_json(collection, where, **query)

    def count(self, collection, where=None, **query):
        self._check(collection)
        return self._store.count(collection, where, **query)

    def sum(self, collection, field, where=None, **query):
        self._check(collection)
        return self._store.sum(collection, field, where, **query)

    def ids(self, collection):
        self._check(collection)
        return self._store.ids(collection)

    def has_collection(self, name):
        return self._store.has_collection(name)


def _reading_only(fn, reads: tuple, name: str):
    """``fn`` given, when it runs as a pure read (with a ``ReadContext``),
    a store that refuses the collections it did not declare."""

    @functools.wraps(fn)
    def run(ctx, args):
        if type(ctx) is ReadContext:
            ctx = ReadContext(_Declared(ctx.store, reads, name))
        return fn(ctx, args)

    return run


class Context:
    """What a tool may know about the call besides its arguments: the state,
    the simulated time and a source of deterministic ids."""

    __slots__ = ("store", "step", "at", "at_ms", "seed", "_ids")

    def __init__(self, store, step: int, at: str, at_ms: int, seed: int):
        self.store = store
        self.step = step
        self.at = at
        self.at_ms = at_ms
        self.seed = seed
        self._ids = 0

    def new_id(self, collection: str, prefix: str) -> str:
        """An id unused in ``collection``, derived from the step number so
        that replaying the same calls creates the same ids."""
        while True:
            self._ids += 1
            rid = f"{prefix}-s{self.step:03d}" + ("" if self._ids == 1 else f"-{self._ids}")
            if self.store.get(collection, rid) is None:
                return rid


NAME_PATTERN = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # the Messages / Chat Completions tool-name pattern
MAX_NAME = 64
_UNSERVABLE = re.compile(r"[^a-zA-Z0-9_-]")


def served_name(declared: str) -> str:
    """The name a tool declared as ``declared`` is served under: every
    character the model APIs refuse written ``_`` (``gmail.messages.list``
    -> ``gmail_messages_list``)."""
    return _UNSERVABLE.sub("_", declared)


@dataclass(frozen=True)
class Tool:
    name: str  # as served (NAME_PATTERN); a declared name outside it is served_name()'s and becomes the alias
    description: str
    params: type
    fn: Callable[[Context, Any], Any]
    writes: bool
    schema: dict = field(repr=False, default_factory=dict)
    pure: bool = False  # see the module docstring
    reads: tuple | None = None  # a pure read's collections (see the module docstring); None: all of them
    cls: str | None = None  # "safe" | "guarded" | None (unclassed: blocked in sandbox mode)
    preview: str | None = None  # a guarded tool's preview key in sandbox mode, e.g. "would_send"
    # The name it was declared under when that is not servable (``gmail.messages.list``):
    # calls may use it for ``name``; None: the tool has one name.
    alias: str | None = None
    # Decodes a call's JSON arguments straight into ``params`` (typed, fast).
    decoder: Any = field(init=False, repr=False, compare=False)
    name_json: bytes = field(init=False, repr=False, compare=False)  # the name as JSON, for answers
    # The head of a step answer up to its result or error, formatted once.
    head_ok: bytes = field(init=False, repr=False, compare=False)
    head_error: bytes = field(init=False, repr=False, compare=False)
    _definition: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not NAME_PATTERN.fullmatch(self.name):
            if self.alias is None:
                object.__setattr__(self, "alias", self.name)
            object.__setattr__(self, "name", served_name(self.name))
            if not NAME_PATTERN.fullmatch(self.name):  # empty, or longer than model APIs take
                raise ValueError(f"tool {self.alias!r}: a tool's name is 1 to {MAX_NAME} characters "
                                 f"(served as {self.name!r}, {len(self.name)})")
        if self.alias == self.name:
            object.__setattr__(self, "alias", None)
        object.__setattr__(self, "decoder", msgspec.json.Decoder(self.params))
        object.__setattr__(self, "name_json", msgspec.json.encode(self.name))
        object.__setattr__(self, "head_ok", b',"tool":' + self.name_json + b',"ok":true,"result":')
        object.__setattr__(self, "head_error", b',"tool":' + self.name_json + b',"ok":false,"error":')
        if not self.schema:
            object.__setattr__(self, "schema", json_schema(self.params))
        if self.cls not in CLASSES:
            raise ValueError(f"tool {self.name}: class {self.cls!r} is not one of {CLASSES}")
        if self.reads is not None and (self.writes or not self.pure or not self.reads or type(self.reads) is not tuple
                                       or not all(type(c) is str for c in self.reads)):
            raise ValueError(f"tool {self.name}: reads is a tuple of the collections a pure read "
                             "(pure=True, writes=False) reads, at least one")
        d = {"name": self.name, "description": self.description, "parameters": self.schema}
        if self.cls is not None:
            d["class"] = self.cls
        if self.alias is not None:
            d["alias"] = self.alias
        object.__setattr__(self, "_definition", d)

    def definition(self) -> dict:
        """The tool as served: the Messages API shape ``{name, description, parameters}``,
        plus its ``class`` when it has one and its ``alias`` when it has one (one
        dict, shared: every episode created answers it; do not modify it)."""
        return self._definition


CLASSES = ("safe", "guarded", None)
_AUTO = "auto"


def tool(*, writes: bool, params: type = NoArgs, name: str | None = None, cls: str | None = _AUTO,
         preview: str | None = None, pure: bool = False, reads: tuple | None = None):
    """Declare a tool. Its description is the function's docstring.

    ``cls`` is its class in sandbox mode: by default ``"guarded"`` when it
    writes, else ``"safe"``; ``None`` leaves it unclassed. ``preview`` names
    the key a guarded tool's sandbox answer puts its result under
    (``"would_send"``); without one the answer is ``would_change``. ``pure``
    and ``reads`` (the collections a pure read reads, e.g. ``("requests",)``):
    see the module docstring."""
    if cls == _AUTO:
        cls = "guarded" if writes else "safe"
    if reads is not None:
        reads = tuple(reads)

    def wrap(fn):
        doc = " ".join((fn.__doc__ or "").split())
        if not doc:
            raise ValueError(f"tool {fn.__name__} needs a docstring: it is the description the agent reads")
        tool_name = name or fn.__name__
        return Tool(
            name=tool_name,
            description=doc,
            params=params,
            fn=fn if reads is None else _reading_only(fn, reads, tool_name),
            writes=writes,
            schema=json_schema(params),
            pure=pure,
            reads=reads,
            cls=cls,
            preview=preview,
        )

    return wrap


def json_schema(params: type) -> dict:
    """The JSON Schema of a params Struct, with every ``$ref`` inlined so each
    tool's schema stands alone (as model APIs expect)."""
    raw = msgspec.json.schema(params)
    defs = raw.get("$defs", {})

    def inline(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref is not None:
                target = dict(defs[ref.rsplit("/", 1)[-1]])
                if isinstance(target.get("title"), str):
                    target.pop("title")
                # Keys beside the $ref (a field's own description) win over the struct's.
                target.update({k: v for k, v in node.items() if k != "$ref"})
                return inline(target)
            # A "title" annotation goes; a property named "title" (a schema, not a string) stays.
            return {k: inline(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    schema = inline({k: v for k, v in raw.items() if k != "$defs"})  # every $ref is inlined
    schema.pop("description", None)  # the tool's own description says it
    schema.setdefault("properties", {})
    return schema
