"""Custom checks sent at episode create: decoded, validated, given ids.

A bad check is refused with 400 ``invalid_request`` naming the path of the
bad field (``checks[1].collection``), so a client can fix it without guessing.
Checks are checked against the world, not only against their own shape: a
collection, a tool (``action_called``/``action_not_called``) or a field name
(in ``field`` and in ``where``) the world does not have is refused, since
such a check could never pass, or could never fail.
"""

from __future__ import annotations

import msgspec

from .. import errors
from . import checks as C
from .fields import field_known, fields_known

MAX_CUSTOM = 64


MAX_WEIGHT = 1e6  # weights are relative; past this a sum of them loses precision


def _path_of(e: msgspec.ValidationError, index: int) -> str:
    text = str(e)
    where = text.rsplit(" - at `$", 1)[-1].rstrip("`") if " - at `$" in text else ""
    return f"checks[{index}]{where}"


def parse(items: list, world, template: list, replace: bool, extra_tools: tuple = ()) -> list:
    """The episode's checks: the template's (unless replaced), then the custom ones.
    ``extra_tools``: tools the episode has beside the world's (``ask_user``)."""
    if len(items) > MAX_CUSTOM:
        raise errors.InvalidRequest(f"checks: at most {MAX_CUSTOM} custom checks per episode, got {len(items)}")
    out = [] if replace else list(template)
    for i, item in enumerate(items):
        check = decode_one(item, i, world, extra_tools)
        label = check.label or describe(check)
        out.append(msgspec.structs.replace(check, id=f"custom-{i + 1}", source="custom", label=label))
    if sum(1 for c in out if isinstance(c, C.Rubric)) > 1:
        raise errors.InvalidRequest("checks: at most one rubric check per episode, counting the task's own")
    return out


def render(items, world=None) -> list:
    """Each check's sentence (``POST /api/v1/checks/render``): what a check
    without a label is labelled. Checked as at create (against ``world`` when given)."""
    if not isinstance(items, list) or not items:
        raise errors.InvalidRequest("checks: send a non-empty list of checks")
    if len(items) > MAX_CUSTOM:
        raise errors.InvalidRequest(f"checks: at most {MAX_CUSTOM} checks per request, got {len(items)}")
    return [describe(decode_one(item, i, world, ("ask_user",))) for i, item in enumerate(items)]


def decode_one(item, i: int, world, extra_tools: tuple = ()):
    """One custom check decoded and validated; ``world`` None checks its shape only."""
    if not isinstance(item, dict):
        raise errors.InvalidRequest(f"checks[{i}]: a check is a JSON object with a kind")
    kind = item.get("kind")
    if kind not in C.KINDS:
        raise errors.InvalidRequest(
            f"checks[{i}].kind: unknown kind {kind!r}; the kinds are {', '.join(sorted(C.KINDS))} "
            "(GET /api/v1/checks lists them)"
        )
    for reserved in ("id", "source"):
        if reserved in item:
            raise errors.InvalidRequest(f"checks[{i}].{reserved}: assigned by the server; leave it out")
    try:
        check = msgspec.convert(item, C.Check)
    except msgspec.ValidationError as e:
        msg = str(e).split(" - at ")[0]
        raise errors.InvalidRequest(f"{_path_of(e, i)}: {msg}") from None
    _validate(check, i)
    if world is not None:
        _against_world(check, i, world, extra_tools)
    return check


def _against_world(check, i: int, world, extra_tools: tuple) -> None:
    def bad_collection(path: str, name):
        raise errors.InvalidRequest(
            f"checks[{i}].{path}: {world.name} has no collection {name!r}; "
            f"its collections are {', '.join(world.collections)}"
        )

    collection = getattr(check, "collection", None)
    if collection is not None and collection not in world.collections:
        bad_collection("collection", collection)
    if isinstance(check, C.NoCollateral):
        for j, rule in enumerate(check.allow):
            if rule.collection not in world.collections:
                bad_collection(f"allow[{j}].collection", rule.collection)
            fields_known(world, rule.collection, rule.where, f"checks[{i}].allow[{j}].where")
    if collection is not None:
        fields_known(world, collection, getattr(check, "where", None), f"checks[{i}].where")
        if getattr(check, "field", None) is not None:
            field_known(world, collection, check.field, f"checks[{i}].field")
    if isinstance(check, (C.ActionCalled, C.ActionNotCalled)) and check.action not in world.tools_by_name \
            and check.action not in extra_tools:
        tools = world.tool_names() + list(extra_tools)
        raise errors.InvalidRequest(
            f"checks[{i}].action: {world.name} has no tool {check.action!r}; its tools are {', '.join(tools)}"
        )


def _validate(check, i: int) -> None:
    """What a check must hold whatever the world."""
    if isinstance(check, (C.ActionCalled, C.ActionNotCalled)) and not check.action:
        raise errors.InvalidRequest(f"checks[{i}].action: name a tool")
    if isinstance(check, C.WriteCount):
        for name in ("min", "max"):
            v = getattr(check, name)
            if v is not None and v < 0:
                raise errors.InvalidRequest(f"checks[{i}].{name}: must be an integer from 0")
        if check.min is not None and check.max is not None and check.min > check.max:
            raise errors.InvalidRequest(f"checks[{i}]: min is larger than max")
    if not 0 < check.weight <= MAX_WEIGHT:  # also refuses NaN
        raise errors.InvalidRequest(f"checks[{i}].weight: must be above 0 and at most {MAX_WEIGHT:g}")


def describe(check) -> str:
    """A default label built from the kind and its fields."""
    kind = check.__struct_config__.tag
    f = msgspec.structs.asdict(check)
    where = f" matching {msgspec.json.encode(f['where']).decode()}" if f.get("where") else ""
    if kind == "record_exists":
        return f"A record in {check.collection}{where} exists"
    if kind == "record_absent":
        return f"No record in {check.collection}{where} exists"
    if kind in ("field_equals", "field_contains"):
        verb = "equals" if kind == "field_equals" else "contains"
        return f"A record in {check.collection}{where} has {check.field} that {verb} {msgspec.json.encode(check.value).decode()}"
    if kind == "write_count":
        return f"Writes to {check.collection or 'any collection'} within {check.min or 0}..{'∞' if check.max is None else check.max}"
    if kind == "no_writes":
        return f"No writes to {check.collection or 'any collection'}"
    if kind == "action_called":
        return f"{check.action} was called"
    if kind == "action_not_called":
        return f"{check.action} was not called"
    if kind == "output_contains":
        return f"The output contains {check.value!r}"
    if kind == "output_equals":
        return "The output equals the expected text"
    if kind == "rubric":
        return check.text
    return "No changes beyond the allowed ones"
