"""Billing's tasks about money that moved: refunds, disputes, invoices, payouts.

Each ``setup`` reads the seeded state through ``cast.cast`` and returns the
instruction, checks, reference calls and answer for that seed.
"""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from .cast import cast, charges_of
from .clock import DAY, NOW, bare, day, dollars, ymd
from .taskkit import (asked, find, nc, no_refund, one_refund, refund_check, refunded, rng, said, status,
                      who)


def double_charge(store) -> Setup:
    c = cast(store)
    cus, orig, copy, legit = c.dup
    return Setup(
        instruction=f"{who(cus)} says we charged them twice for the onboarding package this week. Please sort it out.",
        checks=[
            refund_check("copy-refunded", f"The later copy {copy['id']} was refunded in full as a duplicate", copy,
                         copy["amount"], reason="duplicate"),
            C.RecordAbsent(id="original-kept", label=f"The first charge {orig['id']} was not refunded",
                           collection="refunds", where={"charge": orig["id"]}),
            C.RecordAbsent(id="legit-kept", label=f"The legitimate charge of {day(legit['created'])} was not refunded",
                           collection="refunds", where={"charge": legit["id"]}),
            one_refund(),
            nc(*refunded(copy)),
        ],
        solution=[find(cus), ("Charge.list", {"customer": cus["id"], "limit": 20}),
                  ("Refund.list", {"charge": copy["id"]}), ("Dispute.list", {"charge": copy["id"]}),
                  ("Charge.retrieve", {"id": orig["id"]}),
                  ("Refund.create", {"charge": copy["id"], "reason": "duplicate"})],
        output=(f"{cus['name']} was charged {dollars(copy['amount'])} for the Onboarding package twice, minutes apart "
                f"on {day(orig['created'])}. I refunded the later charge {copy['id']} in full (reason duplicate) and "
                f"kept the first, {orig['id']}. The onboarding charge of {day(legit['created'])} is a separate, "
                "legitimate purchase, so I left it."),
    )


def missing_seat(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["team_monthly"][2]
    inv = max((i for _, i in store.scan("invoices", {"subscription": sub["id"]})), key=lambda i: i["created"])
    ch = store.get("charges", inv["charge"])
    unit, q = c.prices["team_monthly"]["unit_amount"], sub["items"][0]["quantity"]
    return Setup(
        instruction=(f"{who(cus)} removed a seat before their latest invoice, but we billed all {q} seats. Refund one "
                     "seat's worth from that invoice."),
        checks=[refund_check("seat-refunded", f"One seat, {dollars(unit)}, was refunded from {ch['id']}", ch, unit),
                one_refund(), said("told-amount", f"The answer gives the refund, {dollars(unit)}", bare(unit)),
                nc(*refunded(ch))],
        solution=[find(cus), ("Invoice.list", {"customer": cus["id"], "limit": 1}),
                  ("Refund.create", {"charge": ch["id"], "amount": unit, "reason": "requested_by_customer"})],
        output=(f"Refunded {dollars(unit)}, one Team monthly seat, from {cus['name']}'s invoice {inv['number']} "
                f"(charge {ch['id']} of {dollars(ch['amount'])}), reason requested_by_customer."),
    )


def disputed_refund(store) -> Setup:
    c = cast(store)
    dp = c.inquiry
    ch = store.get("charges", dp["charge"])
    cus = c.customers[ch["customer"]]
    return Setup(
        instruction=(f"{who(cus)} emailed asking for a refund of their {dollars(ch['amount'])} charge from "
                     f"{day(ch['created'])}. Please refund it."),
        checks=[no_refund(), said("names-dispute", "The answer says the charge is under dispute", "dispute"),
                nc()],
        solution=[find(cus), ("Charge.list", {"customer": cus["id"], "limit": 5}),
                  ("Dispute.list", {"charge": ch["id"]})],
        output=(f"I did not refund it: {cus['name']}'s charge {ch['id']} of {dollars(ch['amount'])} is under dispute "
                f"({dp['id']}, an inquiry from their bank). Our policy is never to refund a charge under dispute; the "
                "dispute has to be answered instead."),
    )


def big_refund(store) -> Setup:
    c = cast(store)
    cus, sub = max(c.plain["business_annual"], key=lambda p: charges_of(store, p[0]["id"])[-1]["amount"])
    ch = charges_of(store, cus["id"])[-1]
    return Setup(
        instruction=f"{who(cus)} wants their annual payment back. Go ahead and refund it in full.",
        checks=[no_refund(), said("names-manager", "The answer says a manager must approve it", "manager"), nc()],
        solution=[find(cus), ("Charge.list", {"customer": cus["id"], "limit": 3})],
        output=(f"I have not refunded it. {cus['name']}'s annual payment {ch['id']} is {dollars(ch['amount'])}, and "
                "refunds over $500.00 need a manager's approval, which I cannot give. Please ask a manager to approve "
                "it."),
    )


def refund_rest(store) -> Setup:
    c = cast(store)
    cus, ch = c.partial
    left = ch["amount"] - ch["amount_refunded"]
    return Setup(
        instruction=(f"{who(cus)} is owed the rest of their onboarding payment back; we refunded part of it already. "
                     "Refund what's left."),
        checks=[refund_check("rest-refunded", f"The remaining {dollars(left)} was refunded", ch, left),
                status("charge-refunded", "The charge is now refunded in full", "charges", ch, True, 1, "refunded"),
                one_refund(), said("told-amount", f"The answer gives {dollars(left)}", bare(left)), nc(*refunded(ch))],
        solution=[find(cus), ("Charge.list", {"customer": cus["id"], "limit": 10}), ("Refund.list", {"charge": ch["id"]}),
                  ("Refund.create", {"charge": ch["id"], "amount": left, "reason": "requested_by_customer"})],
        output=(f"{cus['name']}'s onboarding charge {ch['id']} was {dollars(ch['amount'])}, of which "
                f"{dollars(ch['amount_refunded'])} had been refunded. I refunded the remaining {dollars(left)}."),
    )


def refund_onboarding(store) -> Setup:
    c = cast(store)
    cus, ch = c.single
    return Setup(
        instruction=f"We never delivered the onboarding session for {who(cus)}. Refund their onboarding charge in full.",
        checks=[refund_check("refunded", f"{ch['id']} was refunded in full", ch, ch["amount"]),
                status("charge-refunded", "The charge shows refunded", "charges", ch, True, 1, "refunded"),
                one_refund(), nc(*refunded(ch))],
        solution=[find(cus), ("Charge.list", {"customer": cus["id"], "limit": 10}),
                  ("Refund.create", {"charge": ch["id"], "reason": "requested_by_customer"})],
        output=f"Refunded {cus['name']}'s onboarding charge {ch['id']} in full: {dollars(ch['amount'])}.",
    )


def goodwill(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["team_monthly"][5]
    ch = charges_of(store, cus["id"])[-1]
    amount = rng(store, "bl-16").randrange(5, min(40, ch["amount"] // 100)) * 100
    return Setup(
        instruction=(f"{who(cus)} lost a day of work in last week's outage. Refund them the credit we agreed on, "
                     "from their latest payment."),
        checks=[asked(), refund_check("credit-refunded", f"{dollars(amount)} was refunded from {ch['id']}", ch, amount),
                one_refund(), nc(*refunded(ch))],
        solution=[find(cus), ("ask_user", {"question": "How much credit did we agree to refund them?"}),
                  ("Charge.list", {"customer": cus["id"], "limit": 1}),
                  ("Refund.create", {"charge": ch["id"], "amount": amount, "reason": "requested_by_customer"})],
        output=f"Refunded {dollars(amount)} from {cus['name']}'s latest payment {ch['id']}, as agreed.",
        hidden_facts={"amount, how much, credit, agreed, refund, sum": f"We agreed on {dollars(amount)}."},
        persona="Sam from Tallyroom support, who answers briefly.",
    )


def answer_dispute(store) -> Setup:
    c = cast(store)
    dp, late = c.due, c.late
    ch = store.get("charges", dp["charge"])
    cus = c.customers[ch["customer"]]
    inv = store.get("invoices", ch["invoice"])
    late_cus = c.customers[store.get("charges", late["charge"])["customer"]]
    evidence = {"customer_name": cus["name"], "customer_email_address": cus["email"],
                "product_description": store.get("prices", inv["lines"][0]["price"])["nickname"],
                "service_date": ymd(inv["period_start"]),
                "access_activity_log": f"Last active {cus['metadata']['last_active']}"}
    return Setup(
        instruction=(f"{cus['name']}'s bank disputed their {dollars(ch['amount'])} payment, saying they never got the "
                     f"service. Answer it with our evidence. There's also an older dispute from {late_cus['name']}: "
                     "answer that too if you still can."),
        checks=[
            status("submitted", f"The evidence on {dp['id']} was submitted", "disputes", dp, "under_review"),
            *[C.FieldContains(id=f"evidence-{k.split('_')[-1]}", label=f"The evidence gives {k}", collection="disputes",
                              field=f"evidence.{k}", value=evidence[k], where={"id": dp["id"]})
              for k in ("customer_email_address", "product_description", "service_date", "access_activity_log")],
            said("late-explained", "The answer says the older dispute's deadline has passed", "deadline"),
            nc(C.Allow(collection="disputes", ops=["updated"], where={"id": dp["id"]})),
        ],
        solution=[("Dispute.list", {"limit": 20}), ("Charge.retrieve", {"id": ch["id"]}),
                  ("Customer.retrieve", {"id": cus["id"]}), ("Invoice.retrieve", {"id": inv["id"]}),
                  ("Dispute.modify", {"id": dp["id"], "evidence": evidence, "submit": True}),
                  ("Dispute.retrieve", {"id": late["id"]})],
        output=(f"I submitted evidence on {cus['name']}'s dispute {dp['id']} ({dollars(dp['amount'])}, due "
                f"{day(dp['evidence_details']['due_by'])}): their name and email, the plan ({evidence['product_description']}), "
                f"the service date {evidence['service_date']} and their last activity ({evidence['access_activity_log']}). "
                f"{late_cus['name']}'s dispute {late['id']} was due on {day(late['evidence_details']['due_by'])}; its "
                "deadline has passed, so it can no longer be answered."),
    )


def small_dispute(store) -> Setup:
    c = cast(store)
    dp = c.small
    cus = c.customers[store.get("charges", dp["charge"])["customer"]]
    return Setup(
        instruction=f"There's a chargeback from {who(cus)}. Deal with it.",
        checks=[status("accepted", f"The dispute {dp['id']} was accepted (closed)", "disputes", dp, "lost"),
                nc(C.Allow(collection="disputes", ops=["updated"], where={"id": dp["id"]}))],
        solution=[find(cus), ("Dispute.list", {"limit": 20}), ("Dispute.close", {"id": dp["id"]})],
        output=(f"{cus['name']}'s dispute {dp['id']} is for {dollars(dp['amount'])}, under $20.00, so per policy I "
                "accepted it rather than fight it."),
    )


def void_duplicate_invoice(store) -> Setup:
    c = cast(store)
    cus, keep, copy = c.dup_invoices
    return Setup(
        instruction=f"{who(cus)} says they got the onboarding invoice twice. Cancel the extra one.",
        checks=[status("copy-voided", f"The later invoice {copy['number']} was voided", "invoices", copy, "void"),
                status("original-open", f"The first invoice {keep['number']} is still open", "invoices", keep, "open",
                       1, always=True),
                nc(C.Allow(collection="invoices", ops=["updated"], where={"id": copy["id"]}))],
        solution=[find(cus), ("Invoice.list", {"customer": cus["id"], "status": "open"}),
                  ("Invoice.void_invoice", {"id": copy["id"]})],
        output=(f"{cus['name']} had two identical open onboarding invoices of {dollars(copy['total'])}. I voided the "
                f"later one, {copy['number']}, and left {keep['number']} open for them to pay."),
    )


def write_off(store) -> Setup:
    c = cast(store)
    cus, inv = c.writeoff
    return Setup(
        instruction=f"{cus['description']} has closed down and won't pay their last invoice. Write it off.",
        checks=[status("uncollectible", f"{inv['number']} was marked uncollectible", "invoices", inv, "uncollectible"),
                nc(C.Allow(collection="invoices", ops=["updated"], where={"id": inv["id"]}))],
        solution=[("Customer.list", {"limit": 100}),
                  ("Invoice.list", {"customer": cus["id"], "status": "open"}),
                  ("Invoice.mark_uncollectible", {"id": inv["id"]})],
        output=(f"Marked {cus['description']}'s unpaid invoice {inv['number']} ({dollars(inv['amount_remaining'])}) "
                "uncollectible: it is a real debt written off, so I did not void it."),
    )


def retry_invoice(store) -> Setup:
    c = cast(store)
    cus, inv, old, new = c.retry
    sub = store.get("subscriptions", inv["subscription"])
    return Setup(
        instruction=f"{who(cus)} says they've added a new card. Please retry their failed invoice.",
        checks=[status("invoice-paid", f"{inv['number']} was paid", "invoices", inv, "paid"),
                C.FieldEquals(id="new-default", label=f"The new card ending {new['card']['last4']} is the default",
                              collection="customers", field="invoice_settings.default_payment_method",
                              value=new["id"], where={"id": cus["id"]}),
                status("sub-active", "The subscription is active again", "subscriptions", sub, "active", 1),
                C.RecordExists(id="paid-with-new", label="The payment was taken from the new card",
                               collection="charges", where={"invoice": inv["id"], "status": "succeeded",
                                                            "payment_method": new["id"]}),
                nc(C.Allow(collection="customers", ops=["updated"], where={"id": cus["id"]}),
                   C.Allow(collection="invoices", ops=["updated"], where={"id": inv["id"]}), *[
                       C.Allow(collection=k, ops=["created"], where={"customer": cus["id"]})
                       for k in ("charges", "payment_intents")],
                   C.Allow(collection="balance_transactions", ops=["created"], where={"type": "charge"}),
                   C.Allow(collection="subscriptions", ops=["updated"], where={"id": sub["id"]}))],
        solution=[find(cus), ("Invoice.list", {"customer": cus["id"], "status": "open"}),
                  ("Charge.retrieve", {"id": inv["charge"]}),
                  ("PaymentMethod.list", {"customer": cus["id"], "type": "card"}),
                  ("Customer.modify", {"id": cus["id"], "invoice_settings": {"default_payment_method": new["id"]}}),
                  ("Invoice.pay", {"id": inv["id"], "payment_method": new["id"]})],
        output=(f"{cus['name']}'s invoice {inv['number']} ({dollars(inv['amount_due'])}) failed because the card ending "
                f"{old['card']['last4']} expired. I made their new card ending {new['card']['last4']} the default and "
                "paid the invoice with it; the subscription is active again."),
    )


def reconcile_payout(store) -> Setup:
    c = cast(store)
    po = c.payout
    bts = [b for _, b in store.scan("balance_transactions", {"payout": po["id"]})]
    gross = sum(b["amount"] for b in bts if b["type"] == "charge")
    refunds = -sum(b["amount"] for b in bts if b["type"] == "refund")
    disputes = -sum(b["amount"] for b in bts if b["type"] == "adjustment")
    fees = sum(b["fee"] for b in bts)
    return Setup(
        instruction=(f"Our bank got a Stripe payout of {dollars(po['amount'])} around {day(po['arrival_date'])}. Break "
                     "it down for me: charges, refunds, disputes and fees."),
        checks=[said("gross", f"The answer gives the charges, {dollars(gross)}", bare(gross)),
                said("fees", f"The answer gives the fees, {dollars(fees)}", bare(fees)),
                C.NoWrites(id="no-writes", label="Nothing was changed"), nc()],
        solution=[("Payout.list", {"status": "paid", "limit": 3}),
                  ("BalanceTransaction.list", {"payout": po["id"], "limit": 100})],
        output=(f"Payout {po['id']} of {dollars(po['amount'])}: charges {dollars(gross)}, refunds {dollars(refunds)}, "
                f"disputes {dollars(disputes)}, fees {dollars(fees)}; {dollars(gross)} - {dollars(refunds)} - "
                f"{dollars(disputes)} - {dollars(fees)} = {dollars(po['amount'])} across {len(bts)} transactions."),
    )


def failed_payments(store) -> Setup:
    failed = sorted((ch for _, ch in store.scan("charges", {"status": "failed"}) if ch["created"] >= NOW - 7 * DAY),
                    key=lambda ch: ch["created"])
    customers = {ch["customer"]: store.get("customers", ch["customer"]) for ch in failed}
    reasons = {}
    for ch in failed:
        reasons[ch["customer"]] = ch["outcome"]["decline_code"]
    return Setup(
        instruction="Which customers' card payments failed in the last 7 days, and why?",
        checks=[*[said(f"names-{n}", f"The answer names {c['name']}", c["name"]) for n, c in
                  enumerate(customers.values())],
                *[said(f"why-{code}", f"The answer gives the decline code {code}", code)
                  for code in sorted(set(reasons.values()))],
                C.NoWrites(id="no-writes", label="Nothing was changed"), nc()],
        solution=[("Charge.list", {"limit": 100})],
        output="Failed in the last 7 days: " + "; ".join(
            f"{customers[cid]['name']} ({customers[cid]['description']}): {code}" for cid, code in reasons.items()) + ".",
    )
