"""Billing's writing tools: refunds, subscriptions, invoices, disputes, customers.

What Stripe refuses is refused here, as ``ok: false`` data with Stripe's
error (``type``, ``code``, ``param``, HTTP ``status``) and before any write: a
refund larger than what is left on the charge, a refund of a disputed
charge, an archived price, an expired or used-up coupon, evidence after the
deadline, a declined card (``card_error`` with ``decline_code``). What only
Tallyroom's policy forbids (refunds over $500.00 without a manager, a second
coupon for a customer, cancelling at once without a qualifying reason) the
tools allow: that gap is what the tasks test.

Every write takes ``idempotency_key`` (``idempotency.py``) and records the
events Stripe would send (``charge.refunded``, ``invoice.paid``…).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .api import Id, Metadata, error, get, view
from .rules import decline, fee
from .state import EVIDENCE_FIELDS
from .writing import Write, _event, _id, _meta, _now, _own_pm, _write


# -- refunds -------------------------------------------------------------------------------------------------------


class RefundCreate(Write, kw_only=True):
    charge: Annotated[Id, Meta(description="The charge to refund (ch_...).")] | None = None
    payment_intent: Annotated[Id, Meta(description="Or the payment intent whose charge to refund.")] | None = None
    amount: Annotated[int, Meta(gt=0, le=100_000_000, description="Cents to refund; default what is left on the "
                                                                  "charge.")] | None = None
    reason: Literal["duplicate", "fraudulent", "requested_by_customer"] | None = None
    metadata: Metadata | None = None


@_write("Refund.create", RefundCreate, "Refund a charge, in full or in part (POST /v1/refunds). Refused when the "
        "charge is failed, already refunded, disputed, or the amount is more than is left on it.")
def refund_create(ctx, args):
    if (args.charge is None) == (args.payment_intent is None):
        raise error("parameter_missing", "You must pass either charge or payment_intent.", "charge")
    if args.charge is not None:
        ch = get(ctx.store, "charges", args.charge, "charge", "charge")
    else:
        pi = get(ctx.store, "payment_intents", args.payment_intent, "payment_intent", "payment_intent")
        ch = get(ctx.store, "charges", pi["latest_charge"] or "", "charge", "payment_intent")
    if ch["status"] != "succeeded":
        raise error("charge_not_refundable", f"Charge {ch['id']} has not succeeded, so there is nothing to refund.",
                    "charge")
    dispute = ctx.store.get("disputes", ch["dispute"]) if ch["dispute"] else None
    if dispute is not None and dispute["status"] not in ("won", "warning_closed"):
        raise error("charge_disputed", f"Charge {ch['id']} has been charged back; you cannot refund it. Respond to "
                    f"the dispute {dispute['id']} instead.", "charge")
    left = ch["amount"] - ch["amount_refunded"]
    if left <= 0:
        raise error("charge_already_refunded", f"Charge {ch['id']} has already been refunded.", "charge")
    amount = left if args.amount is None else args.amount
    if amount > left:
        raise error("amount_too_large", f"Refund amount (${amount / 100:.2f}) is greater than unrefunded amount on "
                    f"charge (${left / 100:.2f})", "amount")
    now, rid = _now(ctx), _id(ctx, "refunds", "re")
    txn = _id(ctx, "balance_transactions", "txn")
    ctx.store.insert("balance_transactions", txn, {
        "id": txn, "object": "balance_transaction", "amount": -amount, "fee": 0, "net": -amount, "currency": "usd",
        "type": "refund", "reporting_category": "refund", "source": rid, "description": "REFUND FOR CHARGE",
        "created": now, "available_on": now, "status": "available", "payout": None})
    refund = {"id": rid, "object": "refund", "amount": amount, "charge": ch["id"],
              "payment_intent": ch["payment_intent"], "currency": "usd", "reason": args.reason,
              "status": "succeeded", "created": now, "balance_transaction": txn,
              "metadata": _meta({}, args.metadata)}
    ctx.store.insert("refunds", rid, refund)
    refunded = ch["amount_refunded"] + amount
    ch = ctx.store.update("charges", ch["id"], {"amount_refunded": refunded, "refunded": refunded == ch["amount"]})
    _event(ctx, "charge.refunded", ch)
    return refund


# -- customers -----------------------------------------------------------------------------------------------------


class InvoiceSettings(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    default_payment_method: Annotated[Id, Meta(description="The payment method (pm_...) invoices are charged "
                                                           "to.")] | None = None


class CustomerFields(Write, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=256)] | None = None
    email: Annotated[str, Meta(min_length=3, max_length=512, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")] | None = None
    description: Annotated[str, Meta(max_length=350, description="Tallyroom writes the company name here.")] | None = None
    invoice_settings: InvoiceSettings | None = None
    metadata: Metadata | None = None


class CustomerModify(CustomerFields, kw_only=True):
    id: Annotated[Id, Meta(description="The customer's id.")]


@_write("Customer.create", CustomerFields, "Create a customer (POST /v1/customers) with name, email and "
        "description.")
def customer_create(ctx, args):
    if args.invoice_settings is not None and args.invoice_settings.default_payment_method is not None:
        raise error("resource_missing", "A new customer has no payment methods yet.",
                    "invoice_settings[default_payment_method]")
    cid = _id(ctx, "customers", "cus")
    rec = {"id": cid, "object": "customer", "name": args.name, "email": args.email, "description": args.description,
           "created": _now(ctx), "currency": "usd", "balance": 0, "delinquent": False, "discount": None,
           "invoice_settings": {"default_payment_method": None}, "metadata": _meta({}, args.metadata)}
    ctx.store.insert("customers", cid, rec)
    _event(ctx, "customer.created", rec)
    return view(ctx.store, rec)


@_write("Customer.modify", CustomerModify, "Update a customer (POST /v1/customers/{id}): name, email, description, "
        "metadata, invoice_settings.default_payment_method (one of the customer's own cards).")
def customer_modify(ctx, args):
    cus = get(ctx.store, "customers", args.id, "customer")
    fields = {k: getattr(args, k) for k in ("name", "email", "description") if getattr(args, k) is not None}
    if args.invoice_settings is not None and args.invoice_settings.default_payment_method is not None:
        _own_pm(ctx, cus, args.invoice_settings.default_payment_method, "invoice_settings[default_payment_method]")
        fields["invoice_settings"] = {"default_payment_method": args.invoice_settings.default_payment_method}
    if args.metadata is not None:
        fields["metadata"] = _meta(cus["metadata"], args.metadata)
    cus = ctx.store.update("customers", cus["id"], fields)
    _event(ctx, "customer.updated", cus)
    return view(ctx.store, cus)


# -- invoices ------------------------------------------------------------------------------------------------------


class InvoiceAction(Write, kw_only=True):
    id: Annotated[Id, Meta(description="The invoice's id.")]


class InvoicePay(InvoiceAction, kw_only=True):
    payment_method: Annotated[Id, Meta(description="The card to charge; default the customer's "
                                                   "invoice_settings.default_payment_method.")] | None = None


def _open_invoice(ctx, rid: str, verb: str) -> dict:
    inv = get(ctx.store, "invoices", rid, "invoice")
    if inv["status"] != "open":
        raise error("invoice_not_editable", f"You can only {verb} an open invoice; invoice {rid} is {inv['status']}.",
                    "id")
    return inv


@_write("Invoice.pay", InvoicePay, "Attempt payment of an open invoice now (POST /v1/invoices/{id}/pay), on the "
        "given card or the customer's default. A declined card is a card_error (HTTP 402) with a decline_code, and "
        "changes nothing.")
def invoice_pay(ctx, args):
    inv = _open_invoice(ctx, args.id, "pay")
    cus = ctx.store.get("customers", inv["customer"])
    pm_id = args.payment_method or cus["invoice_settings"]["default_payment_method"]
    if pm_id is None:
        raise error("parameter_missing", "The customer has no default payment method; pass "
                    "payment_method.", "payment_method")
    pm = _own_pm(ctx, cus, pm_id, "payment_method")
    declined = decline(pm, _now(ctx))
    if declined is not None:
        raise error("card_declined", declined[1], kind="card_error", status=402, decline_code=declined[0],
                    param="payment_method")
    now, amount = _now(ctx), inv["amount_remaining"]
    ch_id, pi_id, txn = _id(ctx, "charges", "ch"), _id(ctx, "payment_intents", "pi"), _id(ctx, "balance_transactions",
                                                                                            "txn")
    desc = f"Invoice {inv['number']}"
    ctx.store.insert("payment_intents", pi_id, {
        "id": pi_id, "object": "payment_intent", "amount": amount, "currency": "usd", "customer": cus["id"],
        "description": desc, "created": now, "payment_method": pm["id"], "invoice": inv["id"], "latest_charge": ch_id,
        "status": "succeeded", "metadata": {}})
    ctx.store.insert("balance_transactions", txn, {
        "id": txn, "object": "balance_transaction", "amount": amount, "fee": fee(amount), "net": amount - fee(amount),
        "currency": "usd", "type": "charge", "reporting_category": "charge", "source": ch_id, "description": desc,
        "created": now, "available_on": now + 2 * 86_400, "status": "pending", "payout": None})
    card = pm["card"]
    charge = {"id": ch_id, "object": "charge", "amount": amount, "amount_captured": amount, "amount_refunded": 0,
              "refunded": False, "captured": True, "paid": True, "status": "succeeded", "currency": "usd",
              "customer": cus["id"], "description": desc, "invoice": inv["id"], "payment_intent": pi_id,
              "payment_method": pm["id"], "payment_method_details": {"type": "card", "card": {
                  "brand": card["brand"], "last4": card["last4"], "exp_month": card["exp_month"],
                  "exp_year": card["exp_year"]}},
              "failure_code": None, "failure_message": None,
              "outcome": {"type": "authorized", "network_status": "approved_by_network", "decline_code": None,
                          "seller_message": "Payment complete."},
              "disputed": False, "dispute": None, "balance_transaction": txn, "created": now, "metadata": {}}
    ctx.store.insert("charges", ch_id, charge)
    inv = ctx.store.update("invoices", inv["id"], {
        "status": "paid", "amount_paid": inv["amount_paid"] + amount, "amount_remaining": 0, "charge": ch_id,
        "payment_intent": pi_id, "attempt_count": inv["attempt_count"] + 1, "attempted": True,
        "status_transitions": {**inv["status_transitions"], "paid_at": now}})
    sub = ctx.store.get("subscriptions", inv["subscription"]) if inv["subscription"] else None
    if sub is not None and sub["status"] in ("past_due", "unpaid", "incomplete"):
        sub = ctx.store.update("subscriptions", sub["id"], {"status": "active"})
        _event(ctx, "customer.subscription.updated", sub)
    still_open = [i for _, i in ctx.store.scan("invoices", {"customer": cus["id"], "status": "open"})]
    if cus["delinquent"] and not still_open:
        ctx.store.update("customers", cus["id"], {"delinquent": False})
    _event(ctx, "charge.succeeded", charge)
    _event(ctx, "invoice.paid", inv)
    return view(ctx.store, inv)


@_write("Invoice.void_invoice", InvoiceAction, "Void an open invoice (POST /v1/invoices/{id}/void): for an invoice "
        "issued by mistake; it can no longer be paid. Cannot be undone.")
def invoice_void(ctx, args):
    inv = _open_invoice(ctx, args.id, "void")
    inv = ctx.store.update("invoices", inv["id"], {"status": "void", "amount_remaining": 0, "status_transitions": {
        **inv["status_transitions"], "voided_at": _now(ctx)}})
    _event(ctx, "invoice.voided", inv)
    return view(ctx.store, inv)


@_write("Invoice.mark_uncollectible", InvoiceAction, "Mark an open invoice uncollectible (POST "
        "/v1/invoices/{id}/mark_uncollectible): a real debt written off as bad debt.")
def invoice_mark_uncollectible(ctx, args):
    inv = _open_invoice(ctx, args.id, "mark uncollectible")
    inv = ctx.store.update("invoices", inv["id"], {"status": "uncollectible", "status_transitions": {
        **inv["status_transitions"], "marked_uncollectible_at": _now(ctx)}})
    _event(ctx, "invoice.marked_uncollectible", inv)
    return view(ctx.store, inv)


# -- disputes ------------------------------------------------------------------------------------------------------

Evidence = msgspec.defstruct("Evidence", [(f, Annotated[str, Meta(max_length=20_000)] | None, None)
                                         for f in EVIDENCE_FIELDS], kw_only=True, forbid_unknown_fields=True)


class DisputeModify(Write, kw_only=True):
    id: Annotated[Id, Meta(description="The dispute's id.")]
    evidence: Annotated[Evidence, Meta(description="Evidence fields to set (text), e.g. customer_email_address, "
                                                   "product_description, service_date, access_activity_log.")] | None = None
    submit: Annotated[bool, Meta(description="Submit the evidence to the bank now (default true); false stages "
                                             "it.")] = True
    metadata: Metadata | None = None


class DisputeClose(Write, kw_only=True):
    id: Annotated[Id, Meta(description="The dispute's id.")]


def _answerable(ctx, rid: str) -> dict:
    dp = get(ctx.store, "disputes", rid, "dispute")
    if dp["status"] not in ("needs_response", "warning_needs_response"):
        raise error("dispute_not_open", f"Dispute {rid} is {dp['status']}; it no longer takes evidence.", "id")
    if dp["evidence_details"]["due_by"] < _now(ctx):
        raise error("dispute_past_due", f"Dispute {rid}'s evidence was due at {dp['evidence_details']['due_by']}; "
                    "the deadline has passed.", "id")
    return dp


@_write("Dispute.modify", DisputeModify, "Add evidence to a dispute and (by default) submit it (POST "
        "/v1/disputes/{id}). Refused once the deadline (evidence_details.due_by) has passed.")
def dispute_modify(ctx, args):
    dp = _answerable(ctx, args.id)
    given = {k: v for k, v in msgspec.to_builtins(args.evidence or Evidence()).items() if v is not None}
    fields = {"evidence": {**dp["evidence"], **given}, "metadata": _meta(dp["metadata"], args.metadata)}
    details = dict(dp["evidence_details"])
    details["has_evidence"] = details["has_evidence"] or bool(given)
    if args.submit:
        details["submission_count"] += 1
        fields["status"] = "under_review" if dp["status"] == "needs_response" else "warning_under_review"
    fields["evidence_details"] = details
    dp = ctx.store.update("disputes", dp["id"], fields)
    _event(ctx, "charge.dispute.updated", dp)
    return dp


@_write("Dispute.close", DisputeClose, "Close a dispute: accept it and give up the money (POST "
        "/v1/disputes/{id}/close). Cannot be undone.")
def dispute_close(ctx, args):
    dp = _answerable(ctx, args.id)
    dp = ctx.store.update("disputes", dp["id"], {
        "status": "lost" if dp["status"] == "needs_response" else "warning_closed"})
    _event(ctx, "charge.dispute.closed", dp)
    return dp


TOOLS = [refund_create, customer_create, customer_modify, invoice_pay, invoice_void, invoice_mark_uncollectible,
         dispute_modify, dispute_close]
