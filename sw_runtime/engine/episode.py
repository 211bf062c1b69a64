"""One episode: a world's state, the clock, the trace, and one call at a time.

Nothing here knows about HTTP. ``answer`` runs one tool call and returns the
step's answer as JSON bytes (the hot path: arguments decoded straight into
the tool's params struct, the result encoded once); ``call`` is the same as a
dict. Refusals and bad arguments are ``ok: false`` results, never exceptions.
Calls to tools declared ``pure`` go through the read cache (read_cache.py).
Conditions that stop a call before it runs (a closed episode, the step
limit) raise ``ApiError``s.
"""

from __future__ import annotations

import logging
import time

import msgspec
import orjson

from .. import errors
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
_monotonic = time.monotonic
_NOT_JSON = _dumps({"code": "internal_error", "message": "the tool answered a value that is not JSON; "
                    "this is a bug in the world"})


# The fixed pieces of a step's answer, formatted once: formatting them per
# call cost as much as a simple tool.
_STEP_HEADS = [b'{"step":%d' % n for n in range(1001)]
_AT_JSON: dict = {}  # simulated time -> b',"at":"…"' (a world's clock is a few hundred strings)


def _step_head(n: int) -> bytes:
    return _STEP_HEADS[n] if n < 1001 else b'{"step":%d' % n


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
    __slots__ = (
        "id", "world", "task", "seed", "setup", "checks", "start_passes", "start", "store",
        "seed_digest", "digest", "steps", "status", "trace", "calls", "write_steps", "tool_errors", "agent_name",
        "created_at", "born", "touched", "evaluation", "step_limit", "clock", "signals", "fault_profile",
        "tracker", "user", "stale", "scoring", "forked_from", "start_kind", "snapshot_id", "id_tail", "last_results",
        "ended_by", "ended_at", "nbytes", "meter", "args_cap", "sandbox", "trigger", "idle_timeout", "max_age",
        "project", "state_shared", "__weakref__",
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

    def answer(self, tool_name: str, args_json: bytes) -> list:
        """Run one tool call, its arguments given as JSON, as the next step.

        Answers the pieces of the step's JSON object *without its closing
        brace*, so that /batch can add ``episode_id`` and join every answer
        of the batch in one copy; the result is encoded once, here, and the
        trace keeps those same bytes.
        """
        if self.status != OPEN or self.steps >= self.step_limit:
            self.check_open()  # raises, saying which
        self.touched = _monotonic()
        self.steps = n = self.steps + 1
        at = self.clock[n]
        tool = self.world.tools_by_name.get(tool_name)
        mutated = schema_valid = False
        reactions = payload_json = None
        fault = None
        shared = False  # the result's bytes are the read cache's, kept once already
        if tool is None:
            tool_json = _dumps(tool_name)
            head_ok = head_error = None
            if tool_name == ASK_USER and self.user is not None:
                ok, payload = self.user.answer(self, _loads_lenient(args_json))
                schema_valid = ok or payload.get("code") != "invalid_arguments"
            else:
                ok, payload = False, {
                    "code": "unknown_tool",
                    "message": f"no tool {capped(repr(tool_name), 200)} in {self.world.name}; "
                    f"the episode's tools are: {', '.join(self.tool_names())}",
                }
        else:
            # A call by the tool's alias is the call by its served name: the same
            # answer, trace row, cache keys and digests (worlds/tool.py).
            tool_name = tool.name
            head_ok, head_error = tool.head_ok, tool.head_error
            if tool.pure and self.fault_profile is None and not self.sandbox and _READS.enabled \
                    and tool.name not in self.world.reactions_by_tool:
                # A pure call: a read answered once per state, a write whose
                # resulting state is shared with the same call on the same state.
                hit = None if tool.writes else _READS.get((self.store.identity_of(tool.reads), tool_name, args_json))
                if hit is not None:  # the common case, answered here: a read this state answered before
                    ok, payload_json = hit
                    schema_valid = shared = True
                else:
                    schema_valid, payload_json, ok, payload, mutated = self._pure(tool, args_json, n, at)
            else:
                try:
                    args = tool.decoder.decode(args_json)
                except msgspec.DecodeError as e:  # ValidationError is a DecodeError too
                    ok, payload = False, _invalid(tool, e)
                except RecursionError:
                    ok, payload = False, _invalid(tool, "nested too deeply")
                else:
                    schema_valid = True
                    if self.sandbox and tool.cls != "safe":
                        ok, payload = sandbox.intercept(self, tool, args, n, at)
                    elif self.fault_profile is not None and faults.applies(self.fault_profile, tool) \
                            and faults.hits(self.fault_profile, self.seed, n):
                        fault = self.fault_profile
                        ok, payload, mutated, reactions = self._faulted(tool, args, n, at)
                    else:
                        if self.stale is not None and tool.writes:
                            self.stale = self.store.fork()  # what a stale read will see next
                        ok, payload, mutated, reactions = self._run(tool, args, n, at, self.store)
        if payload_json is None:
            try:
                payload_json = _dumps(payload)
            except TypeError:  # a world answered something that is not JSON: a bug in the world
                log.error("tool %s.%s answered a value that is not JSON", self.world.name, tool_name)
                ok, payload_json = False, _NOT_JSON
        # An agent reads the same thing again and again (a balance, a list that
        # has not changed): keep one copy of a result equal to the tool's last,
        # since the trace holds every result for the episode's life.
        if not shared:
            last = self.last_results.get(tool_name)
            if last is not None and last == payload_json:
                payload_json = last
            else:
                self.last_results[tool_name] = payload_json
        reactions_json = _dumps(reactions) if reactions else None
        self.calls.append((tool_name, ok, mutated))
        if mutated:
            self.write_steps += 1
        if not ok:
            self.tool_errors += 1
        signals_json = None
        if self.tracker is not None:
            signals_json = self.tracker.after_step_json(self, schema_valid, mutated, fault,
                                                        (args_json, ok, payload_json))
        if len(args_json) > self.args_cap or (tool is None and (tool_name != ASK_USER or self.user is None)):
            args_json = _unrecorded(args_json, tool is None, self.args_cap)  # byte budget: not kept
        size = len(args_json) + len(payload_json) + 120  # + the row itself
        self.nbytes += size
        self.meter[0] += size
        self.trace.rows.append((n, at, tool_name, args_json, ok, payload_json, mutated, self.digest,
                                reactions_json, signals_json, fault))
        at_json = _AT_JSON.get(at)
        if at_json is None:
            at_json = _AT_JSON[at] = b',"at":"%b"' % at.encode()
        if head_ok is None:  # not one of the world's tools
            head_ok = b',"tool":' + tool_json + b',"ok":true,"result":'
            head_error = b',"tool":' + tool_json + b',"ok":false,"error":'
        out = [_STEP_HEADS[n] if n < 1001 else _step_head(n), head_ok if ok else head_error, payload_json, at_json]
        if reactions_json is not None and fault is None:
            out += (b',"reactions":', reactions_json)
        if signals_json is not None:
            out += (b',"signals":', signals_json)
        return out

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


def _unrecorded(args_json: bytes, unknown_tool: bool, cap: int) -> bytes:
    """What the trace keeps instead of arguments it does not store."""
    why = "unknown tool" if unknown_tool else f"larger than {cap} bytes"
    return _dumps({"unrecorded_arguments": {"bytes": len(args_json), "why": why}})


def decode_args(tool, arguments):
    """Decode a call's arguments with the tool's params Struct: (args, None) or (None, error)."""
    try:
        return msgspec.convert(arguments, tool.params), None
    except msgspec.ValidationError as e:
        return None, {"code": "invalid_arguments", "message": f"invalid arguments for {tool.name}: {e}"}
