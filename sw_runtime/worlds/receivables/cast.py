"""Who plays which part in a receivables start state, found by content alone.

The generator (``state.generate``) builds each situation once; ``cast``
finds it again from the records, so no answer key hides in the state.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from ..task import only
from .state import FINAL, FIRM, FRIENDLY, OPEN, days_overdue, tone_for


@dataclass(frozen=True)
class Cast:
    customers: dict  # id -> customer
    channels: dict  # name -> channel
    users: dict  # id -> slack user
    friendly: dict  # overdue invoices, one per dunning bucket ...
    firm: dict
    final: dict  # ... the final-notice one belongs to the key account
    disputed: dict
    wo_approved: dict  # long overdue, write-off approved ...
    wo_unapproved: dict  # ... and long overdue without approval
    amount_payment: dict  # an ACH with no memo: its amount matches one open invoice of its payer
    amount_invoice: dict
    memo_payment: dict  # a remittance that names its invoice
    memo_invoice: dict
    partial_payment: dict
    partial_invoice: dict
    question: dict  # the latest inbound message of the billing-question thread
    promise: dict  # the promise-to-pay email ...
    promise_invoice: dict
    promised_date: str
    complaint: dict  # the overcharge email ...
    review_invoice: dict
    webhooks: dict  # event -> webhook

    def billing(self, invoice: dict) -> dict:
        return next(c for c in self.customers[invoice["customer_uid"]]["contacts"] if c["role"] == "billing")

    def customer(self, invoice: dict) -> dict:
        return self.customers[invoice["customer_uid"]]


_one = partial(only, world="receivables")


def cast(store) -> Cast:
    invoices = [r for _, r in store.scan("invoices")]
    payments = [r for _, r in store.scan("payments")]
    emails = [r for _, r in store.scan("emails")]
    by_id = {r["id"]: r for r in invoices}
    overdue = [r for r in invoices if r["status"] == "overdue"]

    def bucket(tone, lo, hi):
        return _one([r for r in overdue if tone_for(days_overdue(r)) == tone and lo <= days_overdue(r) <= hi],
                    f"overdue invoice in the {tone} bucket")

    unapplied = [p for p in payments if p["status"] == "unapplied"]
    memo = _one([p for p in unapplied if p["memo"].startswith("Remittance ")], "remittance")
    partial = _one([p for p in unapplied if p["memo"].startswith("Part payment ")], "part payment")
    ach = _one([p for p in unapplied if p["memo"] == "ACH transfer"], "ACH transfer")

    def named(p):
        return _one([r for r in invoices if r["number"] in p["memo"]], "invoice named by a payment")

    amount_inv = _one([r for r in invoices if r["customer_uid"] == ach["customer_uid"] and r["status"] in OPEN
                       and r["total"] - r["amount_paid"] == ach["amount"]], "invoice matching the ACH")
    inbound = [e for e in emails if e["direction"] == "inbound"]
    question = max((e for e in inbound if e["subject"].startswith("RE: Question about")), key=lambda e: e["at"])
    promise = _one([e for e in inbound if e["subject"].startswith("Payment of ")], "promise to pay")
    complaint = _one([e for e in inbound if e["subject"].endswith(" looks wrong")], "overcharge email")
    promised = promise["body"].split(" in full on ")[1][:10]
    long_overdue = [r for r in overdue if days_overdue(r) >= 120]
    return Cast(
        customers={r["id"]: r for _, r in store.scan("customers")},
        channels={r["name"]: r for _, r in store.scan("slack_channels")},
        users={r["id"]: r for _, r in store.scan("slack_users")},
        friendly=bucket(FRIENDLY, 1, 14),
        firm=bucket(FIRM, 15, 44),
        final=bucket(FINAL, 45, 119),
        disputed=_one([r for r in invoices if r["status"] == "disputed"], "disputed invoice"),
        wo_approved=_one([r for r in long_overdue if r["write_off_approval"]], "approved write-off"),
        wo_unapproved=_one([r for r in long_overdue if not r["write_off_approval"]], "unapproved write-off"),
        amount_payment=ach, amount_invoice=amount_inv,
        memo_payment=memo, memo_invoice=named(memo),
        partial_payment=partial, partial_invoice=named(partial),
        question=question,
        promise=promise, promise_invoice=by_id[promise["context_id"]], promised_date=promised,
        complaint=complaint, review_invoice=by_id[complaint["context_id"]],
        webhooks={r["event"]: r for _, r in store.scan("webhooks")},
    )
