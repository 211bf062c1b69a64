"""Field paths in checks, checked against a world's record types.

A check names fields by dotted paths (``start.date``, ``items.0.sku``). A
path whose leading names the collection's record Struct does not declare can
never match anything, so a check holding one is refused at create. Below a
free-form value (a dict, ``Any``) nothing more can be known: the rest of the
path is accepted.
"""

from __future__ import annotations

import msgspec

from .. import errors


def fields_known(world, collection: str, where, path: str) -> None:
    for name in where or ():
        field_known(world, collection, name, f"{path}.{name}")


def field_known(world, collection: str, dotted: str, path: str) -> None:
    """Refuse a dotted field path whose leading names the collection's record type lacks."""
    schema = getattr(world, "state_schema", None)
    record = schema.records.get(collection) if schema is not None else None
    if record is None or dotted == "id":
        return
    node = record
    for part in dotted.split("."):
        if node is None:
            return  # below a dict or any value: free-form
        if isinstance(node, _ListOf):
            if not part.isdigit():
                raise errors.InvalidRequest(f"{path}: {part!r} indexes a list in {collection}; use a number")
            node = node.item
            continue
        names = {f.name: f.type for f in msgspec.structs.fields(node)}
        if part not in names:
            raise errors.InvalidRequest(
                f"{path}: records in {world.name}'s {collection} have no field {part!r} (in {dotted!r}); "
                f"their fields are {', '.join(sorted(names))}"
            )
        node = _struct_of(names[part])


class _ListOf:
    def __init__(self, item):
        self.item = item


def _struct_of(tp):
    """The Struct (or list of one) a field holds, or None when it is free-form."""
    origin = getattr(tp, "__origin__", None)
    args = getattr(tp, "__args__", ())
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return tp
    if origin in (list, tuple) and args:
        inner = _struct_of(args[0])
        return _ListOf(inner) if inner is not None else None
    if args and origin is not None and origin not in (dict,):  # Optional[Struct], Union
        structs = [a for a in args if isinstance(a, type) and issubclass(a, msgspec.Struct)]
        if len(structs) == 1:
            return structs[0]
    if args and origin is None:  # X | None (types.UnionType)
        structs = [a for a in args if isinstance(a, type) and issubclass(a, msgspec.Struct)]
        if len(structs) == 1:
            return structs[0]
    return None
