"""Binding: which check a sentence stands for (``POST /api/v1/checks/bind``).

The inverse of ``custom.render`` (reference 003's ``/checks/bind``): each
sentence is matched against the sentence every check kind renders to
(``custom.describe``), its slots read back into the check's fields, and the
check so made is decoded and checked against the world exactly as a custom
check at create is (``custom.decode_one``). So a sentence that binds here,
``corrupted: false``, is a check the world will score; one in a kind's
wording whose slots the world refuses (a collection it does not have) binds
to that kind ``corrupted: true`` with why; one that matches no kind binds to
nothing and carries the ``nearest`` wordings. Rubric sentences are free
text: any sentence would do, so none binds to ``rubric`` here.
"""

from __future__ import annotations

import ast
import difflib
import json
import re

from .. import errors
from .custom import MAX_CUSTOM, decode_one

_COLL = r"(?P<collection>any collection|\S+)"
_WHERE = r"(?: matching (?P<where>\{.*?\}))?"

# (kind, pattern, the wording shown as nearest): the sentences describe() writes.
_FORMS = (
    ("record_exists", rf"A record in (?P<collection>\S+){_WHERE} exists",
     "A record in <collection> matching <where> exists"),
    ("record_absent", rf"No record in (?P<collection>\S+){_WHERE} exists",
     "No record in <collection> matching <where> exists"),
    ("field", rf"A record in (?P<collection>\S+){_WHERE} has (?P<field>\S+) that (?P<verb>equals|contains) "
              r"(?P<value>.+)",
     "A record in <collection> matching <where> has <field> that equals|contains <value>"),
    ("write_count", rf"Writes to {_COLL} within (?P<min>\d+)\.\.(?P<max>\d+|∞)",
     "Writes to <collection> within <min>..<max>"),
    ("no_writes", rf"No writes to {_COLL}", "No writes to <collection>"),
    ("action_not_called", r"(?P<action>\S+) was not called", "<action> was not called"),
    ("action_called", r"(?P<action>\S+) was called", "<action> was called"),
    ("output_contains", r"The output contains (?P<value>.+)", "The output contains '<text>'"),
    ("output_equals", r"The output equals the expected text", "The output equals the expected text"),
    ("no_collateral", r"No changes beyond the allowed ones", "No changes beyond the allowed ones"),
)
_COMPILED = [(kind, re.compile(f"^{pattern}$"), shown) for kind, pattern, shown in _FORMS]
_SHOWN = [shown for _, _, shown in _FORMS]


class _Corrupt(Exception):
    """The sentence is a kind's wording, but a slot cannot be read back."""


def _json(text: str, slot: str):
    try:
        return json.loads(text)
    except ValueError:
        raise _Corrupt(f"{slot} is not JSON: {text[:80]}") from None


def _fields(kind: str, m: re.Match) -> dict:
    """The check a matched sentence stands for, as a custom check's JSON."""
    g = m.groupdict()
    out: dict = {}
    coll = g.get("collection")
    if coll is not None and coll != "any collection":
        out["collection"] = coll
    if g.get("where"):
        out["where"] = _json(g["where"], "where")
    if kind == "field":
        kind = "field_equals" if g["verb"] == "equals" else "field_contains"
        out["field"] = g["field"]
        out["value"] = _json(g["value"], "value")
    elif kind == "write_count":
        out["min"] = int(g["min"])
        out["max"] = None if g["max"] == "∞" else int(g["max"])
    elif kind in ("action_called", "action_not_called"):
        out["action"] = g["action"]
    elif kind == "output_contains":
        try:
            value = ast.literal_eval(g["value"])
        except (ValueError, SyntaxError):
            value = None
        if not isinstance(value, str):
            raise _Corrupt(f"the text is not a quoted string: {g['value'][:80]}")
        out["value"] = value
    elif kind == "output_equals":
        raise _Corrupt("the sentence does not carry the expected text: send the output_equals check itself")
    return {"kind": kind, **out}


def bind_one(sentence: str, i: int, world) -> dict:
    """One sentence's binding: ``{kind, check, corrupted}`` (+ ``why``), or
    ``{kind: None, check: None, corrupted: False, nearest}``."""
    text = sentence.strip()
    for kind, pattern, _ in _COMPILED:
        m = pattern.match(text)
        if m is None:
            continue
        named = "field_equals" if kind == "field" and m["verb"] == "equals" else \
            "field_contains" if kind == "field" else kind
        try:
            check = _fields(kind, m)
            decode_one(check, i, world)
        except _Corrupt as e:
            return {"kind": named, "check": None, "corrupted": True, "why": str(e)}
        except errors.InvalidRequest as e:
            return {"kind": named, "check": check, "corrupted": True, "why": e.message}
        return {"kind": named, "check": check, "corrupted": False}
    nearest = difflib.get_close_matches(text, _SHOWN, n=3, cutoff=0.0)
    return {"kind": None, "check": None, "corrupted": False, "nearest": nearest}


def bind(sentences, world) -> list:
    """Each sentence's binding, in order (``world`` None: checked for shape only)."""
    if not isinstance(sentences, list) or not sentences or not all(isinstance(s, str) for s in sentences):
        raise errors.InvalidRequest("sentences: send a non-empty list of strings")
    if len(sentences) > MAX_CUSTOM:
        raise errors.InvalidRequest(f"sentences: at most {MAX_CUSTOM} per request, got {len(sentences)}")
    return [bind_one(s, i, world) for i, s in enumerate(sentences)]
