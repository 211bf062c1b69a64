"""Matching records the way checks describe them.

``where`` maps field -> value: a string value matches as a case-insensitive
substring, any other value must be equal. Fields may be dotted paths
(``start.date``).

``where_matches`` and ``value_matches`` state the rule; ``compiled`` gives the
same rule made ready for many records (a submit tests every record of a
collection, and every changed record, against the same few ``where``s).
"""

from __future__ import annotations

import orjson

_MISSING = object()


def _walk(node, parts):
    for part in parts:
        if isinstance(node, dict):
            node = node.get(part, _MISSING)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def get_path(record, path: str):
    """The value at a dotted path, or ``MISSING``."""
    return _walk(record, path.split("."))


MISSING = _MISSING


def value_matches(actual, expected) -> bool:
    if isinstance(expected, str):
        return isinstance(actual, str) and expected.casefold() in actual.casefold()
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    return actual == expected


def where_matches(record, where: dict | None) -> bool:
    if not where:
        return True
    for path, expected in where.items():
        actual = get_path(record, path)
        if actual is _MISSING or not value_matches(actual, expected):
            return False
    return True


# How a compiled test compares: value_matches with the branch on the
# expected value's type taken once.
_TEXT, _BOOL, _EQUAL = 0, 1, 2


class Where:
    """A ``where`` compiled: paths split once, a plain field read as one dict
    lookup, a string's casefold taken once. ``m(record)`` is
    ``where_matches(record, where)``; ``m(record, rid)`` also matches the
    field ``id`` against ``rid`` when the record has none (``matching``)."""

    __slots__ = ("where", "tests", "lead", "alone", "_json")

    def __init__(self, where: dict):
        self.where = where
        self._json = None
        self.lead = None  # (field, casefolded text) of a plain text field: ``select`` tests it inline
        tests = []
        for path, expected in where.items():
            parts = tuple(path.split(".")) if "." in path else None
            if isinstance(expected, str):
                kind, want = _TEXT, expected.casefold()
            elif isinstance(expected, bool):
                kind, want = _BOOL, expected
            else:
                kind, want = _EQUAL, expected
            tests.append((path, parts, path == "id", kind, want))
            if self.lead is None and parts is None and kind == _TEXT:
                self.lead = (path, want)
        self.tests = tuple(tests)
        self.alone = self.lead is not None and len(tests) == 1

    def __call__(self, record, rid=_MISSING) -> bool:
        if type(record) is not dict:  # records are dicts; anything else takes the rule as stated
            if rid is not _MISSING and "id" in self.where and "id" not in record:
                record = {**record, "id": rid}
            return where_matches(record, self.where)
        for path, parts, is_id, kind, want in self.tests:
            if parts is not None:
                actual = _walk(record, parts)
            elif is_id:
                actual = record.get(path, rid)  # a record without an id field is matched on its own id
            else:
                actual = record.get(path, _MISSING)
            if actual is _MISSING:
                return False
            if kind == _TEXT:
                if not (isinstance(actual, str) and want in actual.casefold()):
                    return False
            elif kind == _BOOL:
                if not (type(actual) is bool and actual == want):
                    return False
            elif isinstance(actual, bool) or not actual == want:
                return False
        return True

    def json(self) -> str:
        """The ``where`` as JSON with sorted keys, as details quote it (made once)."""
        if self._json is None:
            self._json = orjson.dumps(self.where, option=orjson.OPT_SORT_KEYS).decode()
        return self._json

    def select(self, pairs) -> list:
        """The ``(id, record)`` pairs whose record matches, as
        ``[p for p in pairs if self(p[1], p[0])]`` would give them. Nearly every
        ``where`` has a plain text field: it is tested inline, the others only
        on the records that pass it."""
        if not self.tests:
            return list(pairs)
        if self.lead is not None:
            field, want = self.lead
            if field == "id":
                pairs = [(rid, record) for rid, record in pairs if type(record) is not dict
                         or (isinstance(a := record.get("id", rid), str) and want in a.casefold())]
            else:
                pairs = [(rid, record) for rid, record in pairs if type(record) is not dict
                         or (isinstance(a := record.get(field), str) and want in a.casefold())]
            if self.alone:  # only records that are not dicts are left to test
                return [p for p in pairs if type(p[1]) is dict or self(p[1], p[0])]
        return [p for p in pairs if self(p[1], p[0])]

    def rejects(self, ids, get) -> list:
        """The ids, in order, whose record ``get(id) or {}`` does not match:
        ``[i for i in ids if not self(get(i) or {})]``, faster (see ``select``)."""
        if not self.tests:
            return []
        if self.alone:
            field, want = self.lead
            return [rid for rid in ids
                    if not (type(record := get(rid) or {}) is dict
                            and isinstance(a := record.get(field), str) and want in a.casefold())
                    and (type(record) is dict or not self(record))]
        return [rid for rid in ids if not self(get(rid) or {})]


ALWAYS = Where({})  # the matcher of an empty ``where``


# Compiled ``where``s by the dict's id. A check's ``where`` is never changed
# once the check is made, and is shared by every episode of its task and
# seed; the entry holds the dict, so its id cannot be reused while cached.
_COMPILED: dict = {}
_MOST = 8192


def compiled(where: dict | None):
    """``where`` as a matcher (see ``Where``), cached."""
    if not where:
        return ALWAYS
    got = _COMPILED.get(id(where))
    if got is None:
        if len(_COMPILED) >= _MOST:
            _COMPILED.clear()  # bounded: recompiling is cheap
        got = _COMPILED[id(where)] = Where(where)
    return got


def matching(store, collection: str, where: dict | None) -> list:
    """``(id, record)`` pairs of a collection that match ``where``; the id
    itself is matchable as the field ``id`` when the record has none."""
    return compiled(where).select(store.scan(collection))
