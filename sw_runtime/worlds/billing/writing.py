"""What every billing write shares: the time, new ids, events, metadata and
the ``_write`` decorator (a guarded, pure tool with Stripe's idempotency keys)."""

from __future__ import annotations

import msgspec

from ..tool import tool
from .api import error, get
from .idempotency import Key, idempotent


def _now(ctx) -> int:
    return ctx.at_ms // 1000


def _id(ctx, collection: str, prefix: str) -> str:
    return ctx.new_id(collection, prefix).replace("-", "_", 1)


def _event(ctx, kind: str, obj: dict) -> None:
    eid = _id(ctx, "events", "evt")
    ctx.store.insert("events", eid, {"id": eid, "object": "event", "type": kind, "created": _now(ctx),
                                     "data": {"object": {"id": obj["id"], "object": obj["object"]}}})


def _meta(old: dict, new: dict | None) -> dict:
    if new is None:
        return old
    out = {**old, **new}
    return {k: v for k, v in out.items() if v != ""}


def _write(name: str, params: type, doc: str):
    def wrap(fn):
        fn.__doc__ = doc
        return tool(writes=True, params=params, name=name, pure=True)(idempotent(name)(fn))
    return wrap


def _own_pm(ctx, cus: dict, pm_id: str, param: str) -> dict:
    pm = get(ctx.store, "payment_methods", pm_id, "PaymentMethod", param)
    if pm["customer"] != cus["id"]:
        raise error("resource_missing", f"The payment method {pm_id} does not belong to the customer "
                    f"{cus['id']}.", param)
    return pm




class Write(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    idempotency_key: Key | None = None
