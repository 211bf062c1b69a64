"""The check vocabulary as data, for ``GET /api/v1/checks``.

Required and optional fields are read from the check structs themselves, so
the listing cannot drift from what the server decodes; the digest lets a
client pin the vocabulary it was written against.
"""

from __future__ import annotations

import hashlib

import msgspec
import orjson

from . import checks as C

_COMMON = {"id", "label", "weight", "always_scored", "source"}

PASSES_WHEN = {
    "record_exists": "A record in the collection matches where at the end.",
    "record_absent": "No record in the collection matches where at the end.",
    "field_equals": "A record matching where has field exactly equal to value.",
    "field_contains": "A record matching where has value in field (case-insensitive; a list field may hold it).",
    "write_count": "The records created, updated and removed, in that collection or in all, number from min to max.",
    "no_writes": "No record was created, updated or removed (in that collection, or in any).",
    "action_called": "A call in the trace used that tool (and, when given, its arguments and result match: "
    "a guarded tool's result in sandbox mode is its would_* preview).",
    "action_not_called": "No call in the trace used that tool (with arguments and result matching, when given).",
    "output_contains": "The output sent to submit contains value, case-insensitive.",
    "output_equals": "The output sent to submit equals value exactly.",
    "rubric": "A judge model reads the task, trace, state diff and output and answers yes to text; "
    "undecided (pass null) without a judge.",
    "no_collateral": "Every change the episode made matches one of the allow rules {collection, ops, where}.",
}

EXAMPLES = {
    "record_exists": {"kind": "record_exists", "collection": "transactions", "where": {"note": "rent"}},
    "record_absent": {"kind": "record_absent", "collection": "contacts", "where": {"handle": "@maya_lin"}},
    "field_equals": {"kind": "field_equals", "collection": "requests", "field": "status", "value": "declined",
                     "where": {"id": "rq-17"}},
    "field_contains": {"kind": "field_contains", "collection": "transactions", "field": "note", "value": "dinner"},
    "write_count": {"kind": "write_count", "collection": "transactions", "min": 1, "max": 1},
    "no_writes": {"kind": "no_writes", "collection": "contacts"},
    "action_called": {"kind": "action_called", "action": "send_email",
                      "result": {"sandbox": True, "would_send.to": "billing@"}},
    "action_not_called": {"kind": "action_not_called", "action": "send_money"},
    "output_contains": {"kind": "output_contains", "value": "declined"},
    "output_equals": {"kind": "output_equals", "value": "Done."},
    "rubric": {"kind": "rubric", "text": "Did the assistant explain why it declined the request?"},
    "no_collateral": {"kind": "no_collateral", "allow": [{"collection": "requests", "ops": ["updated"],
                                                          "where": {"id": "rq-17"}}]},
}


def _fields(cls):
    required, optional = [], []
    for f in msgspec.structs.fields(cls):
        if f.name in _COMMON:
            continue
        (required if f.required else optional).append(f.name)
    return required, optional


def listing() -> dict:
    kinds = []
    for kind, cls in sorted(C.KINDS.items()):
        required, optional = _fields(cls)
        kinds.append({"kind": kind, "required": required, "optional": optional,
                      "passes_when": PASSES_WHEN[kind], "example": EXAMPLES[kind]})
    common = ["id (assigned for custom checks)", "label", "weight (default 1)", "always_scored (default false)"]
    body = {"kinds": kinds, "common_fields": common}
    body["digest"] = "sha256:" + hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return body


assert set(PASSES_WHEN) == set(EXAMPLES) == set(C.KINDS)
