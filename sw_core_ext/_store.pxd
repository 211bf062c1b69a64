# The C-level layout of the state core (see _store.pyx for the behaviour and
# _store_py.py for the pure-Python twin it mirrors).

from libc.stdint cimport uint64_t


cdef class _Entry:
    """A record with its cached hash (four 64-bit limbs, least significant
    first). Immutable once stored; the module-level ``_TOMB`` marks removal.
    ``record`` is the record's dict, or in a collection with a declared shape
    a ``_Row``: its values in the shape's field order (see _store.pyx)."""
    cdef object record
    cdef uint64_t h[4]


cdef class _Shape:
    """A collection's declared record shape: its field names in order. A
    record with exactly these keys in this order is kept as a row."""
    cdef tuple fields
    cdef dict index  # field name -> position in a row
    cdef Py_ssize_t n
    cdef dict interned  # string value -> the one object rows share (bounded)


cdef class _Layer:
    """A frozen map id -> _Entry, shared by every store that forked across it."""
    cdef dict items
    cdef _Layer parent
    cdef int depth
    cdef list _ids  # sorted live ids, computed on first scan
    cdef list _pairs  # (id, record) tuples in id order, computed on first scan

    cdef list live_ids(self)
    cdef list pairs(self)  # (id, stored record or row)
    cdef _Layer flattened(self)


cdef class _Col:
    """One collection of one store: shared frozen layers below a private delta.

    A _Col with ``shared`` set is referenced by several stores (after a fork)
    and is never mutated again: a store copies it before its first write."""
    cdef _Layer base
    cdef dict delta
    cdef Py_ssize_t count
    cdef list ids  # cached sorted live ids, or None
    cdef bint ids_private  # no one else holds ``ids``: patch it in place
    cdef bint same_ids  # live ids are exactly base's: the delta only updated
    cdef bint shared
    cdef object token  # the collection's identity token, None after a write (made on demand)
    cdef _Shape shape  # the declared record shape, or None: records kept as dicts

    cdef _Entry entry(self, object rid)
    cdef int freeze(self) except -1
    cdef list sorted_ids(self)
    cdef _Col copy(self)


cdef class Store:
    cdef dict _cols
    cdef uint64_t _acc[4]
    cdef object _digest  # cached digest string, None after a write
    cdef object _identity  # the identity token, None after a write (made on demand)
    cdef readonly unsigned long long version  # bumped by every write: a cheap "did this change?"
    cdef public object journal  # None, or a list that every write appends (collection, id) to
    cdef object __weakref__

    cdef _Col _col(self, object name)
    cdef _Col _own(self, object name, _Col col)
    cdef int _insert(self, object collection, object rid, object record) except -1
    cdef list _raw(self, _Col col)
    cdef object _query(self, object collection, object where, object between, object order_by,
                       bint reverse, object limit, int want)
