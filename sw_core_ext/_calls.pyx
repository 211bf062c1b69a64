"""A call's bookkeeping, compiled: the same as ``_calls_py.py`` (read it
first: it is the specification), in the same order, with the same answers
byte for byte; tests/core/test_calls.py runs both side by side.

What is different is only how: the step's pieces, the trace row, the
counts, the meter, the tally and the log record are built in C, with typed
locals and direct list and tuple calls, and ``batch`` calls ``_answer``
without a Python frame per call (the interpreted loop was ~8 % of a batch's
samples, the episode's bookkeeping ~16 %: bench/README.md).
"""

cimport cython
from cpython.list cimport PyList_GET_SIZE

import time

import msgspec
import orjson

cdef object _orjson_dumps = orjson.dumps
cdef object _Raw = msgspec.Raw
cdef object _monotonic = time.monotonic
cdef object _memoryview = memoryview

OPEN = "open"
cdef str _OPEN = OPEN


cdef inline bytes _dumps(value):
    """orjson's encoding, copied to its exact size (see the twin)."""
    return bytes(_memoryview(_orjson_dumps(value)))


cdef bytes _NOT_JSON = _dumps({"code": "internal_error", "message": "the tool answered a value that is not JSON; "
                               "this is a bug in the world"})

cdef list _STEP_HEADS = [b'{"step":%d' % n for n in range(1001)]
cdef dict _AT_JSON = {}

cdef bytes _COMMA = b","
cdef bytes _REACTIONS = b',"reactions":'
cdef bytes _SIGNALS = b',"signals":'

# Handed over by the runtime (``bind``).
cdef object _READS = None
cdef object _API_ERROR = Exception
cdef object _ASK_USER = "ask_user"
cdef object _LOG = None


def bind(reads, api_error, ask_user, log):
    """See the twin."""
    global _READS, _API_ERROR, _ASK_USER, _LOG
    _READS, _API_ERROR, _ASK_USER, _LOG = reads, api_error, ask_user, log


cpdef bytes args_json(arguments):
    """A call's arguments as JSON bytes, from the wire (Raw) or from Python."""
    if type(arguments) is _Raw:
        return bytes(arguments)
    try:
        return bytes(_memoryview(_orjson_dumps(arguments)))
    except TypeError:
        return b"null"


def answer(ep, tool_name, args_json):
    """Run one tool call as ``ep``'s next step: the pieces of its answer (see the twin)."""
    cdef bint ok
    return _answer(ep, tool_name, args_json, &ok)


cdef list _answer(ep, tool_name, args_json, bint* ok_out):
    cdef Py_ssize_t n, size, cap
    cdef bint ok, mutated = False, schema_valid = False, shared = False, unknown
    cdef object payload = None, payload_json = None, reactions = None, fault = None
    cdef object head_ok, head_error, hit, tracker, signals_json, reactions_json, last, at_json, at
    cdef dict last_results
    cdef list out
    if ep.status != _OPEN or ep.steps >= ep.step_limit:
        ep.check_open()  # raises, saying which
    ep.touched = _monotonic()
    n = ep.steps + 1
    ep.steps = n
    at = ep.clock[n]
    world = ep.world
    tool = world.tools_by_name.get(tool_name)
    unknown = tool is None
    if unknown:
        head_ok = head_error = None
        ok_, payload, sv = ep._unknown(tool_name, args_json)
        ok = ok_
        schema_valid = sv
    else:
        head_ok = tool.head_ok
        head_error = tool.head_error
        if tool.pure and ep.fault_profile is None and not ep.sandbox and _READS.enabled \
                and tool.name not in world.reactions_by_tool:
            hit = None if tool.writes else _READS.get((ep.store.identity_of(tool.reads), tool_name, args_json))
            if hit is not None:
                ok_, payload_json = hit
                ok = ok_
                schema_valid = shared = True
            else:
                sv, payload_json, ok_, payload, m = ep._pure(tool, args_json, n, at)
                schema_valid, ok, mutated = sv, ok_, m
        else:
            sv, ok_, payload, m, reactions, fault = ep._decoded(tool, args_json, n, at)
            schema_valid, ok, mutated = sv, ok_, m
    if payload_json is None:
        try:
            payload_json = _dumps(payload)
        except TypeError:
            _LOG.error("tool %s.%s answered a value that is not JSON", world.name, tool_name)
            ok = False
            payload_json = _NOT_JSON
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
    if len(args_json) > cap or (unknown and (tool_name != _ASK_USER or ep.user is None)):
        args_json = _unrecorded(args_json, unknown, cap)
    size = len(args_json) + len(payload_json) + 120
    ep.nbytes += size
    meter = ep.meter
    meter[0] += size
    ep.trace.rows.append((n, at, tool_name, args_json, ok, payload_json, mutated, ep.digest,
                          reactions_json, signals_json, fault))
    at_json = _AT_JSON.get(at)
    if at_json is None:
        at_json = b',"at":"%b"' % at.encode()
        _AT_JSON[at] = at_json
    if head_ok is None:
        tool_json = _dumps(tool_name)
        head_ok = b',"tool":' + tool_json + b',"ok":true,"result":'
        head_error = b',"tool":' + tool_json + b',"ok":false,"error":'
    out = [_STEP_HEADS[n] if n < 1001 else b'{"step":%d' % n, head_ok if ok else head_error, payload_json, at_json]
    if reactions_json is not None and fault is None:
        out.append(_REACTIONS)
        out.append(reactions_json)
    if signals_json is not None:
        out.append(_SIGNALS)
        out.append(signals_json)
    ok_out[0] = ok
    return out


cdef bytes _unrecorded(args_json, bint unknown_tool, Py_ssize_t cap):
    why = "unknown tool" if unknown_tool else f"larger than {cap} bytes"
    return _dumps({"unrecorded_arguments": {"bytes": len(args_json), "why": why}})


cdef inline void _book(tally, journal, ep, tool_name, raw, list pieces, bint ok) except *:
    """The tally and the action log's record (see the twin)."""
    steps = tally.steps
    name = ep.world.name
    steps[name] += 1
    if not ok:
        tally.refused(pieces[2])
    if journal is not None:
        journal.append(("s", ep.id, tool_name, raw if type(raw) is _Raw else _Raw(raw), ep.steps, ep.digest))


def step(engine, ep, tool_name, args_json):
    """One call on ``ep`` as the engine runs it (see the twin)."""
    cdef bint ok
    if engine.meter[0] > engine.settings.max_live_bytes:
        raise engine._over_budget()
    pieces = _answer(ep, tool_name, args_json, &ok)
    _book(engine.tally, engine.journal, ep, tool_name, args_json, pieces, ok)
    return pieces


def batch(engine, calls, list parts, project):
    """``Engine.batch_parts`` (see the twin)."""
    cdef bint first = PyList_GET_SIZE(parts) == 1
    cdef bint ok
    cdef dict episodes = engine.episodes
    cdef list meter = engine.meter
    cdef list pieces
    budget = engine.settings.max_live_bytes
    tally = engine.tally
    journal = engine.journal
    for call in calls:
        if first:
            first = False
        else:
            parts.append(_COMMA)
        if isinstance(call, _API_ERROR):
            slot = call.slot()
            parts.append(_orjson_dumps({"episode_id": slot.pop("episode_id", None), "ok": False, "error": slot}))
            continue
        ep = episodes.get(call.episode_id)
        try:
            if ep is None or (project is not None and ep.project != project):
                ep = engine.get(call.episode_id, project)
            if call.dry_run:
                parts.append(engine._dry_run(ep, call))
            else:
                raw = call.arguments
                if type(raw) is _Raw:
                    args = bytes(raw)
                else:
                    args = args_json(raw)
                    raw = _Raw(args)
                if meter[0] > budget:
                    raise engine._over_budget()
                tool_name = call.tool
                pieces = _answer(ep, tool_name, args, &ok)
                parts.extend(pieces)
                parts.append(ep.id_tail)
                _book(tally, journal, ep, tool_name, raw, pieces, ok)
        except _API_ERROR as e:
            parts.append(_orjson_dumps({"episode_id": call.episode_id, "ok": False, "error": e.slot()}))
