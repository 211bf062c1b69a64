"""Matching records the way checks describe them.

``where`` maps field -> value: a string value matches as a case-insensitive
substring, any other value must be equal. Fields may be dotted paths
(``start.date``).
"""

from __future__ import annotations

_MISSING = object()


def get_path(record, path: str):
    """The value at a dotted path, or ``MISSING``."""
    node = record
    for part in path.split("."):
        if isinstance(node, dict):
            node = node.get(part, _MISSING)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


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


def matching(store, collection: str, where: dict | None) -> list:
    """``(id, record)`` pairs of a collection that match ``where``; the id
    itself is matchable as the field ``id`` when the record has none."""
    out = []
    for rid, record in store.scan(collection):
        if where and "id" in where and "id" not in record:
            record_view = {**record, "id": rid}
        else:
            record_view = record
        if where_matches(record_view, where):
            out.append((rid, record))
    return out
