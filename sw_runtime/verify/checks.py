"""The check vocabulary: each check is a typed struct tagged by ``kind``.

The eleven kinds of the reference (record_exists … rubric) plus
``no_collateral``, which fails when the episode changed a record that no
correct solution touches. Checks are data: a task's template checks and a
client's custom checks are the same structs, decoded by the same code.
"""

from __future__ import annotations

from typing import Literal, Union

import msgspec

_Where = dict[str, object]


class _Check(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, tag_field="kind", omit_defaults=True):
    id: str = ""
    label: str = ""
    weight: float = 1.0
    always_scored: bool = False
    source: Literal["template", "custom"] = "template"


class RecordExists(_Check, tag="record_exists"):
    collection: str
    where: _Where


class RecordAbsent(_Check, tag="record_absent"):
    collection: str
    where: _Where


class FieldEquals(_Check, tag="field_equals"):
    collection: str
    field: str
    value: object
    where: _Where = {}


class FieldContains(_Check, tag="field_contains"):
    collection: str
    field: str
    value: object
    where: _Where = {}


class WriteCount(_Check, tag="write_count"):
    collection: str | None = None
    min: int | None = msgspec.field(default=None)
    max: int | None = msgspec.field(default=None)


class NoWrites(_Check, tag="no_writes"):
    collection: str | None = None


class ActionCalled(_Check, tag="action_called"):
    action: str
    # Optional filters on the call (``where``-style: dotted paths, a string
    # matches as a case-insensitive substring, a list field matches when an
    # item does): its arguments, and its result, which for a guarded tool in
    # sandbox mode is the preview (``{"would_send.to": "billing@"}``).
    arguments: _Where | None = None
    result: _Where | None = None


class ActionNotCalled(_Check, tag="action_not_called"):
    action: str
    arguments: _Where | None = None
    result: _Where | None = None


class OutputContains(_Check, tag="output_contains"):
    value: str


class OutputEquals(_Check, tag="output_equals"):
    value: str


class Rubric(_Check, tag="rubric"):
    text: str


class Allow(msgspec.Struct, forbid_unknown_fields=True):
    """One kind of change a correct solution may make."""

    collection: str
    ops: list[Literal["created", "updated", "removed"]] = msgspec.field(
        default_factory=lambda: ["created", "updated", "removed"]
    )
    where: _Where = {}


class NoCollateral(_Check, tag="no_collateral"):
    allow: list[Allow] = []


def no_collateral(*allow: Allow, label: str = "No collateral changes outside what the task requires") -> NoCollateral:
    """A task's ``no-collateral`` check: every change must match one of ``allow``."""
    return NoCollateral(id="no-collateral", label=label, allow=list(allow))


Check = Union[
    RecordExists,
    RecordAbsent,
    FieldEquals,
    FieldContains,
    WriteCount,
    NoWrites,
    ActionCalled,
    ActionNotCalled,
    OutputContains,
    OutputEquals,
    Rubric,
    NoCollateral,
]

KINDS = {cls.__struct_config__.tag: cls for cls in Check.__args__}


def served_actions(checks: list, world) -> list:
    """``checks`` with each action check naming its tool by the served name
    (a check may name it by its alias, ``gmail.messages.send``): the trace
    records served names, so that is what the verifier and the signals count."""
    out = []
    for c in checks:
        if isinstance(c, (ActionCalled, ActionNotCalled)):
            served = world.served(c.action)
            if served != c.action:
                c = msgspec.structs.replace(c, action=served)
        out.append(c)
    return out
