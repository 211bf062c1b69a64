"""Stripe's shapes, shared by every billing tool: list objects and their cursor
pagination, ``expand``, the objects as the API answers them, and errors.

A list answers ``{"object": "list", "data", "has_more", "url"}`` newest first;
``starting_after``/``ending_before`` take an id of the list and ``limit`` 1 to
100 (default 10). ``expand`` replaces an id by its object (``customer``,
``data.latest_invoice``, ``latest_invoice.charge``). Errors are Stripe's:
``Refused(code, message, type=..., param=..., status=...)``, which the runs
dialect answers as ``{"error": {"type", "code", "message", "param"}}`` with the
status (``sw_runtime/runs/dialects.py``).
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from ..tool import Refused

# An id's prefix -> (collection, what Stripe calls it in "No such ...")
PREFIXES = {"cus": ("customers", "customer"), "pm": ("payment_methods", "PaymentMethod"),
            "prod": ("products", "product"), "price": ("prices", "price"), "sub": ("subscriptions", "subscription"),
            "in": ("invoices", "invoice"), "ii": ("invoiceitems", "invoiceitem"),
            "pi": ("payment_intents", "payment_intent"), "ch": ("charges", "charge"), "re": ("refunds", "refund"),
            "dp": ("disputes", "dispute"), "promo": ("promotion_codes", "promotion code"),
            "txn": ("balance_transactions", "balance transaction"), "po": ("payouts", "payout"),
            "evt": ("events", "event")}

Limit = Annotated[int, Meta(ge=1, le=100, description="How many objects to return, 1 to 100 (default 10).")]
Cursor = Annotated[str, Meta(min_length=1, max_length=64, description="An object id from a list page: the page "
                                                                      "starts after (or ends before) it.")]
Expand = Annotated[list[Annotated[str, Meta(min_length=1, max_length=100)]],
                   Meta(max_length=10, description="Fields to expand from an id into the object, e.g. ['customer'] "
                                                   "or, on a list, ['data.customer'].")]
Id = Annotated[str, Meta(min_length=1, max_length=64)]
Metadata = Annotated[dict[str, Annotated[str, Meta(max_length=500)]],
                     Meta(max_length=50, description="Key-value pairs to store on the object; a key set to '' "
                                                     "is removed.")]


def error(code: str, message: str, param: str | None = None, kind: str = "invalid_request_error",
          status: int = 400, **extra) -> Refused:
    out = {"type": kind, "status": status, **extra}
    if param is not None:
        out["param"] = param
    return Refused(code, message, **out)


def missing(what: str, rid: str, param: str = "id") -> Refused:
    return error("resource_missing", f"No such {what}: '{rid}'", param, status=404)


def get(store, collection: str, rid: str, what: str, param: str = "id") -> dict:
    rec = store.get(collection, rid) if rid else None
    if rec is None:
        raise missing(what, rid, param)
    return rec


def view(store, rec: dict) -> dict:
    """A stored record as the API answers it."""
    kind = rec.get("object")
    if kind == "subscription":
        items = [{**i, "subscription": rec["id"], "price": store.get("prices", i["price"])} for i in rec["items"]]
        return {**rec, "items": {"object": "list", "data": items, "has_more": False,
                                 "url": f"/v1/subscription_items?subscription={rec['id']}"},
                "discount": _discount(store, rec["discount"])}
    if kind == "customer":
        return {**rec, "discount": _discount(store, rec["discount"])}
    if kind == "invoice":
        return {**rec, "lines": {"object": "list", "data": rec["lines"], "has_more": False,
                                 "url": f"/v1/invoices/{rec['id']}/lines"}}
    if kind == "promotion_code":
        return {**rec, "coupon": store.get("coupons", rec["coupon"])}
    return rec


def _discount(store, d: dict | None) -> dict | None:
    if d is None:
        return None
    return {"object": "discount", **d, "coupon": store.get("coupons", d["coupon"])}


def expand(store, obj: dict, paths: list) -> dict:
    for path in paths:
        obj = _expand(store, obj, path.split("."), path)
    return obj


def _expand(store, obj, parts: list, path: str):
    head, rest = parts[0], parts[1:]
    if isinstance(obj, dict) and head == "data" and obj.get("object") in ("list", "search_result") and rest:
        return {**obj, "data": [_expand(store, o, rest, path) for o in obj["data"]]}
    value = obj.get(head) if isinstance(obj, dict) else None
    if isinstance(value, str) and value.split("_", 1)[0] in PREFIXES:
        coll = PREFIXES[value.split("_", 1)[0]][0]
        rec = store.get(coll, value)
        value = view(store, rec) if rec is not None else value
    elif not isinstance(value, dict):
        raise error("parameter_invalid", f"This property cannot be expanded ({path}).", "expand")
    if rest:
        value = _expand(store, value, rest, path)
    return {**obj, head: value}


def page(store, rows: list, args, url: str) -> dict:
    """Stripe's list object of ``rows`` (stored records), newest first, one page of it."""
    rows = sorted(rows, key=lambda r: (r.get("created", 0), r["id"]), reverse=True)
    ids = [r["id"] for r in rows]
    if args.starting_after is not None and args.ending_before is not None:
        raise error("parameter_invalid", "You may only specify one of these parameters: ending_before, "
                                         "starting_after.", "starting_after")
    if args.starting_after is not None:
        if args.starting_after not in ids:
            raise missing("object", args.starting_after, "starting_after")
        rows = rows[ids.index(args.starting_after) + 1:]
        chunk, more = rows[:args.limit], len(rows) > args.limit
    elif args.ending_before is not None:
        if args.ending_before not in ids:
            raise missing("object", args.ending_before, "ending_before")
        rows = rows[:ids.index(args.ending_before)]
        chunk, more = rows[-args.limit:], len(rows) > args.limit
    else:
        chunk, more = rows[:args.limit], len(rows) > args.limit
    out = {"object": "list", "data": [view(store, r) for r in chunk], "has_more": more, "url": url}
    return expand(store, out, args.expand)
