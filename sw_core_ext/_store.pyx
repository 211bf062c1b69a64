"""Cython state core: collections of JSON records with O(1) copy-on-write
forks and an incrementally maintained SHA-256 state digest.

Same API, errors and digests as the pure-Python twin ``_store_py.py`` (read it
first: it is the specification; docs/DIGEST.md defines the digest). What this
module does differently, for speed:

* record hashes and the 256-bit accumulator are four uint64 limbs in C,
  added and subtracted with carry, instead of Python ints;
* SHA-256 comes from libcrypto, found at import time with dlopen/dlsym so
  that building needs no OpenSSL headers or link flags; without libcrypto it
  is hashlib (see below);
* a fork shares the parent's collection objects themselves, not only their
  layers: a store copies a collection (O(1)) on its first write to it;
* each collection keeps its sorted ids, patched on insert/remove, so a scan
  does not sort; a shared layer caches its ``(id, record)`` pairs, so
  scanning a collection written only by updates since the fork is a merge
  of those with the writes, and one not written at all is a list copy;
* a collection with a declared shape keeps each record whose keys are the
  shape's fields, in its order, as a *row* (``_Row``): the tuple of its values
  (seed strings interned), about half a dict's memory, and its dict once a
  read has built it (a seed's rows are shared by every episode forked from
  it, so that is once per seed). Queries (``scan``/``select``/``count``/``sum``
  with ``where``, ``between``, ``order_by``, ``limit``) test the rows' fields
  by position in this module, sort rows with a C getter of their positions,
  and build a dict only for a record they return. A collection without a
  shape is queried as a Python filter and ``list.sort`` would;
* ``select_json`` answers ``select``'s records as one ``orjson.Fragment`` of
  their JSON array: a row keeps its own JSON bytes once made (in ``_Row.cache``,
  from its dict if a read built one, else from a dict that is not kept), so
  a listing a tool answers as it is copies bytes instead of encoding dicts
  and values spread over memory. Rows never change once stored (a write
  stores a new row), so the bytes never go stale; a pickle carries records,
  not rows, so it carries none of them.
"""

cimport cython
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.dict cimport PyDict_Copy, PyDict_GetItemWithError, PyDict_Keys, PyDict_Next, PyDict_SetItem, PyDict_Size, PyDict_Update
from cpython.list cimport PyList_GET_SIZE
from cpython.ref cimport PyObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE, PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport uint64_t
from libc.string cimport memcmp, memcpy

import hashlib
import os
from operator import itemgetter as _itemgetter

import orjson

cdef extern from "Python.h":
    dict _PyDict_NewPresized(Py_ssize_t minused)

DIGEST_DOMAIN = b"sandworld-state-v1"
# Past this many layers a collection is flattened into one, so that reads
# stay O(1) in long fork chains; the cost is amortised over the forks.
MAX_DEPTH = 24

cdef object _dumps = orjson.dumps
cdef object _Fragment = orjson.Fragment
cdef bytes _COMMA = b","
cdef object _SORT = orjson.OPT_SORT_KEYS
cdef bytes _DOMAIN = DIGEST_DOMAIN
cdef int _MAX_DEPTH = MAX_DEPTH
# What a query answers (``Store._query``'s ``want``): (id, record) pairs,
# records, or the records' JSON array as one fragment.
cdef enum:
    _PAIRS = 0
    _RECORDS = 1
    _JSON = 2

# A shape interns at most this many distinct string values (seeds' repeats:
# statuses, names, handles), each at most _INTERN_LEN characters long.
cdef Py_ssize_t _INTERN_MAX = 4096
cdef Py_ssize_t _INTERN_LEN = 64


# -- SHA-256 -------------------------------------------------------------------
#
# Record hashes are SHA-256 of ~100 bytes, where per-call overhead dominates.
# OpenSSL 3's one-shot SHA256() looks the algorithm up on every call (~0.35 us
# here); the older SHA256_Init/Update/Final (deprecated in the headers, still
# exported by libcrypto.so.3) take ~0.09 us, hashlib ~0.3 us plus a bytes
# object. So: the low-level functions when present, else SHA256(), else
# hashlib. SW_SHA256=libcrypto-oneshot or SW_SHA256=hashlib caps the choice
# (to test the fallbacks). Each candidate must pass a self-test against hashlib.

cdef extern from "<dlfcn.h>" nogil:
    void* dlopen(const char* filename, int flag)
    void* dlsym(void* handle, const char* symbol)
    int RTLD_NOW
    int RTLD_LOCAL

ctypedef unsigned char* (*_oneshot_fn)(const unsigned char* d, size_t n, unsigned char* md) noexcept nogil
ctypedef int (*_init_fn)(void* ctx) noexcept nogil
ctypedef int (*_update_fn)(void* ctx, const void* d, size_t n) noexcept nogil
ctypedef int (*_final_fn)(unsigned char* md, void* ctx) noexcept nogil

# OpenSSL's SHA256_CTX is 112 bytes; without its header, reserve plenty.
cdef enum:
    _CTX_WORDS = 64

cdef _init_fn _sha_init = NULL
cdef _update_fn _sha_update = NULL
cdef _final_fn _sha_final = NULL
cdef _oneshot_fn _sha_oneshot = NULL
cdef object _py_sha256 = hashlib.sha256


cdef int _sha256(const unsigned char* data, size_t n, unsigned char* out) except -1:
    cdef uint64_t ctx[_CTX_WORDS]
    if _sha_init != NULL:
        _sha_init(ctx)
        _sha_update(ctx, data, n)
        _sha_final(out, ctx)
        return 0
    if _sha_oneshot != NULL:
        _sha_oneshot(data, n, out)
        return 0
    cdef bytes md = _py_sha256((<const char*>data)[:n]).digest()
    memcpy(out, PyBytes_AS_STRING(md), 32)
    return 0


cdef bint _self_test() except -1:
    """Does ``_sha256`` agree with hashlib (one block, and several)?"""
    cdef unsigned char md[32]
    for sample in (b"abc", b"sandworld " * 30):
        _sha256(<const unsigned char*>PyBytes_AS_STRING(sample), len(sample), md)
        if (<char*>md)[:32] != _py_sha256(sample).digest():
            return False
    return True


cdef str _choose_sha256(str cap):
    """Point the function pointers at the best SHA-256 allowed by ``cap``
    and return its name. Python's _hashlib has usually loaded libcrypto
    already, so dlopen just returns that handle."""
    global _sha_init, _sha_update, _sha_final, _sha_oneshot
    cdef void* handle
    if cap == "hashlib":
        return "hashlib"
    for name in (b"libcrypto.so.3", b"libcrypto.so"):
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)
        if handle == NULL:
            continue
        if cap != "libcrypto-oneshot":
            _sha_init = <_init_fn>dlsym(handle, b"SHA256_Init")
            _sha_update = <_update_fn>dlsym(handle, b"SHA256_Update")
            _sha_final = <_final_fn>dlsym(handle, b"SHA256_Final")
            if _sha_init != NULL and _sha_update != NULL and _sha_final != NULL and _self_test():
                return "libcrypto"
            _sha_init, _sha_update, _sha_final = NULL, NULL, NULL
        _sha_oneshot = <_oneshot_fn>dlsym(handle, b"SHA256")
        if _sha_oneshot != NULL and _self_test():
            return "libcrypto-oneshot"
        _sha_oneshot = NULL
    return "hashlib"


# Which SHA-256 this process uses (diagnostics): "libcrypto"
# (SHA256_Init/Update/Final), "libcrypto-oneshot" (SHA256()) or "hashlib".
SHA256_BACKEND = _choose_sha256(os.environ.get("SW_SHA256", ""))


# -- 256-bit accumulator as four uint64 limbs, least significant first ---------

cdef inline void _load_be(const unsigned char* p, uint64_t* h) noexcept nogil:
    """32 big-endian bytes -> limbs."""
    cdef int i, j
    cdef uint64_t v
    for i in range(4):
        v = 0
        for j in range(8):
            v = (v << 8) | p[8 * i + j]
        h[3 - i] = v


cdef inline void _store_be(const uint64_t* h, unsigned char* p) noexcept nogil:
    """Limbs -> 32 big-endian bytes."""
    cdef int i, j
    cdef uint64_t v
    for i in range(4):
        v = h[3 - i]
        for j in range(8):
            p[8 * i + j] = <unsigned char>(v >> (56 - 8 * j))


cdef inline void _acc_add(uint64_t* acc, const uint64_t* h) noexcept nogil:
    """acc = (acc + h) mod 2**256."""
    cdef uint64_t carry = 0, s, t
    cdef int i
    for i in range(4):
        s = acc[i] + h[i]
        t = s + carry
        carry = (s < h[i]) | (t < s)
        acc[i] = t


cdef inline void _acc_sub(uint64_t* acc, const uint64_t* h) noexcept nogil:
    """acc = (acc - h) mod 2**256."""
    cdef uint64_t borrow = 0, a, d
    cdef int i
    for i in range(4):
        a = acc[i]
        d = a - h[i]
        acc[i] = d - borrow
        borrow = (a < h[i]) | (d < borrow)


cdef object _limbs_to_int(const uint64_t* h):
    cdef unsigned char b[32]
    _store_be(h, b)
    return int.from_bytes((<char*>b)[:32], "big")


cdef int _int_to_limbs(object value, uint64_t* h) except -1:
    cdef bytes b = value.to_bytes(32, "big")
    _load_be(<const unsigned char*>PyBytes_AS_STRING(b), h)
    return 0


def _limb_arith(a, b, bint subtract=False):
    """``(a +/- b) mod 2**256`` through the limb code (for tests: carries and
    borrows across limbs are only reachable from crafted values)."""
    cdef uint64_t x[4]
    cdef uint64_t y[4]
    _int_to_limbs(a, x)
    _int_to_limbs(b, y)
    if subtract:
        _acc_sub(x, y)
    else:
        _acc_add(x, y)
    return _limbs_to_int(x)


cdef str _digest_of_limbs(const uint64_t* acc):
    cdef Py_ssize_t n = PyBytes_GET_SIZE(_DOMAIN)
    cdef unsigned char buf[64]  # domain (18 bytes) + accumulator (32)
    cdef unsigned char md[32]
    cdef char out[71]
    cdef const char* hexdigits = b"0123456789abcdef"
    cdef int i
    if n > 32:
        raise ValueError("DIGEST_DOMAIN too long")
    memcpy(buf, PyBytes_AS_STRING(_DOMAIN), n)
    _store_be(acc, buf + n)
    _sha256(buf, n + 32, md)
    memcpy(out, b"sha256:", 7)
    for i in range(32):
        out[7 + 2 * i] = hexdigits[md[i] >> 4]
        out[8 + 2 * i] = hexdigits[md[i] & 15]
    return out[:71].decode("ascii")


cdef int _hash_record(object collection, object rid, object record, uint64_t* h) except -1:
    # option passed positionally: orjson's vectorcall parses that fastest.
    cdef bytes data = _dumps([collection, rid, record], None, _SORT)
    cdef unsigned char md[32]
    _sha256(<const unsigned char*>PyBytes_AS_STRING(data), <size_t>PyBytes_GET_SIZE(data), md)
    _load_be(md, h)
    return 0


def canonical_json(value) -> bytes:
    """Canonical bytes: sorted keys, no whitespace, UTF-8 (orjson)."""
    return _dumps(value, None, _SORT)


def record_hash(collection, rid, record) -> int:
    """SHA-256 of canonical ``[collection, id, record]`` as a big-endian int."""
    cdef uint64_t h[4]
    _hash_record(collection, rid, record, h)
    return _limbs_to_int(h)


def digest_of_acc(acc) -> str:
    cdef uint64_t limbs[4]
    _int_to_limbs(acc, limbs)
    return _digest_of_limbs(limbs)


# -- layers and collections ----------------------------------------------------

@cython.no_gc  # holds a JSON value: it cannot be part of a reference cycle
@cython.freelist(64)
@cython.final
cdef class _Entry:
    def __repr__(self):
        return "<removed>" if self is _TOMB else f"<entry {self.record!r}>"


cdef _Entry _TOMB = _Entry.__new__(_Entry)


cdef inline _Entry _new_entry(object record, const uint64_t* h):
    cdef _Entry e = _Entry.__new__(_Entry)
    e.record = record
    memcpy(e.h, h, sizeof(uint64_t) * 4)
    return e


# -- shapes and rows ------------------------------------------------------------

@cython.no_gc  # holds JSON values: it cannot be part of a reference cycle
@cython.freelist(64)
@cython.final
cdef class _Row:
    """A record kept compactly: its values in its shape's field order. The
    record's dict is built on the first read that returns it and kept, so
    the records a read returns often are built once; its JSON likewise on
    the first ``select_json`` that returns it. Neither goes stale: a row
    never changes once stored. Both are kept in one slot, ``cache``: None,
    the dict, the JSON (bytes), or a ``_Both`` once both were asked for (a
    seed's rows, mostly); a second slot would cost every row 16 bytes (the
    allocator's next size), and an episode's writes are rows of its own."""
    cdef tuple values
    cdef object cache

    def __getitem__(self, Py_ssize_t i):
        # A value by position: what the queries' sort keys (itemgetter) read.
        return self.values[i]

    def __repr__(self):
        return f"<row {self.values!r}>"


@cython.no_gc  # holds a dict of JSON values and bytes: no reference cycle
@cython.final
cdef class _Both:
    """A row's dict and its JSON, once reads have asked for both (``_Row.cache``)."""
    cdef dict record
    cdef bytes json


cdef inline object _both(dict record, bytes json):
    cdef _Both both = _Both.__new__(_Both)
    both.record = record
    both.json = json
    return both


@cython.final
cdef class _Shape:
    def __cinit__(self, tuple fields):
        cdef Py_ssize_t i
        self.fields = fields
        self.n = PyTuple_GET_SIZE(fields)
        self.index = {}
        for i in range(self.n):
            if type(fields[i]) is not str:
                raise TypeError(f"a shape's fields are str, not {type(fields[i]).__name__}")
            self.index[fields[i]] = i
        if len(self.index) != self.n:
            raise ValueError(f"a shape names each field once: {fields!r}")
        self.interned = {}


cdef object _to_row(_Shape shape, object record, bint intern):
    """``record`` as a row of ``shape``, or ``record`` itself when it is not
    a dict with exactly the shape's keys in the shape's order."""
    cdef Py_ssize_t pos = 0, i = 0
    cdef PyObject* k
    cdef PyObject* v
    cdef PyObject* p
    cdef object key, value
    cdef tuple values
    cdef _Row row
    if shape is None or type(record) is not dict or PyDict_Size(record) != shape.n:
        return record
    while PyDict_Next(record, &pos, &k, &v):
        key = <object>PyTuple_GET_ITEM(shape.fields, i)
        if <PyObject*>key != k and key != <object>k:
            return record
        i += 1
    values = PyTuple_New(shape.n)
    pos = 0
    i = 0
    while PyDict_Next(record, &pos, &k, &v):
        value = <object>v
        if intern and type(value) is str and len(<str>value) <= _INTERN_LEN:
            p = PyDict_GetItemWithError(shape.interned, value)
            if p != NULL:
                value = <object>p
            elif PyDict_Size(shape.interned) < _INTERN_MAX:
                shape.interned[value] = value
        Py_INCREF(value)
        PyTuple_SET_ITEM(values, i, value)
        i += 1
    row = _Row.__new__(_Row)
    row.values = values
    return row


cdef inline object _as_record(_Shape shape, object raw):
    """The record a stored value stands for: a row's dict, else itself."""
    if type(raw) is not _Row:
        return raw
    if type((<_Row>raw).cache) is dict:
        return (<_Row>raw).cache
    return _row_record(shape, <_Row>raw)


cdef dict _row_record(_Shape shape, _Row row):
    """The row's dict, built and kept if it has none yet (beside its JSON, if kept)."""
    cdef object cache = row.cache
    cdef dict record
    if type(cache) is dict:
        return <dict>cache
    if type(cache) is _Both:
        return (<_Both>cache).record
    record = _row_dict(shape, row.values)
    row.cache = record if cache is None else _both(record, <bytes>cache)
    return record


cdef inline dict _kept_record(_Row row):
    """The row's dict if a read built it, else None (builds nothing)."""
    cdef object cache = row.cache
    if type(cache) is dict:
        return <dict>cache
    if type(cache) is _Both:
        return (<_Both>cache).record
    return None


cdef dict _row_dict(_Shape shape, tuple values):
    cdef Py_ssize_t i
    cdef dict d = _PyDict_NewPresized(shape.n)
    for i in range(shape.n):
        PyDict_SetItem(d, <object>PyTuple_GET_ITEM(shape.fields, i), <object>PyTuple_GET_ITEM(values, i))
    return d


cdef bytes _as_json(_Shape shape, object raw):
    """``orjson.dumps`` of the record a stored value stands for: a row's kept
    bytes (made once, from its dict if a read built one, else from a dict
    that is not kept), any other record encoded anew."""
    cdef _Row row
    cdef object cache
    cdef bytes data, json
    if type(raw) is not _Row:
        return _dumps(raw)
    row = <_Row>raw
    cache = row.cache
    if type(cache) is bytes:
        return <bytes>cache
    if type(cache) is _Both:
        return (<_Both>cache).json
    data = _dumps(cache if cache is not None else _row_dict(shape, row.values))
    # An exact-size copy: orjson's bytes keep its (larger) working buffer.
    json = PyBytes_FromStringAndSize(PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data))
    row.cache = json if cache is None else _both(<dict>cache, json)
    return json


cdef object _json_list(list parts):
    """The fragment of a JSON array of these encoded values (bytes): what
    ``orjson.dumps`` gives the list of their records (compact)."""
    return _Fragment(b"[%b]" % _COMMA.join(parts))


cdef inline object _field(_Shape shape, object raw, object name):
    """A stored record's field ``name`` (KeyError if it has none)."""
    cdef PyObject* p
    if type(raw) is _Row:
        p = PyDict_GetItemWithError(shape.index, name)
        if p == NULL:
            raise KeyError(name)
        return <object>PyTuple_GET_ITEM((<_Row>raw).values, <Py_ssize_t>(<object>p))
    return raw[name]


cdef _Entry _lookup(_Layer layer, object rid):
    """The entry for ``rid`` in the top-most layer holding it (maybe _TOMB)."""
    cdef PyObject* e
    while layer is not None:
        e = PyDict_GetItemWithError(layer.items, rid)
        if e != NULL:
            return <_Entry>e
        layer = layer.parent
    return None


@cython.final
cdef class _Layer:
    def __cinit__(self, dict items, _Layer parent):
        self.items = items
        self.parent = parent
        self.depth = 1 if parent is None else parent.depth + 1

    cdef list live_ids(self):
        if self._ids is None:
            self._ids = _derive_ids(self, True)
        return self._ids

    cdef list pairs(self):
        # Scanning a collection nobody wrote since the fork (the common case
        # for a cached seed) is then a list copy. The pairs hold what the
        # entries hold: rows stay rows.
        if self._pairs is None:
            self._pairs = [(rid, _lookup(self, rid).record) for rid in self.live_ids()]
        return self._pairs

    cdef _Layer flattened(self):
        """The chain ending here merged into one root layer, in one pass: the
        root's dict copied, then each layer above it laid over the copy, bottom
        up (later layers override, tombstones delete). A root holds no
        tombstones: removing a record no layer holds deletes it from the delta."""
        cdef list layers = []
        cdef _Layer layer = self
        cdef dict items
        while layer.parent is not None:
            layers.append(layer)
            layer = layer.parent
        items = PyDict_Copy(layer.items)
        for layer in reversed(layers):
            for rid, e in layer.items.items():
                if e is _TOMB:
                    items.pop(rid, None)
                else:
                    items[rid] = e
        cdef _Layer flat = _Layer(items, None)
        # Sorted ids only if some layer has them cached already (``freeze``
        # hands the top layer the collection's): a cheap merge. Otherwise the
        # first scan sorts the flat layer's ids, once.
        flat._ids = _derive_ids(self, False)
        return flat


cdef list _derive_ids(_Layer layer, bint sort_root):
    """The sorted live ids of ``layer``: those of the nearest layer at or below
    it with cached ids (or of the root, sorted and cached there when
    ``sort_root``, else None is returned), with the net changes of the layers
    in between merged in. No layer in between computes or caches a list."""
    cdef list above = []
    cdef list ids
    cdef dict changes, edits
    cdef _Layer upper
    cdef _Entry below
    while layer._ids is None and layer.parent is not None:
        above.append(layer)
        layer = layer.parent
    ids = layer._ids
    if ids is None:
        if not sort_root:
            return None
        ids = [k for k, e in layer.items.items() if e is not _TOMB]
        ids.sort()
        layer._ids = ids
    if not above:
        return ids
    changes = {}
    for upper in reversed(above):  # bottom up: later layers override
        PyDict_Update(changes, upper.items)
    edits = {}  # id -> True (now live, was not) or False (removed)
    for rid, e in changes.items():
        below = _lookup(layer, rid)
        if e is _TOMB:
            if below is not None and below is not _TOMB:
                edits[rid] = False
        elif below is None or below is _TOMB:
            edits[rid] = True
    if not edits:
        return ids  # only updates: the same ids (lists are shared, never mutated)
    return _merged_ids(ids, edits)


cdef list _merged_ids(list ids, dict edits):
    """Sorted ``ids`` with ``edits`` applied (id -> True: add an id it lacks,
    False: drop one it holds): slices of ``ids`` copied between the edits'
    bisected positions, no re-sort."""
    cdef list out = []
    cdef Py_ssize_t lo = 0, i
    for rid in sorted(edits):
        i = _bisect(ids, rid, lo)
        out.extend(ids[lo:i])
        if edits[rid]:
            out.append(rid)
            lo = i
        else:
            lo = i + 1  # ids[i] == rid
    out.extend(ids[lo:])
    return out


cdef Py_ssize_t _bisect(list ids, object rid, Py_ssize_t lo=0) except -1:
    """Index of the first id >= rid in a sorted list (from index ``lo``)."""
    cdef Py_ssize_t hi = PyList_GET_SIZE(ids), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if ids[mid] < rid:
            lo = mid + 1
        else:
            hi = mid
    return lo


@cython.freelist(16)
@cython.final
cdef class _Col:
    def __cinit__(self, _Layer base, dict delta, Py_ssize_t count):
        self.base = base
        self.delta = delta
        self.count = count

    cdef _Entry entry(self, object rid):
        """The live entry for ``rid``, or None."""
        cdef PyObject* p = PyDict_GetItemWithError(self.delta, rid)
        cdef _Entry e
        if p != NULL:
            e = <_Entry>p
        elif self.base is not None:
            e = _lookup(self.base, rid)
        else:
            return None
        return None if e is _TOMB else e

    cdef int freeze(self) except -1:
        cdef _Layer base
        if self.delta:
            base = _Layer(self.delta, self.base)
            base._ids = self.ids  # the new layer holds exactly our live ids
            self.ids_private = False
            if base.depth > _MAX_DEPTH:
                base = base.flattened()
            self.base = base
            self.delta = {}
        self.same_ids = True
        return 0

    cdef list sorted_ids(self):
        cdef list ids
        cdef set live
        if self.ids is not None:
            return self.ids
        ids = self.base.live_ids() if self.base is not None else []
        if self.delta and not self.same_ids:
            live = set(ids)
            for k, e in self.delta.items():
                if e is _TOMB:
                    live.discard(k)
                else:
                    live.add(k)
            ids = sorted(live)
            self.ids_private = True
        self.ids = ids
        return ids

    cdef _Col copy(self):
        """A private, writable copy: same layers, empty delta."""
        cdef _Col col = _Col(self.base, {}, self.count)
        col.shape = self.shape
        col.ids = self.ids
        col.same_ids = True
        return col


cdef list _private_ids(_Col col):
    """The cached ids, copied first if a layer or another _Col holds them."""
    if not col.ids_private:
        col.ids = list(col.ids)
        col.ids_private = True
    return col.ids


# Patching the sorted ids (a memmove) beats re-sorting them on the next scan.

cdef int _ids_added(_Col col, object rid) except -1:
    cdef list ids
    col.same_ids = False
    if col.ids is not None:
        ids = _private_ids(col)
        ids.insert(_bisect(ids, rid), rid)
    return 0


cdef int _ids_removed(_Col col, object rid) except -1:
    cdef list ids
    col.same_ids = False
    if col.ids is not None:
        ids = _private_ids(col)
        del ids[_bisect(ids, rid)]
    return 0


cdef list _overlay(list pairs, dict delta):
    """``pairs`` with the records of ``delta`` (updates only, no tombstones)."""
    cdef list out = []
    cdef PyObject* p
    for pair in pairs:
        p = PyDict_GetItemWithError(delta, (<tuple>pair)[0])
        out.append(pair if p == NULL else ((<tuple>pair)[0], (<_Entry>p).record))
    return out


@cython.final
cdef class _Filter:
    """A query's ``where`` (equal values) and ``between`` (``lo <= value <
    hi``, either bound None for none), with each field's row position."""
    cdef tuple eq_names, eq_values, rg_names, rg_lo, rg_hi
    cdef Py_ssize_t[16] eq_pos
    cdef Py_ssize_t[16] rg_pos
    cdef Py_ssize_t n_eq, n_rg
    cdef bint row_ok  # every field is in the shape (else no row matches)

    cdef int matches(self, _Shape shape, object raw) except -1:
        cdef Py_ssize_t i
        cdef PyObject* p
        cdef object k
        cdef tuple values
        if type(raw) is _Row:
            if not self.row_ok:
                return False
            values = (<_Row>raw).values
            for i in range(self.n_eq):
                if <object>PyTuple_GET_ITEM(values, self.eq_pos[i]) != <object>PyTuple_GET_ITEM(self.eq_values, i):
                    return False
            for i in range(self.n_rg):
                if not _in_range(<object>PyTuple_GET_ITEM(values, self.rg_pos[i]),
                                 <object>PyTuple_GET_ITEM(self.rg_lo, i), <object>PyTuple_GET_ITEM(self.rg_hi, i)):
                    return False
            return True
        for i in range(self.n_eq):
            if type(raw) is dict:
                p = PyDict_GetItemWithError(<dict>raw, <object>PyTuple_GET_ITEM(self.eq_names, i))
                if p == NULL or (<object>p) != <object>PyTuple_GET_ITEM(self.eq_values, i):
                    return False
            else:
                k = <object>PyTuple_GET_ITEM(self.eq_names, i)
                if k not in raw or raw[k] != <object>PyTuple_GET_ITEM(self.eq_values, i):
                    return False
        for i in range(self.n_rg):
            k = <object>PyTuple_GET_ITEM(self.rg_names, i)
            if k not in raw:
                return False
            if not _in_range(raw[k], <object>PyTuple_GET_ITEM(self.rg_lo, i), <object>PyTuple_GET_ITEM(self.rg_hi, i)):
                return False
        return True


cdef _Filter _compile_filter(_Shape shape, object where, object between):
    """The filter of ``where`` and ``between``, or None when both are empty."""
    cdef _Filter f
    if not where and not between:
        return None
    f = _Filter.__new__(_Filter)
    f.eq_names = tuple(where) if where else ()
    f.eq_values = tuple([where[k] for k in f.eq_names])
    f.rg_names = tuple(between) if between else ()
    f.rg_lo = tuple([_bounds(between[k])[0] for k in f.rg_names])
    f.rg_hi = tuple([_bounds(between[k])[1] for k in f.rg_names])
    f.n_eq = len(f.eq_names)
    f.n_rg = len(f.rg_names)
    if f.n_eq > 16 or f.n_rg > 16:
        raise ValueError("a query tests at most 16 fields for equality and 16 for ranges")
    f.row_ok = shape is not None and _positions(shape, f.eq_names, f.eq_pos) \
        and _positions(shape, f.rg_names, f.rg_pos)
    return f


cdef bint _positions(_Shape shape, tuple names, Py_ssize_t* out) except -1:
    """Each name's row position into ``out``; False if the shape lacks one."""
    cdef Py_ssize_t i
    cdef PyObject* p
    for i in range(PyTuple_GET_SIZE(names)):
        p = PyDict_GetItemWithError(shape.index, <object>PyTuple_GET_ITEM(names, i))
        if p == NULL:
            return False
        out[i] = <Py_ssize_t>(<object>p)
    return True


cdef Py_ssize_t _limit(object limit) except -1:
    if limit < 0:
        raise ValueError("limit must be >= 0")
    return limit


cdef list _sorted_rows(_Shape shape, list pairs, tuple names, bint reverse):
    """The stored values of ``pairs`` sorted by ``names`` (stably, as
    ``list.sort``), or None unless every one is a row with those fields:
    then the sort's key is a C getter of the rows' positions."""
    cdef list rows = []
    cdef list pos = []
    cdef PyObject* p
    for name in names:
        p = PyDict_GetItemWithError(shape.index, name)
        if p == NULL:
            return None
        pos.append(<object>p)
    for pair in pairs:
        raw = (<tuple>pair)[1]
        if type(raw) is not _Row:
            return None
        rows.append(raw)
    rows.sort(key=_itemgetter(*pos), reverse=reverse)
    return rows


cdef list _sort_keys(_Shape shape, list pairs, tuple names):
    """Each record's sort key, as ``itemgetter(*names)`` gives it: its value
    of the one field, or the tuple of its values of several. A row's come
    straight from its positions."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(names), i
    cdef Py_ssize_t[16] pos
    cdef bint rows = n <= 16
    cdef PyObject* p
    cdef list keys = []
    cdef tuple values, key
    cdef object value
    for i in range(n if rows else 0):
        p = PyDict_GetItemWithError(shape.index, <object>PyTuple_GET_ITEM(names, i))
        if p == NULL:
            rows = False  # a row lacks the field: _field raises the KeyError
            break
        pos[i] = <Py_ssize_t>(<object>p)
    for pair in pairs:
        raw = (<tuple>pair)[1]
        if rows and type(raw) is _Row:
            values = (<_Row>raw).values
            if n == 1:
                keys.append(<object>PyTuple_GET_ITEM(values, pos[0]))
                continue
            key = PyTuple_New(n)
            for i in range(n):
                value = <object>PyTuple_GET_ITEM(values, pos[i])
                Py_INCREF(value)
                PyTuple_SET_ITEM(key, i, value)
            keys.append(key)
        elif n == 1:
            keys.append(_field(shape, raw, <object>PyTuple_GET_ITEM(names, 0)))
        else:
            keys.append(tuple([_field(shape, raw, name) for name in names]))
    return keys


cdef object _plain_query(list pairs, object where, object between, object order_by, bint reverse,
                         object limit, int want):
    """A query over dict records as the worlds wrote it before shapes (a
    filter, then ``list.sort`` with ``itemgetter``): the path of collections
    without a shape, and with ``SW_LAYOUT=dicts`` the reference the compact
    layout's compiled path is compared with (tests/worlds/test_layouts.py)."""
    cdef list kept
    if where or between:
        rg = [(k, _bounds(between[k])) for k in between] if between else []
        if len(where or ()) > 16 or len(rg) > 16:
            raise ValueError("a query tests at most 16 fields for equality and 16 for ranges")
        kept = [pair for pair in pairs if _plain_matches((<tuple>pair)[1], where, rg)]
    else:
        kept = list(pairs)  # a copy: the cached list is shared
    if order_by is not None:
        names = (order_by,) if type(order_by) is str else tuple(order_by)
        get = _itemgetter(*names)
        kept.sort(key=lambda pair: get(pair[1]), reverse=reverse)
    if limit is not None:
        if limit < 0:
            raise ValueError("limit must be >= 0")
        kept = kept[:limit]
    if want == _PAIRS:
        return kept
    if want == _JSON:
        return _Fragment(_dumps([(<tuple>pair)[1] for pair in kept]))
    return [(<tuple>pair)[1] for pair in kept]


cdef bint _plain_matches(object record, object where, list rg) except -1:
    if where:
        for k, v in where.items():
            if k not in record or record[k] != v:
                return False
    for k, (lo, hi) in rg:
        if k not in record:
            return False
        if not _in_range(record[k], lo, hi):
            return False
    return True


cdef inline int _in_range(object v, object lo, object hi) except -1:
    """``lo <= v < hi``, a None bound being none: every query's range test."""
    if lo is not None and v < lo:
        return False
    return hi is None or v < hi


cdef tuple _bounds(object bounds):
    if type(bounds) is not tuple and type(bounds) is not list or len(bounds) != 2:
        raise TypeError(f"a between bound is a (lo, hi) pair, not {bounds!r}")
    return (bounds[0], bounds[1])


cdef inline int _check_id(object rid) except -1:
    if type(rid) is not str:
        raise TypeError(f"record id must be str, not {type(rid).__name__}")
    return 0


# -- the store -----------------------------------------------------------------

cdef class Store:
    """Collections of JSON records with O(1) copy-on-write forks and an
    incrementally maintained SHA-256 state digest.

    Records handed to the store become its property: never mutate a record
    after inserting it or one returned by ``get``/``scan`` (forks share them).
    ``update`` builds a new record instead.
    """

    def __cinit__(self):
        self._cols = {}

    def __init__(self, data=None, collections=(), shapes=None):
        cdef _Col col
        self._cols = {}
        self._acc[0] = self._acc[1] = self._acc[2] = self._acc[3] = 0
        self._digest = None
        self._identity = None
        for name in collections:
            self._add_collection(name)
        if shapes and _compact_layout():
            for name, fields in shapes.items():
                if name not in self._cols:
                    self._add_collection(name)
                col = self._cols[name]
                col.shape = _Shape(tuple(fields))
        if data:
            for name, records in data.items():
                if name not in self._cols:
                    self._add_collection(name)
                col = self._cols[name]
                for rid, record in records.items():
                    self._insert(name, rid, record)
                    if col.shape is not None:  # intern the seed's strings
                        e = <_Entry>col.delta[rid]
                        e.record = _to_row(col.shape, record, True)

    def _add_collection(self, name):
        if type(name) is not str:
            raise TypeError(f"collection name must be str, not {type(name).__name__}")
        self._cols[name] = _Col(None, {}, 0)

    cdef _Col _col(self, object name):
        cdef PyObject* p = PyDict_GetItemWithError(self._cols, name)
        if p == NULL:
            raise KeyError(f"unknown collection: {name!r}")
        return <_Col>p

    cdef _Col _own(self, object name, _Col col):
        """``col``, copied first if other stores share it."""
        if col.shared:
            col = col.copy()
            self._cols[name] = col
        return col

    # -- reads ---------------------------------------------------------------

    @property
    def collections(self):
        return sorted(self._cols)

    def has_collection(self, name):
        return name in self._cols

    def get(self, collection, rid):
        cdef _Col col = self._col(collection)
        cdef _Entry e = col.entry(rid)
        return None if e is None else _as_record(col.shape, e.record)

    def shape(self, collection):
        """The collection's declared fields, or None (records kept as dicts)."""
        cdef _Col col = self._col(collection)
        return None if col.shape is None else col.shape.fields

    def count(self, collection, where=None, *, between=None):
        """How many records (that match ``where`` and ``between``)."""
        cdef _Col col = self._col(collection)
        cdef _Filter f
        cdef Py_ssize_t n = 0
        if not where and not between:
            return col.count
        if col.shape is None:
            return len(_plain_query(self._raw(col), where, between, None, False, None, _PAIRS))
        f = _compile_filter(col.shape, where, between)
        for pair in self._raw(col):
            if f.matches(col.shape, (<tuple>pair)[1]):
                n += 1
        return n

    def sum(self, collection, field, where=None, *, between=None):
        """The sum of ``field`` over the records that match (0 for none);
        ``KeyError`` if one of them lacks the field."""
        cdef _Col col = self._col(collection)
        cdef _Filter f
        total = 0
        if col.shape is None:
            for record in _plain_query(self._raw(col), where, between, None, False, None, _RECORDS):
                total = total + record[field]
            return total
        f = _compile_filter(col.shape, where, between)
        for pair in self._raw(col):
            raw = (<tuple>pair)[1]
            if f is None or f.matches(col.shape, raw):
                total = total + _field(col.shape, raw, field)
        return total

    def ids(self, collection):
        return list(self._col(collection).sorted_ids())

    cdef list _raw(self, _Col col):
        """``(id, stored record or row)`` in id order; maybe a shared list: never mutate it."""
        if col.base is not None and (col.same_ids or not col.delta):
            # The layers' cached pairs, with our updates laid over them.
            if col.delta:
                return _overlay(col.base.pairs(), col.delta)
            return col.base.pairs()
        return [(rid, col.entry(rid).record) for rid in col.sorted_ids()]

    cdef object _query(self, object collection, object where, object between, object order_by,
                       bint reverse, object limit, int want):
        """The matching records in id order (or ``order_by``'s), at most
        ``limit``: ``want`` _PAIRS ``(id, record)``, _RECORDS, or _JSON (their
        JSON array as one fragment)."""
        cdef _Col col = self._col(collection)
        cdef _Shape shape = col.shape
        cdef _Filter f
        cdef list raw = self._raw(col)
        cdef list kept, keys, out
        cdef Py_ssize_t i, n, stop
        if shape is None:
            return _plain_query(raw, where, between, order_by, reverse, limit, want)
        f = _compile_filter(shape, where, between)
        if f is not None:
            kept = [pair for pair in raw if f.matches(shape, (<tuple>pair)[1])]
        else:
            kept = raw  # maybe shared: read only
        if order_by is not None and want != _PAIRS:
            rows = _sorted_rows(shape, kept, (order_by,) if type(order_by) is str else tuple(order_by), reverse)
            if rows is not None:  # every kept record a row: no ids to keep
                stop = len(rows) if limit is None else min(len(rows), _limit(limit))
                if want == _JSON:
                    return _json_list([_as_json(shape, rows[i]) for i in range(stop)])
                return [_as_record(shape, rows[i]) for i in range(stop)]
        if order_by is not None:
            keys = _sort_keys(shape, kept, (order_by,) if type(order_by) is str else tuple(order_by))
            # A stable sort of the positions by key, as list.sort(key=...) of the records.
            order = list(range(len(kept)))
            order.sort(key=keys.__getitem__, reverse=reverse)
            kept = [kept[i] for i in order]
        n = len(kept)
        stop = n if limit is None else min(n, _limit(limit))
        out = []
        for i in range(stop):
            pair = kept[i]
            if want == _PAIRS:
                out.append(((<tuple>pair)[0], _as_record(shape, (<tuple>pair)[1])))
            elif want == _JSON:
                out.append(_as_json(shape, (<tuple>pair)[1]))
            else:
                out.append(_as_record(shape, (<tuple>pair)[1]))
        return _json_list(out) if want == _JSON else out

    def scan(self, collection, where=None, *, between=None, order_by=None, reverse=False, limit=None):
        """``(id, record)`` pairs in id order (or ``order_by``'s), keeping
        records whose top-level fields equal every value of ``where`` and lie
        in every ``[lo, hi)`` of ``between``, at most ``limit`` of them."""
        return self._query(collection, where, between, order_by, reverse, limit, _PAIRS)

    def select(self, collection, where=None, *, between=None, order_by=None, reverse=False, limit=None):
        """The records ``scan`` would pair with their ids, without the ids."""
        return self._query(collection, where, between, order_by, reverse, limit, _RECORDS)

    def select_json(self, collection, where=None, *, between=None, order_by=None, reverse=False, limit=None):
        """What ``select`` answers, as one ``orjson.Fragment`` of exactly
        ``orjson.dumps(select(...))``'s bytes (see ``_store_py.Store.select_json``)."""
        return self._query(collection, where, between, order_by, reverse, limit, _JSON)

    # -- writes --------------------------------------------------------------

    cdef int _insert(self, object collection, object rid, object record) except -1:
        cdef _Col col = self._col(collection)
        cdef uint64_t h[4]
        _check_id(rid)
        if col.entry(rid) is not None:
            raise KeyError(f"{collection}[{rid}] exists")
        _hash_record(collection, rid, record, h)
        col = self._own(collection, col)
        col.delta[rid] = _new_entry(_to_row(col.shape, record, False), h)
        col.count += 1
        _ids_added(col, rid)
        _acc_add(self._acc, h)
        self._digest = None
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))
        return 0

    def insert(self, collection, rid, record):
        self._insert(collection, rid, record)

    def put(self, collection, rid, record):
        """Insert or replace a whole record."""
        cdef _Col col = self._col(collection)
        cdef uint64_t h[4]
        _check_id(rid)
        cdef _Entry old = col.entry(rid)
        _hash_record(collection, rid, record, h)
        col = self._own(collection, col)
        col.delta[rid] = _new_entry(_to_row(col.shape, record, False), h)
        if old is None:
            col.count += 1
            _ids_added(col, rid)
        else:
            _acc_sub(self._acc, old.h)
        _acc_add(self._acc, h)
        self._digest = None
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))

    def update(self, collection, rid, fields):
        """Merge ``fields`` into a record (shallow) and return the new record."""
        cdef _Col col = self._col(collection)
        cdef uint64_t h[4]
        cdef _Entry old = col.entry(rid)
        if old is None:
            raise KeyError(f"{collection}[{rid}] does not exist")
        if type(old.record) is _Row:
            # Its dict copied, or built (not kept: the row is being replaced).
            record = _kept_record(<_Row>old.record)
            record = _row_dict(col.shape, (<_Row>old.record).values) if record is None else PyDict_Copy(record)
        elif type(old.record) is dict:
            record = PyDict_Copy(old.record)
        else:
            record = dict(old.record)
        if type(fields) is dict:
            PyDict_Update(record, fields)
        else:
            record.update(fields)
        _hash_record(collection, rid, record, h)
        col = self._own(collection, col)
        col.delta[rid] = _new_entry(_to_row(col.shape, record, False), h)
        _acc_sub(self._acc, old.h)
        _acc_add(self._acc, h)
        self._digest = None
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))
        return record

    def remove(self, collection, rid):
        """Remove a record and return it."""
        cdef _Col col = self._col(collection)
        cdef _Entry old = col.entry(rid)
        cdef _Entry below
        if old is None:
            raise KeyError(f"{collection}[{rid}] does not exist")
        col = self._own(collection, col)
        below = _lookup(col.base, rid) if col.base is not None else None
        if below is not None and below is not _TOMB:
            col.delta[rid] = _TOMB  # hide the record the layers still hold
        else:
            del col.delta[rid]
        col.count -= 1
        _ids_removed(col, rid)
        _acc_sub(self._acc, old.h)
        self._digest = None
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))
        return _as_record(col.shape, old.record)

    # -- forks, digests, dumps -----------------------------------------------

    def fork(self):
        """An O(1) copy-on-write copy: parent and child share every record
        until one of them writes it."""
        cdef _Col col
        cdef Store child = Store.__new__(Store)
        # Freeze our writes into layers and mark every collection shared:
        # whichever store writes one next copies it (and only it) first.
        for col in self._cols.values():
            if not col.shared:
                col.freeze()
                col.shared = True
        child._cols = PyDict_Copy(self._cols)
        memcpy(child._acc, self._acc, sizeof(uint64_t) * 4)
        child._digest = self._digest
        if self._identity is None:
            self._identity = object()
        child._identity = self._identity
        child.version = self.version
        child.journal = None
        return child

    def __reduce__(self):
        # Pickle and copy by value, like the twin: an equal, independent store.
        return (Store, (self.to_dict(), (), _shapes(self)))

    @property
    def identity(self):
        """A token for these exact records (see ``_store_py.Store.identity``)."""
        if self._identity is None:
            self._identity = object()
        return self._identity

    @identity.setter
    def identity(self, value):
        if value is None:
            raise TypeError("a store's identity cannot be None")
        self._identity = value

    def identity_of(self, collections):
        """The token of some collections' records (see ``_store_py.Store.identity_of``)."""
        if collections is None:
            if self._identity is None:
                self._identity = object()
            return self._identity
        if type(collections) is tuple and PyTuple_GET_SIZE(collections) == 1:
            return _token(self._col(<object>PyTuple_GET_ITEM(collections, 0)))
        return tuple([_token(self._col(name)) for name in collections])

    @property
    def identities(self):
        """Every collection's token (see ``_store_py.Store.identities``)."""
        cdef _Col col
        return tuple([_token(col) for col in self._cols.values()])

    @identities.setter
    def identities(self, tokens):
        cdef _Col col
        if len(tokens) != len(self._cols):
            raise ValueError(f"{len(tokens)} tokens for {len(self._cols)} collections")
        for token in tokens:
            if token is None:
                raise TypeError("a collection's identity cannot be None")
        # On a collection other stores share too: they hold the same
        # records, so the token names theirs as well.
        for col, token in zip(self._cols.values(), tokens):
            col.token = token

    @property
    def accumulator(self):
        return _limbs_to_int(self._acc)

    def digest(self):
        if self._digest is None:
            self._digest = _digest_of_limbs(self._acc)
        return self._digest

    def recompute_digest(self):
        """Digest from scratch, ignoring cached hashes (for verification)."""
        cdef uint64_t acc[4]
        cdef uint64_t h[4]
        acc[0] = acc[1] = acc[2] = acc[3] = 0
        for name in self._cols:
            for rid, record in self._query(name, None, None, None, False, None, _PAIRS):
                _hash_record(name, rid, record, h)
                _acc_add(acc, h)
        return _digest_of_limbs(acc)

    def to_dict(self, collections=None):
        names = self.collections if collections is None else collections
        return {name: dict(self._query(name, None, None, None, False, None, _PAIRS)) for name in names}

    def diff(self, Store base not None):
        """Per collection, the ids created, updated and removed going from
        ``base`` to this store; unchanged collections are left out. Cheap when
        one store descends from the other: only their own writes are compared."""
        cdef dict out = {}
        cdef _Col mine, theirs, col
        cdef _Entry a, b
        cdef list created, updated, removed, rids
        for name in sorted(set(self._cols) | set(base._cols)):
            mine = self._cols.get(name)
            theirs = base._cols.get(name)
            if mine is None or theirs is None:
                col = mine if mine is not None else theirs
                ids = col.sorted_ids()
                if ids:
                    out[name] = {"created": [], "updated": [], "removed": []}
                    out[name]["created" if mine is not None else "removed"] = list(ids)
                continue
            if mine is theirs:  # one shared, never-written collection object
                continue
            created, updated, removed = [], [], []
            if mine.base is theirs.base and mine.base is not None and not theirs.delta:
                # The common case (an episode's state against its start): one
                # forked from the other and only this side written since, so
                # its own writes are the candidates, no set of them needed.
                rids = PyDict_Keys(mine.delta)
                rids.sort()
            else:
                rids = sorted(_candidates(mine, theirs))
            for rid in rids:
                a = theirs.entry(rid)
                b = mine.entry(rid)
                if a is None:
                    if b is not None:
                        created.append(rid)
                elif b is None:
                    removed.append(rid)
                elif memcmp(a.h, b.h, sizeof(uint64_t) * 4) != 0:
                    updated.append(rid)
            if created or updated or removed:
                out[name] = {"created": created, "updated": updated, "removed": removed}
        return out


cdef dict _shapes(Store store):
    cdef _Col col
    return {name: col.shape.fields for name, col in store._cols.items() if col.shape is not None}


cdef bint _compact_layout() except -1:
    """Are declared shapes honoured? ``SW_LAYOUT=dicts`` keeps every record
    a dict (the layout before shapes), to compare the two."""
    return os.environ.get("SW_LAYOUT", "") != "dicts"


cdef object _token(_Col col):
    """The collection's token, made on first use. A fork shares the _Col
    itself, so a token made after the fork is shared too."""
    if col.token is None:
        col.token = object()
    return col.token


cdef list _chain(_Col col):
    cdef list layers = []
    cdef _Layer layer = col.base
    while layer is not None:
        layers.append(layer)
        layer = layer.parent
    return layers


cdef set _candidates(_Col a, _Col b):
    """Ids that may differ between two collections: everything written above
    their deepest shared layer. (_Layer hashes by identity.)"""
    cdef list ca = _chain(a), cb = _chain(b)
    cdef set shared = set(ca) & set(cb)
    cdef set ids = set(a.delta) | set(b.delta)
    cdef _Layer layer
    for chain in (ca, cb):
        for layer in chain:
            if layer in shared:
                break
            ids.update(layer.items)
    if not shared:
        ids.update(a.sorted_ids())
        ids.update(b.sorted_ids())
    return ids
