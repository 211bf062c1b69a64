"""Pure-Python twin of the state core.

Behaves exactly like the Cython extension in ``_store.pyx`` (same API, same
errors, same digests); the shared test suite and golden vectors hold both to
that. ``SW_PURE=1`` makes ``sw_core_ext`` load this module.

Layout of a collection: a chain of frozen, shared *layers* (each a dict of
id -> entry, where an entry is ``(record, hash)`` or the tombstone) below one
private *delta* dict. ``fork()`` freezes the delta into a new layer that parent
and child then share, so a fork costs O(number of collections) and the first
write after it touches only the record written.

A collection may have a declared *shape* (its records' field names, in
order): a record with exactly those keys in that order is kept as a *row*,
the tuple of its values (a seed's strings interned), and turned back into an
equal dict, keys in the same order, when a read first returns it (the row
keeps that dict for the next reads). Queries
(``scan``/``select``/``count``/``sum`` with ``where``, ``between``,
``order_by``, ``limit``) test rows' fields by position and build a dict only
for a record they return. ``select_json`` returns what ``select`` would as
one ``orjson.Fragment`` of its JSON: a row keeps its own JSON bytes once made
(from its dict if it has one, else from a dict it does not keep), so a
listing a tool answers as it is touches neither dicts nor values; rows are
never changed once stored (a write stores a new row), so those bytes never
go stale. ``SW_LAYOUT=dicts`` ignores shapes (every record a dict, the
layout before shapes), to compare the two.
"""

from __future__ import annotations

import hashlib
import os
from bisect import bisect_left as _bisect_left
from operator import itemgetter

import orjson

DIGEST_DOMAIN = b"sandworld-state-v1"
_MOD = 1 << 256
_MASK = _MOD - 1
# Past this many layers a collection is flattened into one, so that reads
# stay O(1) in long fork chains; the cost is amortised over the forks.
MAX_DEPTH = 24
# A shape interns at most this many distinct string values, each at most
# _INTERN_LEN characters long.
_INTERN_MAX = 4096
_INTERN_LEN = 64

_SORT = orjson.OPT_SORT_KEYS
_dumps = orjson.dumps
_Fragment = orjson.Fragment

# What a query answers (``Store._query``'s ``want``): (id, record) pairs,
# records, or the records' JSON as one fragment.
_PAIRS, _RECORDS, _JSON = 0, 1, 2
_sha256 = hashlib.sha256
_from_bytes = int.from_bytes


class _Tomb:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<removed>"


TOMB = _Tomb()


def canonical_json(value) -> bytes:
    """Canonical bytes: sorted keys, no whitespace, UTF-8 (orjson)."""
    return _dumps(value, option=_SORT)


def record_hash(collection: str, rid: str, record) -> int:
    """SHA-256 of canonical ``[collection, id, record]`` as a big-endian int."""
    return _from_bytes(_sha256(_dumps([collection, rid, record], option=_SORT)).digest(), "big")


def digest_of_acc(acc: int) -> str:
    return "sha256:" + _sha256(DIGEST_DOMAIN + acc.to_bytes(32, "big")).hexdigest()


def _check_id(rid) -> None:
    if type(rid) is not str:
        raise TypeError(f"record id must be str, not {type(rid).__name__}")


class _Shape:
    """A collection's declared record shape: its field names in order."""

    __slots__ = ("fields", "index", "n", "interned")

    def __init__(self, fields: tuple):
        for f in fields:
            if type(f) is not str:
                raise TypeError(f"a shape's fields are str, not {type(f).__name__}")
        self.fields = fields
        self.index = {f: i for i, f in enumerate(fields)}
        self.n = len(fields)
        if len(self.index) != self.n:
            raise ValueError(f"a shape names each field once: {fields!r}")
        self.interned = {}


class _Row:
    """A record kept compactly: its values in its shape's field order, its
    dict once a read has returned it, and its JSON once ``select_json`` has
    (neither goes stale: a row never changes once stored). Both in one slot,
    ``cache``: None, the dict, the JSON (bytes), or a ``_Both`` once both
    were asked for; a slot more would cost every row, and an episode's
    writes are rows of its own."""

    __slots__ = ("values", "cache")

    def __init__(self, values: tuple):
        self.values = values
        self.cache = None

    def __getitem__(self, i):
        return self.values[i]

    def __repr__(self) -> str:
        return f"<row {self.values!r}>"


class _Both:
    """A row's dict and its JSON, once reads have asked for both (``_Row.cache``)."""

    __slots__ = ("record", "json")

    def __init__(self, record: dict, json: bytes):
        self.record = record
        self.json = json


def _to_row(shape, record, intern: bool):
    """``record`` as a row of ``shape``, or ``record`` itself when it is not
    a dict with exactly the shape's keys in the shape's order."""
    if shape is None or type(record) is not dict or len(record) != shape.n:
        return record
    for key, field in zip(record, shape.fields):
        if key is not field and key != field:
            return record
    if not intern:
        return _Row(tuple(record.values()))
    values = []
    table = shape.interned
    for value in record.values():
        if type(value) is str and len(value) <= _INTERN_LEN:
            seen = table.get(value)
            if seen is not None:
                value = seen
            elif len(table) < _INTERN_MAX:
                table[value] = value
        values.append(value)
    return _Row(tuple(values))


def _as_record(shape, raw):
    """The record a stored value stands for: a row's dict, else itself."""
    if type(raw) is not _Row:
        return raw
    cache = raw.cache
    if type(cache) is dict:
        return cache
    if type(cache) is _Both:
        return cache.record
    record = dict(zip(shape.fields, raw.values))
    raw.cache = record if cache is None else _Both(record, cache)
    return record


def _kept_record(row: _Row):
    """The row's dict if a read built it, else None (builds nothing)."""
    cache = row.cache
    if type(cache) is _Both:
        return cache.record
    return cache if type(cache) is dict else None


def _as_json(shape, raw) -> bytes:
    """``orjson.dumps`` of the record a stored value stands for: a row's kept
    bytes (made once, from its dict if a read built one, else from a dict
    that is not kept), any other record encoded anew."""
    if type(raw) is not _Row:
        return _dumps(raw)
    cache = raw.cache
    if type(cache) is bytes:
        return cache
    if type(cache) is _Both:
        return cache.json
    # An exact-size copy: orjson's bytes keep its (larger) working buffer.
    json = bytes(memoryview(_dumps(cache if cache is not None else dict(zip(shape.fields, raw.values)))))
    raw.cache = json if cache is None else _Both(cache, json)
    return json


def _json_list(parts: list):
    """The fragment of a JSON array of these encoded values: the bytes
    ``orjson.dumps`` gives the list of their records (compact)."""
    return _Fragment(b"[" + b",".join(parts) + b"]")


def _field(shape, raw, name):
    """A stored record's field ``name`` (KeyError if it has none)."""
    if type(raw) is _Row:
        return raw.values[shape.index[name]]
    return raw[name]


def _bounds(bounds) -> tuple:
    if type(bounds) not in (tuple, list) or len(bounds) != 2:
        raise TypeError(f"a between bound is a (lo, hi) pair, not {bounds!r}")
    return (bounds[0], bounds[1])


class _Filter:
    """A query's ``where`` (equal values) and ``between`` (``lo <= value <
    hi``, either bound None for none), with each field's row position."""

    __slots__ = ("eq", "rg", "eq_pos", "rg_pos")

    def __init__(self, shape, where, between):
        self.eq = [(k, where[k]) for k in where] if where else []
        self.rg = [(k, *_bounds(between[k])) for k in between] if between else []
        if len(self.eq) > 16 or len(self.rg) > 16:
            raise ValueError("a query tests at most 16 fields for equality and 16 for ranges")
        self.eq_pos = self.rg_pos = None  # None: no row matches (a field outside the shape)
        if shape is not None and all(k in shape.index for k, _ in self.eq) and all(
                r[0] in shape.index for r in self.rg):
            self.eq_pos = [(shape.index[k], v) for k, v in self.eq]
            self.rg_pos = [(shape.index[k], lo, hi) for k, lo, hi in self.rg]

    def matches(self, raw) -> bool:
        if type(raw) is _Row:
            if self.eq_pos is None:
                return False
            values = raw.values
            for i, v in self.eq_pos:
                if values[i] != v:
                    return False
            for i, lo, hi in self.rg_pos:
                if not _in_range(values[i], lo, hi):
                    return False
            return True
        return _plain_matches(raw, self.eq, self.rg)


def _plain_query(pairs, where, between, order_by, reverse, limit, want):
    """A query over dict records as the worlds wrote it before shapes (a
    filter, then ``list.sort`` with ``itemgetter``): the path of collections
    without a shape, and with ``SW_LAYOUT=dicts`` the reference the compact
    layout's path is compared with (tests/worlds/test_layouts.py)."""
    if where or between:
        eq = list(where.items()) if where else ()
        rg = [(k, *_bounds(between[k])) for k in between] if between else []
        if len(eq) > 16 or len(rg) > 16:
            raise ValueError("a query tests at most 16 fields for equality and 16 for ranges")
        kept = [pair for pair in pairs if _plain_matches(pair[1], eq, rg)]
    else:
        kept = pairs
    if order_by is not None:
        get = itemgetter(*((order_by,) if type(order_by) is str else tuple(order_by)))
        kept.sort(key=lambda pair: get(pair[1]), reverse=reverse)
    if limit is not None:
        if limit < 0:
            raise ValueError("limit must be >= 0")
        kept = kept[:limit]
    if want == _PAIRS:
        return kept
    if want == _JSON:
        return _Fragment(_dumps([record for _, record in kept]))
    return [record for _, record in kept]


def _plain_matches(record, eq, rg) -> bool:
    """A dict record against ``(field, value)`` pairs and ``(field, lo, hi)`` ranges."""
    for k, v in eq:
        if k not in record or record[k] != v:
            return False
    for k, lo, hi in rg:
        if k not in record:
            return False
        if not _in_range(record[k], lo, hi):
            return False
    return True


def _in_range(v, lo, hi) -> bool:
    """``lo <= v < hi``, a None bound being none: every query's range test."""
    if lo is not None and v < lo:
        return False
    return hi is None or v < hi


def _compile_filter(shape, where, between):
    if not where and not between:
        return None
    return _Filter(shape, where, between)


def _compact_layout() -> bool:
    return os.environ.get("SW_LAYOUT", "") != "dicts"


class _Layer:
    """A frozen map shared by every store that forked across it."""

    __slots__ = ("items", "parent", "depth", "_ids")

    def __init__(self, items: dict, parent: "_Layer | None"):
        self.items = items
        self.parent = parent
        self.depth = 1 if parent is None else parent.depth + 1
        self._ids = None  # sorted live ids, computed on first scan

    def lookup(self, rid):
        layer = self
        while layer is not None:
            entry = layer.items.get(rid)
            if entry is not None:
                return entry
            layer = layer.parent
        return None

    def live_ids(self) -> list:
        if self._ids is None:
            self._ids = _derive_ids(self, True)
        return self._ids

    def flattened(self) -> "_Layer":
        """The chain ending here merged into one root layer, in one pass: the
        root's dict copied, then each layer above it laid over the copy, bottom
        up (later layers override, tombstones delete). A root holds no
        tombstones: removing a record no layer holds deletes it from the delta."""
        layers = []
        layer = self
        while layer.parent is not None:
            layers.append(layer)
            layer = layer.parent
        items = layer.items.copy()
        for layer in reversed(layers):
            for rid, e in layer.items.items():
                if e is TOMB:
                    items.pop(rid, None)
                else:
                    items[rid] = e
        flat = _Layer(items, None)
        # Sorted ids only if some layer has them cached already (a cheap merge);
        # otherwise the first scan sorts the flat layer's ids, once.
        flat._ids = _derive_ids(self, False)
        return flat


def _derive_ids(layer: _Layer, sort_root: bool):
    """The sorted live ids of ``layer``: those of the nearest layer at or below
    it with cached ids (or of the root, sorted and cached there when
    ``sort_root``, else None is returned), with the net changes of the layers
    in between merged in. No layer in between computes or caches a list."""
    above = []
    while layer._ids is None and layer.parent is not None:
        above.append(layer)
        layer = layer.parent
    ids = layer._ids
    if ids is None:
        if not sort_root:
            return None
        ids = [k for k, e in layer.items.items() if e is not TOMB]
        ids.sort()
        layer._ids = ids
    if not above:
        return ids
    changes = {}
    for upper in reversed(above):  # bottom up: later layers override
        changes.update(upper.items)
    edits = {}  # id -> True (now live, was not) or False (removed)
    for rid, e in changes.items():
        below = layer.lookup(rid)
        was_live = below is not None and below is not TOMB
        if e is TOMB:
            if was_live:
                edits[rid] = False
        elif not was_live:
            edits[rid] = True
    if not edits:
        return ids  # only updates: the same ids (lists are shared, never mutated)
    return _merged_ids(ids, edits)


def _merged_ids(ids: list, edits: dict) -> list:
    """Sorted ``ids`` with ``edits`` applied (id -> True: add an id it lacks,
    False: drop one it holds): slices of ``ids`` copied between the edits'
    bisected positions, no re-sort."""
    out = []
    lo = 0
    for rid in sorted(edits):
        i = _bisect_left(ids, rid, lo)
        out += ids[lo:i]
        if edits[rid]:
            out.append(rid)
            lo = i
        else:
            lo = i + 1  # ids[i] == rid
    out += ids[lo:]
    return out


class _Col:
    __slots__ = ("base", "delta", "count", "token", "shape")

    def __init__(self, base, delta, count, token=None, shape=None):
        self.base = base
        self.delta = delta
        self.count = count
        self.token = token  # see ``Store.identity_of``; None after a write, made on demand
        self.shape = shape  # the declared record shape, or None: records kept as dicts

    def entry(self, rid):
        e = self.delta.get(rid)
        if e is None and self.base is not None:
            e = self.base.lookup(rid)
        if e is TOMB:
            return None
        return e

    def freeze(self) -> None:
        if self.delta:
            base = _Layer(self.delta, self.base)
            if base.depth > MAX_DEPTH:
                base = base.flattened()
            self.base = base
            self.delta = {}

    def sorted_ids(self) -> list:
        base_ids = self.base.live_ids() if self.base is not None else []
        if not self.delta:
            return base_ids
        live = set(base_ids)
        for k, e in self.delta.items():
            if e is TOMB:
                live.discard(k)
            else:
                live.add(k)
        return sorted(live)


class Store:
    """Collections of JSON records with O(1) copy-on-write forks and an
    incrementally maintained SHA-256 state digest.

    Records handed to the store become its property: never mutate a record
    after inserting it or one returned by ``get``/``scan`` (forks share them).
    ``update`` builds a new record instead.
    """

    __slots__ = ("_cols", "_acc", "version", "journal", "_identity", "__weakref__")

    def __init__(self, data: dict | None = None, collections=(), shapes: dict | None = None):
        self._cols = {}
        self._acc = 0
        self.version = 0  # bumped by every write: a cheap "did this change?"
        self._identity = None  # see ``identity``; None after a write, made on demand
        # None, or a list every write appends (collection, id) to: what a step
        # touched, without walking the whole diff (signals use it).
        self.journal = None
        for name in collections:
            self._add_collection(name)
        if shapes and _compact_layout():
            for name, fields in shapes.items():
                if name not in self._cols:
                    self._add_collection(name)
                self._cols[name].shape = _Shape(tuple(fields))
        if data:
            for name, records in data.items():
                if name not in self._cols:
                    self._add_collection(name)
                col = self._cols[name]
                for rid, record in records.items():
                    self.insert(name, rid, record)
                    if col.shape is not None:  # intern the seed's strings
                        col.delta[rid] = (_to_row(col.shape, record, True), col.delta[rid][1])

    def _add_collection(self, name) -> None:
        if type(name) is not str:
            raise TypeError(f"collection name must be str, not {type(name).__name__}")
        self._cols[name] = _Col(None, {}, 0)

    def _col(self, name) -> _Col:
        col = self._cols.get(name)
        if col is None:
            raise KeyError(f"unknown collection: {name!r}")
        return col

    # -- reads ---------------------------------------------------------------

    @property
    def collections(self) -> list:
        return sorted(self._cols)

    def has_collection(self, name) -> bool:
        return name in self._cols

    def get(self, collection, rid):
        col = self._col(collection)
        e = col.entry(rid)
        return None if e is None else _as_record(col.shape, e[0])

    def shape(self, collection):
        """The collection's declared fields, or None (records kept as dicts)."""
        col = self._col(collection)
        return None if col.shape is None else col.shape.fields

    def count(self, collection, where=None, *, between=None) -> int:
        """How many records (that match ``where`` and ``between``)."""
        col = self._col(collection)
        if not where and not between:
            return col.count
        if col.shape is None:
            return len(_plain_query(self._raw(col), where, between, None, False, None, _PAIRS))
        f = _compile_filter(col.shape, where, between)
        return sum(1 for _, raw in self._raw(col) if f.matches(raw))

    def sum(self, collection, field, where=None, *, between=None):
        """The sum of ``field`` over the records that match (0 for none);
        ``KeyError`` if one of them lacks the field."""
        col = self._col(collection)
        total = 0
        if col.shape is None:
            for record in _plain_query(self._raw(col), where, between, None, False, None, _RECORDS):
                total = total + record[field]
            return total
        f = _compile_filter(col.shape, where, between)
        for _, raw in self._raw(col):
            if f is None or f.matches(raw):
                total = total + _field(col.shape, raw, field)
        return total

    def ids(self, collection) -> list:
        return list(self._col(collection).sorted_ids())

    def _raw(self, col) -> list:
        """``(id, stored record or row)`` in id order."""
        return [(rid, col.entry(rid)[0]) for rid in col.sorted_ids()]

    def _query(self, collection, where, between, order_by, reverse, limit, want):
        """The matching records in id order (or ``order_by``'s), at most
        ``limit``: ``want`` _PAIRS (id, record), _RECORDS, or _JSON (their
        JSON array as one fragment)."""
        col = self._col(collection)
        shape = col.shape
        kept = self._raw(col)
        if shape is None:
            return _plain_query(kept, where, between, order_by, reverse, limit, want)
        f = _compile_filter(shape, where, between)
        if f is not None:
            kept = [pair for pair in kept if f.matches(pair[1])]
        if order_by is not None:
            names = (order_by,) if type(order_by) is str else tuple(order_by)
            if len(names) == 1:
                keys = [_field(shape, raw, names[0]) for _, raw in kept]
            else:
                keys = [tuple([_field(shape, raw, name) for name in names]) for _, raw in kept]
            order = list(range(len(kept)))
            order.sort(key=keys.__getitem__, reverse=reverse)  # stable, as list.sort(key=...) of the records
            kept = [kept[i] for i in order]
        if limit is not None:
            if limit < 0:
                raise ValueError("limit must be >= 0")
            kept = kept[:limit]
        if want == _PAIRS:
            return [(rid, _as_record(shape, raw)) for rid, raw in kept]
        if want == _JSON:
            return _json_list([_as_json(shape, raw) for _, raw in kept])
        return [_as_record(shape, raw) for _, raw in kept]

    def scan(self, collection, where=None, *, between=None, order_by=None, reverse=False, limit=None) -> list:
        """``(id, record)`` pairs in id order (or ``order_by``'s), keeping
        records whose top-level fields equal every value of ``where`` and lie
        in every ``[lo, hi)`` of ``between``, at most ``limit`` of them."""
        return self._query(collection, where, between, order_by, reverse, limit, _PAIRS)

    def select(self, collection, where=None, *, between=None, order_by=None, reverse=False, limit=None) -> list:
        """The records ``scan`` would pair with their ids, without the ids."""
        return self._query(collection, where, between, order_by, reverse, limit, _RECORDS)

    def select_json(self, collection, where=None, *, between=None, order_by=None, reverse=False, limit=None):
        """What ``select`` answers, as one ``orjson.Fragment`` of exactly
        ``orjson.dumps(select(...))``'s bytes: for a tool that answers a
        listing as it is (the engine's ``orjson.dumps`` copies the bytes in).
        A row's JSON is made once and kept; it builds no dict that is kept."""
        return self._query(collection, where, between, order_by, reverse, limit, _JSON)

    # -- writes --------------------------------------------------------------

    def insert(self, collection, rid, record) -> None:
        col = self._col(collection)
        _check_id(rid)
        if col.entry(rid) is not None:
            raise KeyError(f"{collection}[{rid}] exists")
        h = record_hash(collection, rid, record)
        col.delta[rid] = (_to_row(col.shape, record, False), h)
        col.count += 1
        self._acc = (self._acc + h) & _MASK
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))

    def put(self, collection, rid, record) -> None:
        """Insert or replace a whole record."""
        col = self._col(collection)
        _check_id(rid)
        old = col.entry(rid)
        h = record_hash(collection, rid, record)
        col.delta[rid] = (_to_row(col.shape, record, False), h)
        if old is None:
            col.count += 1
            self._acc = (self._acc + h) & _MASK
        else:
            self._acc = (self._acc - old[1] + h) & _MASK
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))

    def update(self, collection, rid, fields):
        """Merge ``fields`` into a record (shallow) and return the new record."""
        col = self._col(collection)
        old = col.entry(rid)
        if old is None:
            raise KeyError(f"{collection}[{rid}] does not exist")
        raw = old[0]
        if type(raw) is _Row:  # its dict copied, or built (not kept: the row is being replaced)
            kept = _kept_record(raw)
            record = dict(kept) if kept is not None else dict(zip(col.shape.fields, raw.values))
        else:
            record = dict(raw)
        record.update(fields)
        h = record_hash(collection, rid, record)
        col.delta[rid] = (_to_row(col.shape, record, False), h)
        self._acc = (self._acc - old[1] + h) & _MASK
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))
        return record

    def remove(self, collection, rid):
        """Remove a record and return it."""
        col = self._col(collection)
        old = col.entry(rid)
        if old is None:
            raise KeyError(f"{collection}[{rid}] does not exist")
        if col.base is not None and col.base.lookup(rid) not in (None, TOMB):
            col.delta[rid] = TOMB
        else:
            del col.delta[rid]
        col.count -= 1
        self._acc = (self._acc - old[1]) & _MASK
        self._identity = None
        col.token = None
        self.version += 1
        if self.journal is not None:
            self.journal.append((collection, rid))
        return _as_record(col.shape, old[0])

    # -- forks, digests, dumps -----------------------------------------------

    def fork(self) -> "Store":
        """An O(1) copy-on-write copy: parent and child share every record
        until one of them writes it."""
        child = Store.__new__(Store)
        cols = {}
        for name, col in self._cols.items():
            col.freeze()
            cols[name] = _Col(col.base, {}, col.count, _token(col), col.shape)  # shared until either writes it
        child._cols = cols
        child._acc = self._acc
        child._identity = self.identity  # shared until either of them writes
        child.version = self.version
        child.journal = None
        return child

    @property
    def identity(self):
        """A token for these exact records: two stores with the same identity
        hold the same records (the same objects, or equal ones down to the
        order of their keys), so anything computed from one holds for the
        other. A fork shares its parent's identity until either of them
        writes; every write gives the store a new one (made when asked for).
        An owner may set it to a token of its own when it knows the state is
        the same as another's (the engine does, for identical deterministic
        writes on the same state: engine/read_cache.py)."""
        if self._identity is None:
            self._identity = object()
        return self._identity

    @identity.setter
    def identity(self, value) -> None:
        if value is None:
            raise TypeError("a store's identity cannot be None")
        self._identity = value

    def identity_of(self, collections):
        """The token of the records of ``collections`` (a tuple of names):
        the collection's own token for one name, a tuple of tokens for
        several, the store's ``identity`` for None. A collection's token is
        like ``identity`` for that collection alone: a fork shares it until
        either store writes to that collection, and a write to any other
        collection leaves it as it was. So whatever is computed from those
        collections alone holds for every store with the same token (the
        read cache keys a pure read on the collections it declares)."""
        if collections is None:
            return self.identity
        if type(collections) is tuple and len(collections) == 1:
            return _token(self._col(collections[0]))
        return tuple([_token(self._col(name)) for name in collections])

    @property
    def identities(self) -> tuple:
        """Every collection's token, in the order of the store's collections
        (which its forks keep). An owner may set them all when it knows each
        collection holds the same records as in the store it took them from
        (as for ``identity``): a fork of the same store, or one reached from
        the same state by the same deterministic writes. A flat tuple, not a
        dict: the read cache keeps one per write, and a tuple of untracked
        objects costs the garbage collector nothing."""
        return tuple([_token(col) for col in self._cols.values()])

    @identities.setter
    def identities(self, tokens) -> None:
        if len(tokens) != len(self._cols):
            raise ValueError(f"{len(tokens)} tokens for {len(self._cols)} collections")
        if any(token is None for token in tokens):
            raise TypeError("a collection's identity cannot be None")
        for col, token in zip(self._cols.values(), tokens):
            col.token = token

    def __reduce__(self):
        # Pickle and copy by value: an equal, independent store. (By default
        # copy.copy would share the mutable collections between the copies.)
        shapes = {name: col.shape.fields for name, col in self._cols.items() if col.shape is not None}
        return (Store, (self.to_dict(), (), shapes))

    @property
    def accumulator(self) -> int:
        return self._acc

    def digest(self) -> str:
        return digest_of_acc(self._acc)

    def recompute_digest(self) -> str:
        """Digest from scratch, ignoring cached hashes (for verification)."""
        acc = 0
        for name in self._cols:
            for rid, record in self.scan(name):
                acc = (acc + record_hash(name, rid, record)) & _MASK
        return digest_of_acc(acc)

    def to_dict(self, collections=None) -> dict:
        names = self.collections if collections is None else collections
        return {name: dict(self.scan(name)) for name in names}

    def diff(self, base: "Store") -> dict:
        """Per collection, the ids created, updated and removed going from
        ``base`` to this store; unchanged collections are left out. Cheap when
        one store descends from the other: only their own writes are compared."""
        out = {}
        for name in sorted(set(self._cols) | set(base._cols)):
            mine = self._cols.get(name)
            theirs = base._cols.get(name)
            if mine is None or theirs is None:
                col = mine or theirs
                ids = col.sorted_ids()
                if ids:
                    key = "created" if mine is not None else "removed"
                    out[name] = {"created": [], "updated": [], "removed": []}
                    out[name][key] = list(ids)
                continue
            created, updated, removed = [], [], []
            if mine.base is theirs.base and mine.base is not None and not theirs.delta:
                rids = sorted(mine.delta)  # forked one from the other, only this side written since
            else:
                rids = sorted(_candidates(mine, theirs))
            for rid in rids:
                a = theirs.entry(rid)
                b = mine.entry(rid)
                if a is None and b is not None:
                    created.append(rid)
                elif a is not None and b is None:
                    removed.append(rid)
                elif a is not None and a[1] != b[1]:
                    updated.append(rid)
            if created or updated or removed:
                out[name] = {"created": created, "updated": updated, "removed": removed}
        return out


def _token(col: _Col):
    if col.token is None:
        col.token = object()
    return col.token


def _chain(col: _Col) -> list:
    layers = []
    layer = col.base
    while layer is not None:
        layers.append(layer)
        layer = layer.parent
    return layers


def _candidates(a: _Col, b: _Col) -> set:
    """Ids that may differ between two collections: everything written above
    their deepest shared layer."""
    ca, cb = _chain(a), _chain(b)
    shared = set(map(id, ca)) & set(map(id, cb))
    ids = set(a.delta) | set(b.delta)
    for chain in (ca, cb):
        for layer in chain:
            if id(layer) in shared:
                break
            ids.update(layer.items)
    if not shared:
        ids.update(a.sorted_ids())
        ids.update(b.sorted_ids())
    return ids
