"""One episode: a world's state, the clock, the trace, and one call at a time.

Nothing here knows about HTTP. ``answer`` runs one tool call and returns the
step's answer as JSON bytes (the hot path: arguments decoded straight into
the tool's params struct, the result encoded once; the step's bookkeeping is
the core's, ``sw_core_ext.calls``); ``call`` is the same as a dict. Refusals and bad arguments are ``ok: false`` results, never exceptions.
Calls to tools declared ``pure`` go through the read cache (read_cache.py).
Conditions that stop a call before it runs (a closed episode, the step
limit) raise ``ApiError``s.
"""

from __future__ import annotations

import logging
import time

import msgspec
import orjson
from sw_core_ext import calls as _calls

from .. import errors, schemas
from ..worlds.tool import Context, ReadContext, Refused, capped
from . import faults, sandbox
from .read_cache import READS as _READS, SHARED
from .trace import Trace
from .users import ASK_USER, ASK_USER_DEFINITION

_loads = orjson.loads


def _dumps(value) -> bytes:
    """orjson's encoding, copied to its exact size.

    orjson hands back its whole working buffer (4 KB at least) as the bytes
    object; the trace keeps these bytes for the episode's life, and at that
    size a few steps of every episode were gigabytes. The copy costs ~0.1 µs.
    """
    return bytes(memoryview(orjson.dumps(value)))


def _invalid(tool, why) -> dict:
    return {"code": "invalid_arguments", "message": f"invalid arguments for {tool.name}: {why}"}


def _loads_lenient(data: bytes):
    try:
        return _loads(data)
    except (orjson.JSONDecodeError, RecursionError):
        return None


log = logging.getLogger("sandworld.engine")

OPEN, SUBMITTING, SUBMITTED = "open", "submitting", "submitted"
# How an episode ended: a submit, or the server ending it (endings.py).
ENDED_BY = ("finished", "idle", "timeout", "step_limit", "deleted", "drained")
TRACE_ARGS_CAP = 64 * 1024  # arguments larger than this are not kept in the trace (settings.max_trace_arguments)


class Episode:
    # The fields every step reads or writes come first, next to each other:
    # a step of a cold episode (a 1,000-call /batch touches 1,000) then
    # waits for three or four cache lines of the object instead of seven.
    __slots__ = (
        "status", "steps", "step_limit", "touched", "clock", "world", "fault_profile", "sandbox", "store",
        "last_results", "calls", "write_steps", "tool_errors", "tracker", "args_cap", "nbytes", "meter",
        "trace", "digest", "user", "id_tail", "id", "project", "stale", "state_shared", "seed",
        "task", "setup", "checks", "start_passes", "start", "seed_digest", "agent_name",
        "created_at", "born", "evaluation", "signals", "scoring", "forked_from", "start_kind", "snapshot_id",
        "ended_by", "ended_at", "trigger", "idle_timeout", "max_age", "__weakref__",
    )

    def __init__(self, *, id, world, task, seed, setup, checks, start_passes, start, seed_digest,
                 agent_name, created_at, step_limit, clock, signals=False, fault_profile=None, mode="live",
                 scoring="share"):
        self.id = id
        self.id_tail = b',"episode_id":"' + id.encode() + b'"}'  # closes a /batch result
        self.world = world
        self.task = task
        self.seed = seed
        self.setup = setup
        self.checks = checks
        self.start_passes = start_passes
        self.start = start
        self.store = start.fork()
        self.seed_digest = seed_digest
        self.digest = seed_digest
        self.steps = 0
        self.status = OPEN
        self.trace = Trace()
        self.calls = []  # (tool, ok, mutated): what the checks read
        # Of those, how many changed the state and how many were refused: kept
        # as they come, since a submit would otherwise walk every call again.
        self.write_steps = self.tool_errors = 0
        self.agent_name = agent_name
        self.created_at = created_at
        self.born = self.touched = time.monotonic()
        self.evaluation = None
        self.step_limit = step_limit
        self.clock = clock
        self.signals = signals
        self.fault_profile = fault_profile
        self.scoring = scoring  # the denominator rule (verify/score.py)
        self.sandbox = mode == "sandbox"  # guarded tools answer previews (engine/sandbox.py)
        self.trigger = None  # {"kind", "entity_id"} when the episode started from a trigger
        self.tracker = None  # signals.Signals when signals are on
        self.last_results = {}  # tool -> the bytes of its last result (see answer)
        self.user = None  # users.ScriptedUser / LlmUser on tasks with hidden facts
        # stale_read episodes keep the state as of before the latest write
        self.stale = self.store.fork() if fault_profile == "stale_read" else None
        # Whether another store may hold this state: its writes are then worth
        # sharing with the read cache (read_cache.SHARED); None: this one alone.
        self.state_shared = SHARED
        # Where the state came from (forks.py, custom_seeds.py, snapshots.py).
        self.forked_from = None
        self.start_kind = "seed"  # or "state" (custom) or "snapshot"
        self.snapshot_id = None
        self.ended_by = self.ended_at = None
        # Bytes this episode's trace holds, also added to ``meter[0]`` (the
        # engine's total over open episodes: the live cap counts bytes too).
        self.nbytes = 0
        self.meter = [0]
        self.args_cap = TRACE_ARGS_CAP
        # This episode's own idle window and life, in seconds (a run of reference
        # 001 sets them); None: the server's settings.
        self.idle_timeout = None
        self.max_age = None
        # The project of the API key that made it (None with keys off): only
        # that project's callers see it (service.py checks on every lookup).
        self.project = None

    # -- stepping ------------------------------------------------------------

    def check_open(self) -> None:
        if self.status == SUBMITTING:
            raise errors.EpisodeSubmitting(f"episode {self.id} is being scored; read its result with GET")
        if self.status != OPEN:
            raise errors.EpisodeClosed(f"episode {self.id} was {self.status}; start a new episode to go on")
        if self.steps >= self.step_limit:
            raise errors.StepLimit(
                f"episode {self.id} used all {self.step_limit} steps; submit it to be scored"
            )

    def call(self, tool_name: str, arguments) -> dict:
        """Run one tool call as the next step and answer it as a dict."""
        try:
            args_json = _dumps(arguments)
        except TypeError:
            args_json = b"null"  # not JSON: the tool's schema refuses it
        return _loads(b"".join(self.answer(tool_name, args_json)) + b"}")

    # Run one tool call, its arguments given as JSON, as the next step
    # (``answer(tool_name, args_json)``). Answers the pieces of the step's
    # JSON object *without its closing brace*, so that /batch can add
    # ``episode_id`` and join every answer of the batch in one copy; the
    # result is encoded once and the trace keeps those same bytes. The step's
    # bookkeeping (its counts, the trace row, the argument cap, the byte
    # meter, the answer's pieces) is the core's (``sw_core_ext.calls``); it
    # runs the tool through ``_unknown``, ``_pure`` and ``_decoded`` below.
    answer = _calls.answer

    def _unknown(self, tool_name: str, args_json: bytes):
        """A call to a name that is not one of the world's tools: ask_user on
        a task with a user, else unknown_tool. ``(ok, payload, schema_valid)``."""
        if tool_name == ASK_USER and self.user is not None:
            ok, payload = self.user.answer(self, _loads_lenient(args_json))
            return ok, payload, ok or payload.get("code") != "invalid_arguments"
        return False, {
            "code": "unknown_tool",
            "message": f"no tool {capped(repr(tool_name), 200)} in {self.world.name}; "
            f"the episode's tools are: {', '.join(self.tool_names())}",
        }, False

    def _decoded(self, tool, args_json: bytes, n: int, at: str):
        """A call the read cache does not take (not pure, or faults, sandbox or
        reactions on): decoded, then intercepted by the sandbox, hit by a
        fault, or run. ``(schema_valid, ok, payload, mutated, reactions, fault)``."""
        try:
            args = tool.decoder.decode(args_json)
        except msgspec.DecodeError as e:  # ValidationError is a DecodeError too
            return False, False, _invalid(tool, e), False, None, None
        except RecursionError:
            return False, False, _invalid(tool, "nested too deeply"), False, None, None
        if self.sandbox and tool.cls != "safe":
            ok, payload = sandbox.intercept(self, tool, args, n, at)
            return True, ok, payload, False, None, None
        if self.fault_profile is not None and faults.applies(self.fault_profile, tool) \
                and faults.hits(self.fault_profile, self.seed, n):
            ok, payload, mutated, reactions = self._faulted(tool, args, n, at)
            return True, ok, payload, mutated, reactions, self.fault_profile
        if self.stale is not None and tool.writes:
            self.stale = self.store.fork()  # what a stale read will see next
        ok, payload, mutated, reactions = self._run(tool, args, n, at, self.store)
        return True, ok, payload, mutated, reactions, None

    def _pure(self, tool, args_json: bytes, n: int, at: str):
        """A call to a pure tool on the episode's own state, with no fault and
        no reaction, that the read cache could not answer: (schema_valid,
        payload_json | None, ok, payload, mutated). A read's answer is kept in
        the cache (then ``payload_json`` is set); a write on a state another
        store may hold gives the store the identity the same call at this step
        gave the same state before (read_cache.py)."""
        store = self.store
        key = None if tool.writes else (store.identity_of(tool.reads), tool.name, args_json)  # answer missed it
        try:
            args = tool.decoder.decode(args_json)
        except msgspec.DecodeError as e:
            return False, None, False, _invalid(tool, e), False
        except RecursionError:
            return False, None, False, _invalid(tool, "nested too deeply"), False
        version = store.version
        if key is not None:  # a read: the store and nothing else
            ok, payload, mutated, _ = self._run(tool, args, n, at, store, ReadContext(store))
            if store.version == version and (ok or payload.get("code") != "internal_error"):
                try:
                    payload_json = _dumps(payload)
                except TypeError:
                    return True, None, ok, payload, mutated  # the caller words the error
                _READS.put(key, ok, payload_json)
                return True, payload_json, ok, payload, mutated
            return True, None, ok, payload, mutated
        shared = self.state_shared
        before = store.identity if shared is not None and shared[0] else None
        ok, payload, mutated, _ = self._run(tool, args, n, at, store)
        if store.version != version:
            self.state_shared = None if before is None else \
                _READS.after_write(store, before, tool.name, args_json, n, self.seed)
        return True, None, ok, payload, mutated

    def _run(self, tool, args, n: int, at: str, store, ctx=None):
        """Run a decoded call against ``store``; answer (ok, payload, mutated,
        reactions). ``ctx``: the tool's context, when not the full one."""
        before = store.version
        world = self.world
        if ctx is None:
            ctx = Context(store, n, at, world.epoch_ms + n * 1000 * world.seconds_per_step, self.seed)
        reactions = ()
        try:
            result = tool.fn(ctx, args)
            ok, payload = True, result
            rules = world.reactions_by_tool.get(tool.name) if world.reactions_by_tool else None
            if rules:
                reactions = [rx for rule in rules for rx in (rule.fire(ctx, args, result) or ())]
        except Refused as r:
            ok, payload = False, r.as_error()
        except Exception:  # a bug in a world must not take the server down
            log.exception("tool %s.%s failed in episode %s", self.world.name, tool.name, self.id)
            ok, payload = False, {
                "code": "internal_error",
                "message": f"the tool {tool.name} failed inside the server; this is a bug in the world",
            }
        mutated = False
        if store.version != before and store is self.store:
            # Something was written; the digest says whether the state changed
            # (a write of equal values leaves it as it was).
            digest = store.digest()
            mutated = digest != self.digest
            self.digest = digest
        return ok, payload, mutated, reactions

    def _faulted(self, tool, args, n: int, at: str):
        """A call hit by the episode's fault profile (see engine/faults.py)."""
        profile = self.fault_profile
        if profile == "timeout_after_commit":
            _ok, _payload, mutated, reactions = self._run(tool, args, n, at, self.store)
            return False, faults.timeout_error(tool.name), mutated, reactions
        if profile == "timeout_before_commit":
            return False, faults.timeout_error(tool.name), False, ()
        if profile == "rate_limited":
            return False, faults.rate_limited_error(tool.name), False, ()
        if profile == "server_error":
            return False, faults.server_error(tool.name), False, ()
        # stale_read: a read answered from the state before the latest write
        ok, payload, _m, _r = self._run(tool, args, n, at, self.stale if self.stale is not None else self.store)
        return ok, payload, False, ()

    def tool_names(self) -> list:
        names = self.world.tool_names()
        return names + [ASK_USER] if self.user is not None else names

    def tool_definitions(self) -> list:
        """The tools this episode offers: the world's, plus ask_user when the
        task has details only the user knows."""
        defs = [t.definition() for t in self.world.tools]
        if self.user is not None:
            defs.append(ASK_USER_DEFINITION)
        return defs

    @property
    def training(self) -> bool:
        """Signals or faults make an episode a training one: evals leave it out."""
        return self.signals or self.fault_profile is not None

    # -- views ---------------------------------------------------------------

    def summary(self) -> dict:
        """The episode as a list or a read shows it (``views.summary``)."""
        from .views import summary  # imported here: views reads episodes, and this module stays views-free

        return summary(self)


def decode_args(tool, arguments):
    """Decode a call's arguments with the tool's params Struct: (args, None) or (None, error)."""
    try:
        return msgspec.convert(arguments, tool.params), None
    except msgspec.ValidationError as e:
        return None, {"code": "invalid_arguments", "message": f"invalid arguments for {tool.name}: {e}"}


def bind_core() -> None:
    """Hand the core's bookkeeping (sw_core_ext.calls) what it needs of the
    runtime: this module's read cache, the API errors, ask_user's name, the
    logger, and the classes whose slots it reads (an episode, its trace, a
    batch's call). Again after swapping ``_READS`` (the tests do)."""
    _calls.bind(_READS, errors.ApiError, ASK_USER, log, Episode, Trace, schemas.Call)


bind_core()
