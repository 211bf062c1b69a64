"""Stripe's bracket syntax for form bodies and query strings, decoded.

Stripe (and its SDKs) send nested parameters flat: ``items[0][price]=p``,
``metadata[plan]=gold``, ``expand[0]=customer`` or ``expand[]=customer``.
``nest(pairs)`` rebuilds the object (a key whose children are all indexes is
a list), and ``typed(schema, tree)`` types its text leaves by the tool's JSON
Schema, as ``coerce.typed`` does for flat parameters: ``amount=500`` an
integer, ``submit=true`` a boolean, ``pause_collection=`` the empty string
that unsets a field.
"""

from __future__ import annotations

import re

from .coerce import _kinds, _one

_KEY = re.compile(r"([^\[\]]+)((?:\[[^\[\]]*\])*)\Z")


def _parts(key: str) -> list | None:
    m = _KEY.match(key)
    if m is None:
        return None
    return [m.group(1), *re.findall(r"\[([^\[\]]*)\]", m.group(2))]


def nest(pairs: list) -> dict:
    """``[(key, text)]`` with bracketed keys -> one nested object of text leaves."""
    root: dict = {}
    for key, text in pairs:
        parts = _parts(key) or [key]
        node = root
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if part == "":  # expand[]=x: the next item of a list
                part = str(sum(1 for k in node if k.isdigit()))
            if last:
                node[part] = text
            else:
                child = node.get(part)
                if not isinstance(child, dict):
                    child = node[part] = {}
                node = child
    return _lists(root)


def _lists(node):
    if not isinstance(node, dict):
        return node
    out = {k: _lists(v) for k, v in node.items()}
    if out and all(k.isdigit() for k in out):
        return [out[k] for k in sorted(out, key=int)]
    return out


def _pick(spec: dict | None, want: str) -> dict | None:
    """The alternative of ``spec`` (anyOf) that is of type ``want``."""
    if not spec:
        return None
    if spec.get("type") == want or (isinstance(spec.get("type"), list) and want in spec["type"]):
        return spec
    for alt in spec.get("anyOf", ()):
        found = _pick(alt, want)
        if found is not None:
            return found
    return None


def typed(spec: dict | None, value):
    """``value`` (text, or lists and objects of text) typed by the JSON Schema ``spec``."""
    if isinstance(value, dict):
        obj = _pick(spec, "object")
        props = (obj or {}).get("properties", {})
        extra = (obj or {}).get("additionalProperties")
        return {k: typed(props.get(k, extra if isinstance(extra, dict) else None), v) for k, v in value.items()}
    if isinstance(value, list):
        arr = _pick(spec, "array")
        return [typed((arr or {}).get("items"), v) for v in value]
    if "array" in _kinds(spec) and value == "":
        return value
    return _one(spec, value)
