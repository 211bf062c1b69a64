"""Episodes that start from a trigger (reference 004: ``invoice``,
``email_received``, ``cron``).

A world declares ``triggers``: kind -> ``hydrate(store, entity_id)``, which
answers the payload the agent would receive when that event fires (an
``entity_id`` of None picks the most recent matching entity; cron ignores
it) or raises ``Refused`` when there is no such entity. The episode's
instruction is then that payload, as JSON text; the task's checks (if any)
are scored as usual.
"""

from __future__ import annotations

import dataclasses

import orjson

from .. import errors
from ..worlds.task import Setup
from ..worlds.tool import Refused


def apply(world, store, trigger, setup):
    """``(setup, trigger)``: the episode's setup with the payload as its
    instruction, and ``{"kind", "entity_id"}`` as the episode records it."""
    kinds = getattr(world, "triggers", None) or {}
    if not kinds:
        raise errors.InvalidRequest(f"the world {world.name} has no triggers; start it without \"trigger\"")
    hydrate = kinds.get(trigger.kind)
    if hydrate is None:
        raise errors.InvalidRequest(f"unknown trigger kind {trigger.kind!r} for {world.name}; "
                                    f"its triggers are {', '.join(kinds)}")
    try:
        payload = hydrate(store, trigger.entity_id)
    except Refused as r:
        raise errors.InvalidRequest(f"trigger {trigger.kind}: {r.message}") from None
    instruction = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode()
    if setup is None:
        setup = Setup(instruction=instruction, checks=[], solution=[])
    else:
        setup = dataclasses.replace(setup, instruction=instruction)
    entity = payload.get("entity_uid") if isinstance(payload, dict) else None
    return setup, {"kind": trigger.kind, "entity_id": entity}
