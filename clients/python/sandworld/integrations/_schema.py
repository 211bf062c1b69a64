"""Served tool schemas, reshaped for trainers whose schema models are narrower.

A served property may be ``anyOf: [X, {"type": "null"}]`` (an optional
argument), an ``enum`` without a ``type``, or carry constraints (``minimum``,
``maxLength``, nested ``properties``…) that a trainer's schema path drops.
``flatten`` gives every property one plain ``type``; ``note`` writes what a
trainer's schema cannot hold into the description, as JSON, so the model still
reads every constraint and nothing is lost on the way.
"""

from __future__ import annotations

import json

_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", type(None): "null"}


def flatten(prop: dict) -> tuple[dict, bool]:
    """``(property with one plain "type", nullable)``.

    ``anyOf: [X, null]`` becomes X (with the description and default of the
    whole); several non-null variants become a list of types; an ``enum``
    without a type gets the type of its values.
    """
    prop = dict(prop)
    nullable = False
    if "anyOf" in prop:
        every = prop.pop("anyOf")
        variants = [v for v in every if v.get("type") != "null"]
        nullable = len(variants) < len(every)
        if len(variants) == 1:
            prop = {**variants[0], **prop}
        else:
            types = [t for v in variants for t in (v["type"] if isinstance(v.get("type"), list) else [v.get("type")])
                     if t]
            prop["type"] = list(dict.fromkeys(types)) or "string"
    if "type" not in prop and "enum" in prop:
        types = list(dict.fromkeys(_JSON_TYPES.get(type(v), "string") for v in prop["enum"]))
        prop["type"] = types[0] if len(types) == 1 else types
    prop.setdefault("type", "string")
    return prop, nullable


def note(prop: dict, kept: set) -> str:
    """The property's description followed by what the trainer's schema does
    not keep (every key but ``kept`` and the description), as compact JSON."""
    description = prop.get("description") or ""
    extra = {k: v for k, v in prop.items() if k not in kept and k != "description"}
    if not extra:
        return description
    constraints = json.dumps(extra, separators=(",", ":"), sort_keys=True)
    return f"{description} JSON Schema: {constraints}".strip()


def parse_note(description: str) -> dict:
    """The constraints ``note`` wrote into a description (``{}`` if none)."""
    marker = " JSON Schema: " if " JSON Schema: " in description else "JSON Schema: "
    if marker not in description:
        return {}
    return json.loads(description.rsplit(marker, 1)[1].split(" (choices:")[0])
