"""The dummy world: the smallest complete world.

It is the template that ``sandworld new-world`` copies and the engine's test
fixture: ``noop`` does nothing (the floor the throughput bench compares
against), ``set`` and ``get`` touch one record, and one task checks a write.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from ...verify import checks as C
from ..task import Setup, Task
from ..tool import Refused, tool
from ..state_schema import StateSchema
from ..world import World

COLLECTIONS = ("items",)


def generate(seed: int) -> dict:
    # Deterministic from the seed alone: no global random, no hash().
    return {"items": {f"it-{i:02d}": {"id": f"it-{i:02d}", "value": (seed * 7 + i) % 100} for i in range(5)}}


class Item(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """An item record, as the tools read and write it (and custom seeds give it)."""

    id: str
    value: Annotated[int, msgspec.Meta(ge=0, le=1_000_000)]


class KeyArgs(msgspec.Struct, forbid_unknown_fields=True):
    key: Annotated[str, msgspec.Meta(description="The item id, e.g. it-01.")]


class SetArgs(msgspec.Struct, forbid_unknown_fields=True):
    key: Annotated[str, msgspec.Meta(description="The item id, e.g. it-01.")]
    value: Annotated[int, msgspec.Meta(ge=0, le=1_000_000, description="The new value.")]


@tool(writes=False)
def noop(ctx, args):
    """Do nothing and answer an empty object."""
    return {}


@tool(writes=False, params=KeyArgs)
def get(ctx, args):
    """Read one item."""
    item = ctx.store.get("items", args.key)
    if item is None:
        raise Refused("not_found", f"no item {args.key!r}; items are it-00 to it-04")
    return item


@tool(writes=True, params=SetArgs)
def set(ctx, args):  # noqa: A001 - the tool's public name
    """Set an item's value."""
    if ctx.store.get("items", args.key) is None:
        raise Refused("not_found", f"no item {args.key!r}; items are it-00 to it-04")
    return ctx.store.update("items", args.key, {"value": args.value})


def _setup_add(store) -> Setup:
    value = store.get("items", "it-01")["value"] + 10
    return Setup(
        instruction="Add 10 to the value of item it-01.",
        checks=[
            C.FieldEquals(id="added", label="it-01 holds its old value plus 10", collection="items",
                          field="value", value=value, where={"id": "it-01"}),
            C.NoCollateral(id="no-collateral", label="Nothing else changed",
                           allow=[C.Allow(collection="items", ops=["updated"], where={"id": "it-01"})]),
        ],
        solution=[("get", {"key": "it-01"}), ("set", {"key": "it-01", "value": value})],
    )


WORLD = World(
    name="dummy",
    version="1.0.0",
    title="Dummy",
    description="Five numbered items. The template for new worlds and the engine's test fixture.",
    epoch="2026-01-01T00:00:00.000Z",
    collections=COLLECTIONS,
    policy="Change only what the user asks for.",
    tools=[noop, get, set],
    tasks=[Task(id="dm-01", title="Add to an item", setup=_setup_add, step_budget=5)],
    generate=generate,
    state_schema=StateSchema(records={"items": Item}),
)
