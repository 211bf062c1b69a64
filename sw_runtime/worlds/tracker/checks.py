"""The check builders tracker's tasks share: an issue's field, a link, a comment, what may change."""

from __future__ import annotations

from ...verify import checks as C

nc = C.no_collateral


def field(check_id: str, label: str, key: str, name: str, value, weight: float = 1.0, always: bool = False):
    return C.FieldEquals(id=check_id, label=label, collection="issues", field=name, value=value, where={"key": key},
                         weight=weight, always_scored=always)


def has(check_id: str, label: str, key: str, name: str, value, weight: float = 1.0):
    return C.FieldContains(id=check_id, label=label, collection="issues", field=name, value=value, where={"key": key},
                           weight=weight)


def link(check_id: str, label: str, kind: str, inward: str, outward: str, weight: float = 1.0):
    return C.RecordExists(id=check_id, label=label, collection="links", weight=weight,
                          where={"type": kind, "inward": inward, "outward": outward})


def no_link(check_id: str, label: str, a: str, b: str):
    """Neither way round: an ``a``-``b`` link in either direction fails it."""
    return [C.RecordAbsent(id=f"{check_id}-1", label=label, collection="links", where={"inward": a, "outward": b},
                           always_scored=True),
            C.RecordAbsent(id=f"{check_id}-2", label=label, collection="links", where={"inward": b, "outward": a},
                           always_scored=True)]


def comment(check_id: str, label: str, key: str, text: str, weight: float = 1.0, **where):
    return C.RecordExists(id=check_id, label=label, collection="comments", weight=weight,
                          where={"issue": key, "body": text, **where})


def said(check_id: str, label: str, text: str, weight: float = 1.0):
    return C.OutputContains(id=check_id, label=label, value=text, weight=weight)


def issue_changed(key: str):
    return C.Allow(collection="issues", ops=["updated"], where={"key": key})


def created(collection: str, **where):
    return C.Allow(collection=collection, ops=["created"], where=where)


def exists(check_id: str, label: str, key: str):
    return C.RecordExists(id=check_id, label=label, collection="issues", where={"key": key}, always_scored=True)
