"""A call's bookkeeping, in pure Python: the specification of ``_calls.pyx``.

Everything one tool call leaves behind is built here, once: the step's number
and simulated time, the answer's pieces, the episode's counts (its calls,
writes and refusals), the trace row with the argument cap and the byte
meter, and, when the engine runs the call (``step``, ``batch``), the tally
and the action log's record. The compiled twin ``_calls.pyx`` does the same
in the same order, with the same answers byte for byte (tests/core/test_calls.py
runs both side by side).

What is the runtime's, not the core's, stays in the runtime and is reached
through the episode and the engine (duck-typed, so this module imports
nothing of ``sw_runtime``): running a tool (``ep._decoded``, ``ep._pure``,
``ep._unknown``), signals (``ep.tracker``), a dry run (``engine._dry_run``),
looking an episode up (``engine.get``). The read cache, the API error class
and the name of ``ask_user`` are handed over once by ``bind``.
"""

from __future__ import annotations

import time

import msgspec
import orjson

_loads = orjson.loads
_orjson_dumps = orjson.dumps
_Raw = msgspec.Raw
_monotonic = time.monotonic

OPEN = "open"


def _dumps(value) -> bytes:
    """orjson's encoding, copied to its exact size (orjson hands back its 4 KB
    working buffer; the trace keeps these bytes for the episode's life)."""
    return bytes(memoryview(_orjson_dumps(value)))


_NOT_JSON = _dumps({"code": "internal_error", "message": "the tool answered a value that is not JSON; "
                    "this is a bug in the world"})

# The fixed pieces of a step's answer, formatted once: formatting them per
# call cost as much as a simple tool.
_STEP_HEADS = [b'{"step":%d' % n for n in range(1001)]
_AT_JSON: dict = {}  # simulated time -> b',"at":"…"' (a world's clock is a few hundred strings)

# Handed over by the runtime (``bind``).
_READS = None  # the read cache (sw_runtime.engine.read_cache.READS)
_API_ERROR = Exception  # sw_runtime.errors.ApiError
_ASK_USER = "ask_user"
_LOG = None  # the engine's logger


def bind(reads, api_error, ask_user: str, log, episode=None, trace=None, call=None) -> None:
    """Hand the core what is the runtime's: the read cache, the class of the
    errors a call may raise (answered in its own slot of a batch), the name
    of the ask-user tool and the logger a world's bug is reported to.
    ``episode``, ``trace``, ``call``: the classes of those objects, whose
    slots the compiled twin reads directly (this one reads attributes)."""
    global _READS, _API_ERROR, _ASK_USER, _LOG
    _READS, _API_ERROR, _ASK_USER, _LOG = reads, api_error, ask_user, log


def args_json(arguments) -> bytes:
    """A call's arguments as JSON bytes, from the wire (Raw) or from Python
    (the trace keeps them: exact-size copies)."""
    if type(arguments) is _Raw:
        return bytes(arguments)
    try:
        return bytes(memoryview(_orjson_dumps(arguments)))
    except TypeError:
        return b"null"  # not JSON at all: the tool's schema refuses it


def answer(ep, tool_name: str, args_json: bytes) -> list:
    """Run one tool call, its arguments given as JSON, as ``ep``'s next step.

    Answers the pieces of the step's JSON object *without its closing brace*
    (so /batch can add ``episode_id`` and join a whole batch in one copy);
    the result is encoded once, and the trace keeps those same bytes.
    Raises the episode's ``check_open`` error when it cannot take a step."""
    return _answer(ep, tool_name, args_json)[0]


def _answer(ep, tool_name: str, args_json: bytes) -> tuple:
    """``(pieces, ok)``."""
    if ep.status != OPEN or ep.steps >= ep.step_limit:
        ep.check_open()  # raises, saying which
    ep.touched = _monotonic()
    ep.steps = n = ep.steps + 1
    at = ep.clock[n]
    world = ep.world
    tool = world.tools_by_name.get(tool_name)
    mutated = schema_valid = False
    reactions = payload_json = payload = fault = None
    shared = False  # the result's bytes are the read cache's, kept once already
    if tool is None:
        head_ok = head_error = None
        ok, payload, schema_valid = ep._unknown(tool_name, args_json)
    else:
        # A call by the tool's alias is the call by its served name: the same
        # answer, trace row, cache keys and digests (worlds/tool.py).
        tool_name = tool.name
        head_ok, head_error = tool.head_ok, tool.head_error
        if tool.pure and ep.fault_profile is None and not ep.sandbox and _READS.enabled \
                and tool.name not in world.reactions_by_tool:
            # A pure call: a read answered once per state, a write whose
            # resulting state is shared with the same call on the same state.
            hit = None if tool.writes else _READS.get((ep.store.identity_of(tool.reads), tool_name, args_json))
            if hit is not None:  # the common case: a read this state answered before
                ok, payload_json = hit
                schema_valid = shared = True
            else:
                schema_valid, payload_json, ok, payload, mutated = ep._pure(tool, args_json, n, at)
        else:
            schema_valid, ok, payload, mutated, reactions, fault = ep._decoded(tool, args_json, n, at)
    if payload_json is None:
        try:
            payload_json = _dumps(payload)
        except TypeError:  # a world answered something that is not JSON: a bug in the world
            _LOG.error("tool %s.%s answered a value that is not JSON", world.name, tool_name)
            ok, payload_json = False, _NOT_JSON
    # An agent reads the same thing again and again (a balance, a list that
    # has not changed): keep one copy of a result equal to the tool's last,
    # since the trace holds every result for the episode's life.
    if not shared:
        last_results = ep.last_results
        last = last_results.get(tool_name)
        if last is not None and last == payload_json:
            payload_json = last
        else:
            last_results[tool_name] = payload_json
    reactions_json = _dumps(reactions) if reactions else None
    ep.calls.append((tool_name, ok, mutated))
    if mutated:
        ep.write_steps += 1
    if not ok:
        ep.tool_errors += 1
    signals_json = None
    tracker = ep.tracker
    if tracker is not None:
        signals_json = tracker.after_step_json(ep, schema_valid, mutated, fault, (args_json, ok, payload_json))
    cap = ep.args_cap
    if len(args_json) > cap or (tool is None and (tool_name != _ASK_USER or ep.user is None)):
        args_json = _unrecorded(args_json, tool is None, cap)  # byte budget: not kept
    size = len(args_json) + len(payload_json) + 120  # + the row itself
    ep.nbytes += size
    ep.meter[0] += size
    ep.trace.rows.append((n, at, tool_name, args_json, ok, payload_json, mutated, ep.digest,
                          reactions_json, signals_json, fault))
    at_json = _AT_JSON.get(at)
    if at_json is None:
        at_json = _AT_JSON[at] = b',"at":"%b"' % at.encode()
    if head_ok is None:  # not one of the world's tools
        tool_json = _dumps(tool_name)
        head_ok = b',"tool":' + tool_json + b',"ok":true,"result":'
        head_error = b',"tool":' + tool_json + b',"ok":false,"error":'
    out = [_STEP_HEADS[n] if n < 1001 else b'{"step":%d' % n, head_ok if ok else head_error, payload_json, at_json]
    if reactions_json is not None and fault is None:
        out += (b',"reactions":', reactions_json)
    if signals_json is not None:
        out += (b',"signals":', signals_json)
    return out, ok


def _unrecorded(args_json: bytes, unknown_tool: bool, cap: int) -> bytes:
    """What the trace keeps instead of arguments it does not store."""
    why = "unknown tool" if unknown_tool else f"larger than {cap} bytes"
    return _dumps({"unrecorded_arguments": {"bytes": len(args_json), "why": why}})


def _book(tally, journal, ep, tool_name: str, raw, pieces: list, ok) -> None:
    """The engine's part of a call: the tally, and the action log's record
    (``raw``: the arguments as ``msgspec.Raw``, or their bytes; the journal
    is flushed before the request is answered: service._commit)."""
    tally.steps[ep.world.name] += 1
    if not ok:
        tally.refused(pieces[2])  # the error payload
    if journal is not None:
        journal.append(("s", ep.id, tool_name, raw if type(raw) is _Raw else _Raw(raw), ep.steps, ep.digest))


def step(engine, ep, tool_name: str, args_json: bytes) -> list:
    """One call on ``ep`` as the engine runs it (``Engine.step_json``): the
    live byte budget, the call, the tally and the log record; the answer's pieces."""
    if engine.meter[0] > engine.settings.max_live_bytes:
        raise engine._over_budget()
    pieces, ok = _answer(ep, tool_name, args_json)
    _book(engine.tally, engine.journal, ep, tool_name, args_json, pieces, ok)
    return pieces


def batch(engine, calls, parts: list, project) -> None:
    """``Engine.batch_parts``: run calls in order, adding their results'
    pieces to ``parts`` (comma-separated; a comma first when ``parts`` holds
    a result already); with ``project``, only to that project's episodes."""
    episodes = engine.episodes
    budget = engine.settings.max_live_bytes
    meter = engine.meter
    tally = engine.tally
    journal = engine.journal
    first = len(parts) == 1
    for call in calls:
        if first:
            first = False
        else:
            parts.append(b",")
        if isinstance(call, _API_ERROR):
            slot = call.slot()
            parts.append(_orjson_dumps({"episode_id": slot.pop("episode_id", None), "ok": False, "error": slot}))
            continue
        ep = episodes.get(call.episode_id)
        try:
            if ep is None or (project is not None and ep.project != project):
                ep = engine.get(call.episode_id, project)  # raises not_found, saying why
            if call.dry_run:
                parts.append(engine._dry_run(ep, call))
            else:
                # The pieces of every answer are joined once, at the end:
                # results of a few KB each are copied one time only.
                raw = call.arguments
                if type(raw) is _Raw:  # from the wire (always, over HTTP)
                    args = bytes(raw)  # the trace's own copy; the log record reuses ``raw``
                else:
                    args = args_json(raw)
                    raw = _Raw(args)
                if meter[0] > budget:
                    raise engine._over_budget()
                pieces, ok = _answer(ep, call.tool, args)
                parts += pieces
                parts.append(ep.id_tail)
                _book(tally, journal, ep, call.tool, raw, pieces, ok)
        except _API_ERROR as e:
            parts.append(_orjson_dumps({"episode_id": call.episode_id, "ok": False, "error": e.slot()}))
