"""Query strings and form fields are text; a tool's arguments are typed.

``typed(schema, pairs)`` turns ``[(name, text), ...]`` into the argument
object a tool takes, reading each field's JSON Schema type: ``maxResults=10``
becomes an integer, ``includeSpamTrash=true`` a boolean, a repeated
``labelIds`` a list, and a form field holding JSON (Slack sends ``blocks`` so)
its value. Text that does not fit its type is passed on as text, so the
tool's own schema refuses it the way ``step`` would.
"""

from __future__ import annotations

import orjson


def _kinds(spec: dict | None) -> set:
    if not spec:
        return set()
    kinds = set()
    t = spec.get("type")
    if isinstance(t, str):
        kinds.add(t)
    elif isinstance(t, list):
        kinds.update(t)
    for alt in [*spec.get("anyOf", ()), *spec.get("oneOf", ())]:
        kinds |= _kinds(alt)
    if "enum" in spec and not kinds:
        kinds.add("string")
    return kinds


def _one(spec: dict | None, text: str):
    kinds = _kinds(spec)
    if "integer" in kinds:
        try:
            return int(text)
        except ValueError:
            pass
    if "number" in kinds:
        try:
            return float(text)
        except ValueError:
            pass
    if "boolean" in kinds and text.lower() in ("true", "false", "1", "0"):
        return text.lower() in ("true", "1")
    if kinds & {"object", "array"} and text[:1] in ("{", "["):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    if "null" in kinds and text == "" and "string" not in kinds:
        return None
    return text


def _items(spec: dict | None) -> dict | None:
    if not spec:
        return None
    if "items" in spec:
        return spec["items"]
    for alt in spec.get("anyOf", ()):
        if "items" in alt:
            return alt["items"]
    return None


def typed(schema: dict, pairs: list) -> dict:
    """The arguments named in ``pairs`` (text), typed by the tool's ``schema``."""
    props = schema.get("properties", {})
    grouped: dict = {}
    for name, text in pairs:
        grouped.setdefault(name, []).append(text)
    out = {}
    for name, texts in grouped.items():
        spec = props.get(name)
        if "array" in _kinds(spec):
            if len(texts) == 1 and texts[0][:1] == "[":
                out[name] = _one(spec, texts[0])
            else:  # a repeated parameter (labelIds=INBOX&labelIds=UNREAD) or a comma list
                parts = texts if len(texts) > 1 else [t for t in texts[0].split(",") if t]
                out[name] = [_one(_items(spec), t) for t in parts]
        else:
            out[name] = _one(spec, texts[-1])
    return out
