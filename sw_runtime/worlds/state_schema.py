"""A world's state schema: the typed shape of its records, and the parser
that custom seeds go through.

A world declares one ``StateSchema``: for each collection, the msgspec
``Struct`` its records must convert to, which collections must be present,
and cross-record rules its tools rely on (the coinpurse account must exist,
handles must be unique). ``validate`` is the world's own parser: a state it
accepts is one the world's tools can run on, and a state it refuses gets one
issue per failing record or rule, each naming the path of what failed.

Record Structs declare every field without a default, so a valid state is
stored exactly as given and a custom seed's digest is the digest of the
state the client sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import msgspec

MAX_ISSUES = 100  # a hopeless state says enough in its first hundred issues


class Record(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The base of a world's record types: unknown fields are refused, every
    field is named (so a record's fields may be declared in any order)."""


@dataclass(frozen=True)
class Issue:
    path: str  # JSONPath-like: $.contacts['c-001'].handle
    message: str

    def as_dict(self) -> dict:
        return {"path": self.path, "message": self.message}


def record_path(collection: str, rid: str) -> str:
    return f"$.{collection}[{_quote(rid)}]"


def _quote(rid: str) -> str:
    return "'" + rid.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class StateSchema:
    """``records``: collection -> record Struct type. ``required``: collections
    a state must hold (possibly empty for others). ``rules(state)`` yields
    ``Issue``s for cross-record constraints; it runs only once every record
    has its declared type, so it may index fields freely."""

    records: dict
    required: tuple = ()
    rules: Callable | None = None
    _fields: dict = field(init=False, repr=False, compare=False)
    _shapes: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        fields = {name: {f.name for f in msgspec.structs.fields(t)} for name, t in self.records.items()}
        object.__setattr__(self, "_fields", fields)
        shapes = {name: tuple(f.name for f in msgspec.structs.fields(t)) for name, t in self.records.items()}
        object.__setattr__(self, "_shapes", shapes)

    @property
    def shapes(self) -> dict:
        """Collection -> its record type's field names, in declared order (the
        order the world's generator and tools build records in)."""
        return self._shapes

    @property
    def collections(self) -> tuple:
        return tuple(self.records)

    def validate(self, state) -> list:
        """Every issue with ``state`` (``{collection: {id: record}}``), at most
        ``MAX_ISSUES``; an empty list means the world can start from it."""
        if not isinstance(state, dict):
            return [Issue("$", f"a state is a JSON object of collection -> {{id: record}}, not {_kind(state)}")]
        issues: list = []
        for name in state:
            if name not in self.records:
                issues.append(Issue(f"$.{name}", f"unknown collection; this world's collections are "
                                                 f"{', '.join(self.records)}"))
        for name in self.required:
            if name not in state:
                issues.append(Issue(f"$.{name}", "required collection is missing"))
        for name, records in state.items():
            kind = self.records.get(name)
            if kind is None:
                continue
            if not isinstance(records, dict):
                issues.append(Issue(f"$.{name}", f"a collection is a JSON object of id -> record, not {_kind(records)}"))
                continue
            for rid, record in records.items():
                issue = self._check_record(name, kind, rid, record)
                if issue is not None:
                    issues.append(issue)
                    if len(issues) >= MAX_ISSUES:
                        return issues
        if not issues and self.rules is not None:
            issues.extend(self.rules(state))
        return issues[:MAX_ISSUES]

    def _check_record(self, collection: str, kind: type, rid: str, record) -> Issue | None:
        at = record_path(collection, rid)
        if rid == "":
            return Issue(at, "a record id must not be empty")
        try:
            msgspec.convert(record, kind)
        except msgspec.ValidationError as e:
            return _issue(at, str(e), self._fields[collection], collection)
        # A string id is the record's key; a numeric one (GitHub's ids) is just data.
        if "id" in self._fields[collection] and isinstance(record["id"], str) and record["id"] != rid:
            return Issue(f"{at}.id", f"the record's id {record['id']!r} differs from its key {rid!r}; make them equal")
        return None


def _issue(at: str, text: str, fields: set, collection: str) -> Issue:
    """msgspec's first error, as a path and a message that says what to do."""
    where = ""
    if " - at `$" in text:
        text, where = text.rsplit(" - at `$", 1)
        where = where.rstrip("`")
    if text.startswith("Object missing required field `"):
        name = text.split("`")[1]
        return Issue(f"{at}{where}.{name}", "required field is missing (records state every field; use null "
                                            "where a field allows it)")
    if text.startswith("Object contains unknown field `"):
        name = text.split("`")[1]
        return Issue(f"{at}{where}.{name}", f"unknown field; {collection} records have: {', '.join(sorted(fields))}")
    return Issue(f"{at}{where}", text)


def _kind(value) -> str:
    if isinstance(value, list):
        return "an array"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return type(value).__name__
