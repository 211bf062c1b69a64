"""Changing and cancelling subscriptions, and previewing what a change costs.

``Subscription.modify`` changes items (price, quantity) with Stripe's
prorations: on the same interval, pending invoice items crediting the unused
time and charging the remaining time; on a change of interval (monthly to
annual) the period restarts now and a draft invoice bills the new price less
the credit. It also sets ``cancel_at_period_end``, ``pause_collection``,
``trial_end``, ``discounts`` and the default card. ``Invoice.create_preview``
answers the invoice a change would make, changing nothing.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..tool import tool
from .api import Id, Metadata, error, get, view
from .clock import period_end
from .rules import interval_changes, proration
from .writing import Write, _event, _id, _meta, _now, _own_pm, _write


class ItemArg(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    id: Annotated[Id, Meta(description="The subscription item (si_...) to change; leave out to add an item.")] | None = None
    price: Annotated[Id, Meta(description="The new price (price_...); must be active.")] | None = None
    quantity: Annotated[int, Meta(ge=1, le=10_000, description="Seats.")] | None = None


class PauseArg(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    behavior: Literal["keep_as_draft", "mark_uncollectible", "void"]
    resumes_at: Annotated[int, Meta(ge=0, description="When collection resumes (Unix seconds).")] | None = None


class DiscountArg(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    coupon: Annotated[str, Meta(min_length=1, max_length=64, description="A coupon id.")] | None = None
    promotion_code: Annotated[Id, Meta(description="A promotion code id (promo_...).")] | None = None


class Cancellation(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    comment: Annotated[str, Meta(max_length=5000)] | None = None
    feedback: Literal["customer_service", "low_quality", "missing_features", "other", "switched_service",
                      "too_complex", "too_expensive", "unused"] | None = None


Proration = Literal["create_prorations", "none"]


class SubscriptionModify(Write, kw_only=True):
    id: Annotated[Id, Meta(description="The subscription's id.")]
    items: Annotated[list[ItemArg], Meta(max_length=20, description="Items to change: {id, price, quantity}.")] | None = None
    proration_behavior: Annotated[Proration, Meta(description="create_prorations (the default) credits unused "
                                                              "time and charges the remaining time; none does "
                                                              "not.")] = "create_prorations"
    cancel_at_period_end: Annotated[bool, Meta(description="true: the subscription ends at current_period_end.")] | None = None
    pause_collection: Annotated[PauseArg | Literal[""], Meta(description="Pause collecting payment ('' resumes "
                                                                          "it).")] | None = None
    trial_end: Annotated[int | Literal["now"], Meta(description="End the trial at this time (Unix seconds, in "
                                                                "the future) or 'now'.")] | None = None
    discounts: Annotated[list[DiscountArg] | Literal[""], Meta(description="The discounts to apply, e.g. "
                                                                           "[{promotion_code: 'promo_...'}]; '' "
                                                                           "removes them.")] | None = None
    default_payment_method: Annotated[Id, Meta(description="One of the customer's cards.")] | None = None
    cancellation_details: Cancellation | None = None
    metadata: Metadata | None = None


def _new_items(ctx, sub: dict, items: list) -> list:
    out = [dict(i) for i in sub["items"]]
    for n, item in enumerate(items):
        if item.price is not None:
            price = get(ctx.store, "prices", item.price, "price", f"items[{n}][price]")
            if not price["active"]:
                raise error("parameter_invalid", f"The price specified ({item.price}) is inactive. This field only "
                            "accepts active prices.", f"items[{n}][price]")
            if price["type"] != "recurring":
                raise error("parameter_invalid", "The price specified is not recurring; a subscription item needs "
                            "a recurring price.", f"items[{n}][price]")
        if item.id is None:
            if item.price is None:
                raise error("parameter_missing", "A new item needs a price.", f"items[{n}][price]")
            out.append({"id": _id(ctx, "subscriptions", "si"), "object": "subscription_item", "price": item.price,
                        "quantity": item.quantity or 1})
            continue
        found = [i for i in out if i["id"] == item.id]
        if not found:
            raise error("resource_missing", f"No such subscription item: '{item.id}'", f"items[{n}][id]", status=404)
        found[0].update({k: v for k, v in (("price", item.price), ("quantity", item.quantity)) if v is not None})
    return out


def _discount(ctx, cus: dict, arg: list, at: int) -> tuple:
    """``(discount, [(collection, id, times_redeemed)])`` for a discounts argument, or Stripe's refusal."""
    if len(arg) != 1 or (arg[0].coupon is None) == (arg[0].promotion_code is None):
        raise error("parameter_invalid", "Pass one discount: a coupon or a promotion_code.", "discounts")
    promo = None
    if arg[0].promotion_code is not None:
        promo = get(ctx.store, "promotion_codes", arg[0].promotion_code, "promotion code",
                    "discounts[0][promotion_code]")
        used_up = promo["max_redemptions"] is not None and promo["times_redeemed"] >= promo["max_redemptions"]
        if not promo["active"] or (promo["expires_at"] is not None and promo["expires_at"] <= at) or used_up:
            raise error("coupon_expired", f"The promotion code {promo['code']} is inactive, expired or used up.",
                        "discounts[0][promotion_code]")
        coupon_id = promo["coupon"]
    else:
        coupon_id = arg[0].coupon
    coupon = get(ctx.store, "coupons", coupon_id, "coupon", "discounts[0][coupon]")
    if not coupon["valid"] or (coupon["redeem_by"] is not None and coupon["redeem_by"] <= at):
        raise error("coupon_expired", f"The coupon {coupon['name']} has expired or reached its redemption limit.",
                    "discounts[0]")
    counts = [("coupons", coupon["id"], coupon["times_redeemed"] + 1)]
    if promo is not None:
        counts.append(("promotion_codes", promo["id"], promo["times_redeemed"] + 1))
    return {"coupon": coupon["id"], "promotion_code": promo["id"] if promo else None, "start": at}, counts


@_write("Subscription.modify", SubscriptionModify, "Update a subscription (POST /v1/subscriptions/{id}): change "
        "items (price, quantity) with prorations, cancel_at_period_end, pause_collection, trial_end, discounts, "
        "default_payment_method, metadata. A canceled subscription cannot change.")
def subscription_modify(ctx, args):
    sub = get(ctx.store, "subscriptions", args.id, "subscription")
    if sub["status"] in ("canceled", "incomplete_expired"):
        raise error("parameter_invalid", "A canceled subscription can only update its cancellation_details and "
                    "metadata.", "id")
    cus = ctx.store.get("customers", sub["customer"])
    now = _now(ctx)
    fields: dict = {}
    prices = {p["id"]: p for _, p in ctx.store.scan("prices")}
    items = _new_items(ctx, sub, args.items) if args.items is not None else None
    counts: list = []
    if args.discounts is not None:
        if args.discounts == "":
            fields["discount"] = None
        else:
            fields["discount"], counts = _discount(ctx, cus, args.discounts, now)
    if args.trial_end is not None:
        end = now if args.trial_end == "now" else args.trial_end
        if args.trial_end != "now" and end <= now:
            raise error("parameter_invalid", "trial_end must be in the future (or 'now').", "trial_end")
        fields.update(trial_end=end, current_period_end=end)
        if end == now:
            fields["status"] = "active"
    if args.default_payment_method is not None:
        _own_pm(ctx, cus, args.default_payment_method, "default_payment_method")
        fields["default_payment_method"] = args.default_payment_method
    if args.cancel_at_period_end is not None:
        fields.update(cancel_at_period_end=args.cancel_at_period_end,
                      cancel_at=sub["current_period_end"] if args.cancel_at_period_end else None)
    if args.pause_collection is not None:
        fields["pause_collection"] = None if args.pause_collection == "" else msgspec.to_builtins(args.pause_collection)
    if args.cancellation_details is not None:
        fields["cancellation_details"] = {**sub["cancellation_details"],
                                          **msgspec.to_builtins(args.cancellation_details)}
    if args.metadata is not None:
        fields["metadata"] = _meta(sub["metadata"], args.metadata)
    for coll, rid, n in counts:
        ctx.store.update(coll, rid, {"times_redeemed": n})
    if items is not None:
        fields["items"] = items
        lines = proration(sub, prices, items, now) if args.proration_behavior == "create_prorations" else []
        if sub["status"] == "trialing":
            lines = []
        if interval_changes(sub, prices, items) and sub["status"] != "trialing":
            fields.update(_restart(ctx, sub, cus, prices, items, lines, now))
        else:
            for line in lines:
                _invoice_item(ctx, sub, line, None, now)
    sub = ctx.store.update("subscriptions", sub["id"], fields)
    _event(ctx, "customer.subscription.updated", sub)
    return view(ctx.store, sub)


def _invoice_item(ctx, sub: dict, line: dict, invoice: str | None, now: int) -> dict:
    iid = _id(ctx, "invoiceitems", "ii")
    rec = {"id": iid, "object": "invoiceitem", "customer": sub["customer"], "subscription": sub["id"],
           "invoice": invoice, "amount": line["amount"], "currency": "usd", "description": line["description"],
           "price": line["price"], "quantity": line["quantity"], "proration": True,
           "period": {"start": now, "end": sub["current_period_end"]}, "created": now}
    ctx.store.insert("invoiceitems", iid, rec)
    return rec


def _restart(ctx, sub, cus, prices, items, lines, now) -> dict:
    """A change of interval: the period restarts now, billed on a new draft invoice (the new price, less the
    credit for unused time)."""
    interval = prices[items[0]["price"]]["recurring"]["interval"]
    end = period_end(now, interval)
    inv_id = _id(ctx, "invoices", "in")
    rows = [{**ln, "proration": True, "period": {"start": now, "end": sub["current_period_end"]}} for ln in lines]
    for item in items:
        p = prices[item["price"]]
        rows.append({"description": f"{item['quantity']} × {p['nickname']}", "amount": p["unit_amount"] *
                     item["quantity"], "price": p["id"], "quantity": item["quantity"], "proration": False,
                     "period": {"start": now, "end": end}})
    for ln in lines:
        _invoice_item(ctx, sub, ln, inv_id, now)
    total = sum(r["amount"] for r in rows)
    inv = {"id": inv_id, "object": "invoice", "customer": cus["id"], "subscription": sub["id"], "status": "draft",
           "number": f"TR{cus['id'][4:8]}-S{ctx.step:03d}", "currency": "usd", "created": now, "period_start": now,
           "period_end": end, "collection_method": "charge_automatically", "due_date": None, "attempt_count": 0,
           "attempted": False, "subtotal": total, "total": total, "amount_due": max(total, 0), "amount_paid": 0,
           "amount_remaining": max(total, 0),
           "lines": [{"id": f"il_{inv_id[3:]}_{n}", "object": "line_item", **r} for n, r in enumerate(rows)],
           "charge": None, "payment_intent": None, "status_transitions": {
               "finalized_at": None, "paid_at": None, "voided_at": None, "marked_uncollectible_at": None},
           "metadata": {}}
    ctx.store.insert("invoices", inv_id, inv)
    _event(ctx, "invoice.created", inv)
    return {"current_period_start": now, "current_period_end": end, "billing_cycle_anchor": now,
            "latest_invoice": inv_id}


class SubscriptionCancel(Write, kw_only=True):
    id: Annotated[Id, Meta(description="The subscription's id.")]
    prorate: Annotated[bool, Meta(description="Credit the unused time as a pending invoice item (default "
                                              "false).")] = False
    cancellation_details: Cancellation | None = None


@_write("Subscription.cancel", SubscriptionCancel, "Cancel a subscription now (DELETE /v1/subscriptions/{id}): it "
        "ends immediately. To end it when the period ends, use Subscription.modify with cancel_at_period_end.")
def subscription_cancel(ctx, args):
    sub = get(ctx.store, "subscriptions", args.id, "subscription")
    if sub["status"] == "canceled":
        raise error("resource_missing", f"No such subscription: '{args.id}' (it is already canceled)", "id",
                    status=404)
    now = _now(ctx)
    if args.prorate:
        prices = {p["id"]: p for _, p in ctx.store.scan("prices")}
        for ln in [{"description": f"Unused time on {i['quantity']} × {prices[i['price']]['nickname']}",
                 "amount": -_left(sub, prices[i["price"]]["unit_amount"] * i["quantity"], now),
                 "price": i["price"], "quantity": i["quantity"]} for i in sub["items"]]:
            _invoice_item(ctx, sub, ln, None, now)
    details = sub["cancellation_details"]
    if args.cancellation_details is not None:
        details = {**details, **msgspec.to_builtins(args.cancellation_details)}
    sub = ctx.store.update("subscriptions", sub["id"], {
        "status": "canceled", "canceled_at": now, "ended_at": now, "cancel_at_period_end": False, "cancel_at": None,
        "cancellation_details": {**details, "reason": "cancellation_requested"}})
    _event(ctx, "customer.subscription.deleted", sub)
    return view(ctx.store, sub)


def _left(sub: dict, amount: int, now: int) -> int:
    from .rules import share

    return share(amount, max(0, sub["current_period_end"] - now), sub["current_period_end"] - sub["current_period_start"])


# -- the preview ---------------------------------------------------------------------------------------------------


class PreviewDetails(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    items: Annotated[list[ItemArg], Meta(max_length=20)] | None = None
    proration_behavior: Proration = "create_prorations"


class InvoicePreview(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    customer: Annotated[Id, Meta(description="The customer.")]
    subscription: Annotated[Id, Meta(description="The subscription to preview.")] | None = None
    subscription_details: Annotated[PreviewDetails, Meta(description="A change to preview: {items: [{id, price, "
                                                                       "quantity}], proration_behavior}.")] | None = None


@tool(writes=False, params=InvoicePreview, name="Invoice.create_preview")
def invoice_create_preview(ctx, args):
    """Preview the next invoice of a subscription, or the invoice a change to it would make (POST
    /v1/invoices/create_preview). Changes nothing: lines, subtotal, total and amount_due in cents."""
    cus = get(ctx.store, "customers", args.customer, "customer", "customer")
    subs = [s for _, s in ctx.store.scan("subscriptions", {"customer": cus["id"]}) if s["status"] != "canceled"]
    if args.subscription is not None:
        sub = get(ctx.store, "subscriptions", args.subscription, "subscription", "subscription")
    elif subs:
        sub = subs[0]
    else:
        raise error("invoice_upcoming_none", "No upcoming invoices for customer: " + cus["id"], "customer",
                    status=404)
    now = _now(ctx)
    prices = {p["id"]: p for _, p in ctx.store.scan("prices")}
    details = args.subscription_details
    items = _new_items(ctx, sub, details.items) if details is not None and details.items is not None else sub["items"]
    behavior = details.proration_behavior if details is not None else "create_prorations"
    lines = proration(sub, prices, items, now) if behavior == "create_prorations" and items is not sub["items"] else []
    restart = items is not sub["items"] and interval_changes(sub, prices, items)
    start = now if restart else sub["current_period_end"]
    end = period_end(start, prices[items[0]["price"]]["recurring"]["interval"])
    pending = [] if restart else [{"description": i["description"], "amount": i["amount"], "price": i["price"],
                                   "quantity": i["quantity"], "proration": i["proration"]}
                                  for _, i in ctx.store.scan("invoiceitems", {"customer": cus["id"]})
                                  if i["invoice"] is None and i["subscription"] == sub["id"]]
    rows = pending + [{**ln, "proration": True} for ln in lines] + [
        {"description": f"{i['quantity']} × {prices[i['price']]['nickname']}",
         "amount": prices[i["price"]]["unit_amount"] * i["quantity"], "price": i["price"], "quantity": i["quantity"],
         "proration": False} for i in items]
    total = sum(r["amount"] for r in rows)
    return {"object": "invoice", "id": None, "customer": cus["id"], "subscription": sub["id"], "status": "draft",
            "currency": "usd", "period_start": start, "period_end": end, "subtotal": total, "total": total,
            "amount_due": max(total, 0), "lines": {"object": "list", "data": rows, "has_more": False,
                                                   "url": "/v1/invoices/create_preview/lines"}}


TOOLS = [subscription_modify, subscription_cancel, invoice_create_preview]
