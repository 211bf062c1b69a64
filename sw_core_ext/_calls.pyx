"""A call's bookkeeping, compiled: the same as ``_calls_py.py`` (read it
first: it is the specification), in the same order, with the same answers
byte for byte; tests/engine/test_calls.py runs both side by side.

What is different is only how: the step's pieces, the trace row, the
counts, the meter, the tally and the log record are built in C, with typed
locals and direct list and tuple calls, and ``batch`` calls ``_answer``
without a Python frame per call (the interpreted loop was ~8 % of a batch's
samples, the episode's bookkeeping ~16 %: bench/README.md).

An episode, its trace and a batch's call keep their fields in slots
(``__slots__``, a msgspec Struct): ``bind`` finds where each class keeps each
field (its member descriptor's offset) and this module reads and writes them
there, as the interpreter's own specialised attribute access does. A generic
attribute lookup from C costs more than the interpreter's (it was a fifth of
a batch of cached reads under py-spy); an object of another class, or a slot
that is not set, takes the generic lookup, so the behaviour is the same.
"""

cimport cython
from cpython.dict cimport PyDict_Next
from cpython.list cimport PyList_GET_SIZE
from cpython.object cimport PyObject, PyTypeObject, Py_TYPE
from cpython.ref cimport Py_INCREF, Py_XDECREF

from sw_core_ext._store cimport Store, _Col, _Layer

import time
import types

import msgspec
import orjson

cdef extern from "Python.h":
    ctypedef struct PyMemberDef:
        int type
        Py_ssize_t offset
        int flags
    ctypedef struct PyMemberDescrObject:
        PyMemberDef* d_member

cdef enum:
    T_OBJECT_EX = 16  # structmember.h: an object slot, AttributeError while unset
    READONLY = 1
    MAX_FIELDS = 32

cdef object _MEMBER_DESCRIPTOR = types.MemberDescriptorType

# Software prefetch (see ``batch``): hints only, never a read that can fault.
cdef extern from *:
    """
    static inline void sw_pf_lines(const void* p, int lines) {
        const char* c = (const char*)p;
        for (int i = 0; i < lines; i++) __builtin_prefetch(c + 64 * i, 0, 3);
    }
    static inline void sw_pf_list_tail(PyObject* o) {
        if (o != NULL && PyList_CheckExact(o)) {
            PyListObject* l = (PyListObject*)o;
            if (l->ob_item != NULL) __builtin_prefetch(l->ob_item + Py_SIZE(l), 1, 3);
        }
    }
    static inline void sw_pf_dict_keys(PyObject* o) {
        if (o != NULL && PyDict_CheckExact(o)) __builtin_prefetch(((PyDictObject*)o)->ma_keys, 0, 3);
    }
    static inline int sw_prefetch_on(void) {
        const char* v = getenv("SW_PREFETCH");
        return v == NULL || v[0] != '0';
    }
    """
    void sw_pf_lines(const void* p, int lines)
    void sw_pf_list_tail(PyObject* o)
    void sw_pf_dict_keys(PyObject* o)
    int sw_prefetch_on()

cdef bint _PREFETCH = sw_prefetch_on()


@cython.final
cdef class Layout:
    """Where instances of one class keep the named fields (slots), found once."""

    cdef PyTypeObject* type  # NULL: not bound, every access is generic
    cdef object cls  # kept alive while its layout is used
    cdef tuple names
    cdef Py_ssize_t offsets[MAX_FIELDS]

    def __cinit__(self, tuple names):
        self.type = NULL
        self.cls = None
        self.names = names

    cdef bind(self, cls):
        """Use ``cls``'s slots; a field that is not a writable object slot of
        ``cls`` (or ``cls`` None) leaves every access generic."""
        cdef Py_ssize_t i
        cdef PyMemberDef* m
        self.type = NULL
        self.cls = None
        if cls is None or len(self.names) > MAX_FIELDS:
            return
        for i, name in enumerate(self.names):
            desc = None
            for klass in cls.__mro__:
                desc = klass.__dict__.get(name)
                if desc is not None:
                    break
            if type(desc) is not _MEMBER_DESCRIPTOR:
                return
            m = (<PyMemberDescrObject*>desc).d_member
            if m.type != T_OBJECT_EX or m.flags & READONLY:
                return
            self.offsets[i] = m.offset
        self.cls = cls
        self.type = <PyTypeObject*>cls

    cdef inline object get(self, o, int i):
        cdef PyObject* p
        if Py_TYPE(o) == self.type:
            p = (<PyObject**>((<char*><PyObject*>o) + self.offsets[i]))[0]
            if p is not NULL:
                return <object>p
        return getattr(o, self.names[i])

    cdef inline PyObject* peek(self, PyObject* o, int i):
        """The slot's object, borrowed, or NULL (another class, or unset): for prefetching only."""
        if o == NULL or Py_TYPE(<object>o) != self.type:
            return NULL
        return (<PyObject**>((<char*>o) + self.offsets[i]))[0]

    cdef inline int set(self, o, int i, value) except -1:
        cdef PyObject** slot
        cdef PyObject* old
        if Py_TYPE(o) == self.type:
            slot = <PyObject**>((<char*><PyObject*>o) + self.offsets[i])
            old = slot[0]
            Py_INCREF(value)
            slot[0] = <PyObject*>value
            Py_XDECREF(old)
            return 0
        setattr(o, self.names[i], value)
        return 0


# The episode's fields this module reads or writes, by index.
cdef enum:
    E_STATUS, E_STEPS, E_STEP_LIMIT, E_TOUCHED, E_CLOCK, E_WORLD, E_FAULT_PROFILE, E_SANDBOX, E_STORE, \
        E_LAST_RESULTS, E_CALLS, E_WRITE_STEPS, E_TOOL_ERRORS, E_TRACKER, E_ARGS_CAP, E_NBYTES, E_METER, \
        E_TRACE, E_DIGEST, E_USER, E_ID_TAIL, E_ID, E_PROJECT
cdef Layout _EP = Layout((
    "status", "steps", "step_limit", "touched", "clock", "world", "fault_profile", "sandbox", "store",
    "last_results", "calls", "write_steps", "tool_errors", "tracker", "args_cap", "nbytes", "meter",
    "trace", "digest", "user", "id_tail", "id", "project"))
cdef Layout _TRACE = Layout(("rows",))
cdef enum:
    C_EPISODE_ID, C_TOOL, C_ARGUMENTS, C_DRY_RUN
cdef Layout _CALL = Layout(("episode_id", "tool", "arguments", "dry_run"))

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


def bind(reads, api_error, ask_user, log, episode=None, trace=None, call=None):
    """See the twin. ``episode``, ``trace``, ``call``: the classes whose
    slots this module reads directly (any other object works too, slower)."""
    global _READS, _API_ERROR, _ASK_USER, _LOG
    _READS, _API_ERROR, _ASK_USER, _LOG = reads, api_error, ask_user, log
    _EP.bind(episode)
    _TRACE.bind(trace)
    _CALL.bind(call)


def direct() -> tuple:
    """The names of the classes whose slots are read directly (the rest: generic lookups)."""
    return tuple(layout.cls.__name__ for layout in (_EP, _TRACE, _CALL) if layout.cls is not None)


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
    cdef object head_ok, head_error, hit, tracker, signals_json, reactions_json, last, at_json, at, steps
    cdef dict last_results
    cdef list out
    cdef Layout E = _EP
    steps = E.get(ep, E_STEPS)
    if E.get(ep, E_STATUS) != _OPEN or steps >= E.get(ep, E_STEP_LIMIT):
        ep.check_open()  # raises, saying which
    E.set(ep, E_TOUCHED, _monotonic())
    n = steps + 1
    steps = n
    E.set(ep, E_STEPS, steps)
    at = E.get(ep, E_CLOCK)[n]
    world = E.get(ep, E_WORLD)
    tool = world.tools_by_name.get(tool_name)
    unknown = tool is None
    if unknown:
        head_ok = head_error = None
        ok_, payload, sv = ep._unknown(tool_name, args_json)
        ok = ok_
        schema_valid = sv
    else:
        tool_name = tool.name  # an alias's call is the served name's (see the twin)
        head_ok = tool.head_ok
        head_error = tool.head_error
        if tool.pure and E.get(ep, E_FAULT_PROFILE) is None and not E.get(ep, E_SANDBOX) and _READS.enabled \
                and tool.name not in world.reactions_by_tool:
            hit = None if tool.writes else _READS.get((E.get(ep, E_STORE).identity_of(tool.reads), tool_name,
                                                       args_json))
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
        last_results = E.get(ep, E_LAST_RESULTS)
        last = last_results.get(tool_name)
        if last is not None and last == payload_json:
            payload_json = last
        else:
            last_results[tool_name] = payload_json
    reactions_json = _dumps(reactions) if reactions else None
    E.get(ep, E_CALLS).append((tool_name, ok, mutated))
    if mutated:
        E.set(ep, E_WRITE_STEPS, E.get(ep, E_WRITE_STEPS) + 1)
    if not ok:
        E.set(ep, E_TOOL_ERRORS, E.get(ep, E_TOOL_ERRORS) + 1)
    signals_json = None
    tracker = E.get(ep, E_TRACKER)
    if tracker is not None:
        signals_json = tracker.after_step_json(ep, schema_valid, mutated, fault, (args_json, ok, payload_json))
    cap = E.get(ep, E_ARGS_CAP)
    if len(args_json) > cap or (unknown and (tool_name != _ASK_USER or E.get(ep, E_USER) is None)):
        args_json = _unrecorded(args_json, unknown, cap)
    size = len(args_json) + len(payload_json) + 120
    E.set(ep, E_NBYTES, E.get(ep, E_NBYTES) + size)
    meter = E.get(ep, E_METER)
    meter[0] += size
    _TRACE.get(E.get(ep, E_TRACE), 0).append((steps, at, tool_name, args_json, ok, payload_json, mutated,
                                              E.get(ep, E_DIGEST), reactions_json, signals_json, fault))
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


cdef inline int _book(tally_steps, tally, journal, ep, tool_name, raw, list pieces, bint ok) except -1:
    """The tally and the action log's record (see the twin)."""
    cdef Layout E = _EP
    tally_steps[E.get(ep, E_WORLD).name] += 1
    if not ok:
        tally.refused(pieces[2])
    if journal is not None:
        journal.append(("s", E.get(ep, E_ID), tool_name, raw if type(raw) is _Raw else _Raw(raw),
                        E.get(ep, E_STEPS), E.get(ep, E_DIGEST)))
    return 0


def step(engine, ep, tool_name, args_json):
    """One call on ``ep`` as the engine runs it (see the twin)."""
    cdef bint ok
    if engine.meter[0] > engine.settings.max_live_bytes:
        raise engine._over_budget()
    pieces = _answer(ep, tool_name, args_json, &ok)
    tally = engine.tally
    _book(tally.steps, tally, engine.journal, ep, tool_name, args_json, pieces, ok)
    return pieces


# How many calls ahead ``batch`` starts fetching an episode's memory (see
# ``_warm``): one level of pointers per call, so each level has a whole call's
# time (microseconds, against a miss's ~0.1) to arrive before it is read.
cdef enum:
    _AHEAD = 4


cdef list _resolve(dict episodes, calls):
    """Each call's episode (None for a call that failed to decode or names no
    live episode), looked up in one tight pass: the lookups are independent,
    so the CPU overlaps their cache misses, which it cannot do when each sits
    between two calls' work. Only a prefetching hint: ``batch`` still looks
    every episode up where it always did."""
    cdef list out = []
    cdef Layout C = _CALL
    for call in calls:
        if isinstance(call, _API_ERROR):
            out.append(None)
        else:
            out.append(episodes.get(C.get(call, C_EPISODE_ID)))
    return out


cdef inline PyObject* _ahead(list ahead, Py_ssize_t k, Py_ssize_t n, PyTypeObject* type):
    """The episode ``k`` calls on, if it is one of ``type``; else NULL."""
    cdef PyObject* ep
    if k >= n:
        return NULL
    ep = <PyObject*>ahead[k]
    return ep if Py_TYPE(<object>ep) == type else NULL


cdef inline PyObject* _store_of(PyObject* ep):
    cdef PyObject* st = _EP.peek(ep, E_STORE)
    return st if st != NULL and Py_TYPE(<object>st) == <PyTypeObject*>Store else NULL


cdef inline void _warm(list ahead, Py_ssize_t i, Py_ssize_t n):
    """Prefetch what the next calls will touch, one level of pointers per call.

    A 1,000-call batch usually touches 1,000 different episodes, each cold
    in the CPU's caches: a call waits on memory for the episode, then for
    each object it points to, one after the other (half a call's time is
    waiting on memory: bench/README.md). Each level is asked for one call
    after the level that points to it, so every pointer read here is to a
    line already fetched and the misses overlap the calls' work: the episode
    five calls ahead; four ahead, the objects its slots point to; then the
    store's collection table, the trace's rows and the last results' table;
    then the collection table's entries; one ahead, each collection; and
    just before the call, each collection's delta and top layer. Only hints:
    nothing is read without its type checked, and a wrong guess costs a
    wasted fetch, never a wrong answer."""
    cdef PyTypeObject* type = _EP.type
    cdef PyObject* ep
    cdef PyObject* o
    cdef PyObject* st
    cdef PyObject* k
    cdef PyObject* v
    cdef Py_ssize_t pos
    cdef _Col col
    if type == NULL:
        return
    ep = _ahead(ahead, i + 5, n, type)
    if ep != NULL:
        sw_pf_lines(ep, 4)
    ep = _ahead(ahead, i + 4, n, type)
    if ep != NULL:
        sw_pf_lines(_EP.peek(ep, E_STORE), 2)
        sw_pf_lines(_EP.peek(ep, E_LAST_RESULTS), 1)
        sw_pf_lines(_EP.peek(ep, E_CALLS), 1)
        sw_pf_lines(_EP.peek(ep, E_TRACE), 1)
        sw_pf_lines(_EP.peek(ep, E_ID_TAIL), 1)
        sw_pf_lines(_EP.peek(ep, E_DIGEST), 1)
        # The numbers a step replaces: freeing the old float and int writes to them.
        sw_pf_lines(_EP.peek(ep, E_TOUCHED), 1)
        sw_pf_lines(_EP.peek(ep, E_NBYTES), 1)
    ep = _ahead(ahead, i + 3, n, type)
    if ep != NULL:
        st = _store_of(ep)
        if st != NULL:
            sw_pf_lines(<PyObject*>(<Store>st)._cols, 1)
        sw_pf_dict_keys(_EP.peek(ep, E_LAST_RESULTS))
        sw_pf_list_tail(_EP.peek(ep, E_CALLS))
        o = _EP.peek(ep, E_TRACE)
        if o != NULL:
            sw_pf_lines(_TRACE.peek(o, 0), 1)
    ep = _ahead(ahead, i + 2, n, type)
    if ep != NULL:
        st = _store_of(ep)
        if st != NULL:
            sw_pf_dict_keys(<PyObject*>(<Store>st)._cols)
        o = _EP.peek(ep, E_TRACE)
        if o != NULL:
            sw_pf_list_tail(_TRACE.peek(o, 0))
    ep = _ahead(ahead, i + 1, n, type)
    if ep != NULL:
        st = _store_of(ep)
        if st != NULL:
            pos = 0
            while pos < 16 and PyDict_Next((<Store>st)._cols, &pos, &k, &v):
                sw_pf_lines(v, 1)
    ep = _ahead(ahead, i, n, type)
    if ep != NULL:
        st = _store_of(ep)
        if st != NULL:
            pos = 0
            while pos < 16 and PyDict_Next((<Store>st)._cols, &pos, &k, &v):
                if Py_TYPE(<object>v) == <PyTypeObject*>_Col:
                    col = <_Col>v
                    sw_pf_lines(<PyObject*>col.delta, 1)
                    sw_pf_lines(<PyObject*>col.base, 1)


def batch(engine, calls, list parts, project):
    """``Engine.batch_parts`` (see the twin)."""
    cdef bint first = PyList_GET_SIZE(parts) == 1
    cdef bint ok
    cdef dict episodes = engine.episodes
    cdef list meter = engine.meter
    cdef list pieces
    cdef Layout E = _EP, C = _CALL
    budget = engine.settings.max_live_bytes
    tally = engine.tally
    tally_steps = tally.steps
    journal = engine.journal
    cdef list ahead = _resolve(episodes, calls) if _PREFETCH else None
    cdef Py_ssize_t i = -1, n = PyList_GET_SIZE(ahead) if ahead is not None else 0
    for call in calls:
        i += 1
        if ahead is not None:
            _warm(ahead, i, n)
        if first:
            first = False
        else:
            parts.append(_COMMA)
        if isinstance(call, _API_ERROR):
            slot = call.slot()
            parts.append(_orjson_dumps({"episode_id": slot.pop("episode_id", None), "ok": False, "error": slot}))
            continue
        episode_id = C.get(call, C_EPISODE_ID)
        ep = episodes.get(episode_id)
        try:
            if ep is None or (project is not None and E.get(ep, E_PROJECT) != project):
                ep = engine.get(episode_id, project)
            if C.get(call, C_DRY_RUN):
                parts.append(engine._dry_run(ep, call))
            else:
                raw = C.get(call, C_ARGUMENTS)
                if type(raw) is _Raw:
                    args = bytes(raw)
                else:
                    args = args_json(raw)
                    raw = _Raw(args)
                if meter[0] > budget:
                    raise engine._over_budget()
                tool_name = C.get(call, C_TOOL)
                pieces = _answer(ep, tool_name, args, &ok)
                parts.extend(pieces)
                parts.append(E.get(ep, E_ID_TAIL))
                _book(tally_steps, tally, journal, ep, tool_name, raw, pieces, ok)
        except _API_ERROR as e:
            parts.append(_orjson_dumps({"episode_id": episode_id, "ok": False, "error": e.slot()}))
