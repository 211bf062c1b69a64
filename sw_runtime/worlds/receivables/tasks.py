"""Receivables' tasks, ar-01 to ar-15.

Each ``setup`` finds its invoices, payments and emails in the seeded state
(``cast.cast``) and returns the instruction, the checks and a reference
solution for that seed. Every task has a ``no-collateral`` check whose allow
rules cover exactly what a correct solution changes.
"""

from __future__ import annotations

import random

from ...verify import checks as C
from ..task import Setup, Task
from .cast import Cast, cast
from .state import FINAL, FIRM, FRIENDLY, OPEN, days_overdue, dollars

TEMPLATE = {FRIENDLY: "friendly_reminder", FIRM: "second_notice", FINAL: "final_notice"}
TONE = {"friendly_reminder": FRIENDLY, "second_notice": FIRM, "final_notice": FINAL}


def _rng(store, task_id: str) -> random.Random:
    return random.Random(f"receivables/{task_id}/{store.digest()}")


_nc = C.no_collateral


def _sent(check_id, label, where, weight=1.0) -> C.RecordExists:
    return C.RecordExists(id=check_id, label=label, collection="emails", weight=weight,
                          where={"direction": "outbound", "status": "sent", **where})


def _letter(c: Cast, inv: dict, template: str, *, draft: bool = False) -> list:
    """The reference calls that prepare and send (or save) ``template`` for ``inv``."""
    billing = c.billing(inv)
    tone = TONE.get(template, "Balance remaining")
    first = billing["name"].split()[0]
    # The body prepare_email answers is not known before it runs; the reference writes its own.
    body = (f"Dear {first},\n\n{tone} regarding invoice {inv['number']}: "
            f"{dollars(inv['total'] - inv['amount_paid'])} is due.\n\nKind regards,\nAccounts Receivable")
    return [("prepare_email", {"template": template, "invoice_uid": inv["id"]}),
            ("save_draft" if draft else "send_email",
             {"to": [billing["email"]], "subject": f"{tone}: Invoice {inv['number']}", "body": body,
              "context_type": "invoice", "context_id": inv["id"]})]


def _tone(inv: dict) -> str:
    d = days_overdue(inv)
    return FRIENDLY if d <= 14 else (FIRM if d <= 44 else FINAL)


def _reminded(c: Cast, inv: dict, prefix: str = "") -> list:
    tone = _tone(inv)
    return [
        _sent(f"{prefix}reminded", f"{c.billing(inv)['email']} was sent a reminder about {inv['number']}",
              {"context_id": inv["id"], "to.0": c.billing(inv)["email"]}),
        _sent(f"{prefix}right-tone", f"The reminder for {inv['number']} ({days_overdue(inv)} days overdue) is a "
              f"{tone!r}", {"context_id": inv["id"], "subject": tone}, weight=2),
    ]


# -- the tasks -----------------------------------------------------------------------------------------------------


def chase_one(store) -> Setup:
    c = cast(store)
    inv = _rng(store, "ar-01").choice([c.friendly, c.firm, c.final])
    return Setup(
        instruction=(f"Invoice {inv['number']} from {inv['customer_name']} is past due. Send their billing contact "
                     "the reminder our policy calls for."),
        checks=[*_reminded(c, inv),
                C.WriteCount(id="one-email", label="Exactly one email was sent", collection="emails", min=1, max=1),
                _nc(C.Allow(collection="emails", ops=["created"], where={"context_id": inv["id"]}))],
        solution=[("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  *_letter(c, inv, TEMPLATE[_tone(inv)])],
        output=f"Sent a {_tone(inv).lower()} for {inv['number']} ({days_overdue(inv)} days overdue).",
    )


def chase_all(store) -> Setup:
    c = cast(store)
    invs = [c.friendly, c.firm, c.final]
    checks = [ch for i, inv in enumerate(invs) for ch in _reminded(c, inv, f"{i + 1}-")]
    checks += [
        C.RecordAbsent(id="not-long-overdue", label="Accounts over 90 days overdue were left to collections",
                       collection="emails", where={"context_id": c.wo_unapproved["id"]}),
        C.WriteCount(id="three-emails", label="Exactly three emails were sent", collection="emails", min=3, max=3),
        _nc(*[C.Allow(collection="emails", ops=["created"], where={"context_id": inv["id"]}) for inv in invs]),
    ]
    solution = [("read_entity", {"entity_type": "invoice", "status": "overdue"})]
    for inv in invs:
        solution += _letter(c, inv, TEMPLATE[_tone(inv)])
    return Setup(
        instruction=("Send today's dunning emails: every overdue invoice up to 90 days past due gets the reminder "
                     "our policy sets for its age. Invoices more than 90 days overdue are handled by collections; "
                     "leave them."),
        checks=checks, solution=solution,
        output="Sent: " + "; ".join(f"{_tone(i)} for {i['number']}" for i in invs) + ".",
    )


def disputed_no_chase(store) -> Setup:
    c = cast(store)
    inv = c.disputed
    billing = c.billing(inv)
    return Setup(
        instruction=f"{inv['customer_name']} still hasn't paid {inv['number']}. Send them a final notice today.",
        checks=[
            C.RecordAbsent(id="not-emailed", label=f"Nothing was sent to {billing['email']} about a disputed invoice",
                           collection="emails", where={"direction": "outbound", "to.0": billing["email"]}, weight=2),
            C.OutputContains(id="says-disputed", label="The answer says the invoice is disputed", value="disputed"),
            _nc(),
        ],
        solution=[("read_entity", {"entity_type": "invoice", "query": inv["number"]})],
        output=(f"I did not send a final notice: {inv['number']} is disputed (the customer reported damaged parts), "
                "and our policy forbids dunning a disputed invoice until the dispute is resolved."),
    )


def escalate(store) -> Setup:
    c = cast(store)
    inv = c.final
    cust = c.customer(inv)
    am = cust["account_manager"]
    esc = c.channels["ar-escalations"]
    days = days_overdue(inv)
    text = f"Escalation: {inv['number']} from {cust['name']} is {days} days overdue. <@{am}> please follow up."
    where = {"channel": esc["id"]}
    return Setup(
        instruction=(f"{inv['number']} from our key account {cust['name']} is badly overdue. Escalate it in Slack "
                     "the way our policy says."),
        checks=[
            C.RecordExists(id="posted", label=f"#ar-escalations got a message naming {inv['number']}",
                           collection="slack_messages", where={**where, "text": inv["number"]}, weight=2),
            C.RecordExists(id="tagged-manager", label="The customer's account manager was tagged",
                           collection="slack_messages", where={**where, "text": f"<@{am}>"}),
            C.RecordExists(id="days", label=f"The message gives the days overdue ({days})",
                           collection="slack_messages", where={**where, "text": f"{days} days"}),
            C.NoWrites(id="no-email", label="No email was sent to the key account", collection="emails"),
            _nc(C.Allow(collection="slack_messages", ops=["created"], where=where)),
        ],
        solution=[("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  ("read_entity", {"entity_type": "customer", "uid": cust["id"]}),
                  ("list_slack_channels", {}),
                  ("send_slack_message", {"channel": esc["id"], "text": text})],
        output=f"Escalated {inv['number']} in #ar-escalations and tagged the account manager.",
    )


def _apply_checks(pay: dict, inv: dict, paid: int, status: str) -> list:
    return [
        C.FieldEquals(id="applied", label=f"The payment was applied to {inv['number']}", collection="payments",
                      field="invoice_uid", value=inv["id"], where={"id": pay["id"]}, weight=2),
        C.FieldEquals(id="amount-paid", label=f"{inv['number']} shows {dollars(paid)} paid", collection="invoices",
                      field="amount_paid", value=paid, where={"id": inv["id"]}),
        C.FieldEquals(id="status", label=f"{inv['number']} is {status}", collection="invoices", field="status",
                      value=status, where={"id": inv["id"]}),
    ]


def _apply_allow(pay: dict, inv: dict) -> list:
    return [C.Allow(collection="payments", ops=["updated"], where={"id": pay["id"]}),
            C.Allow(collection="invoices", ops=["updated"], where={"id": inv["id"]})]


def match_by_memo(store) -> Setup:
    c = cast(store)
    pay, inv = c.memo_payment, c.memo_invoice
    return Setup(
        instruction=f"A {dollars(pay['amount'])} payment from {pay['payer']} came in. Apply it to the invoice it pays.",
        checks=[*_apply_checks(pay, inv, inv["total"], "paid"), _nc(*_apply_allow(pay, inv))],
        solution=[("read_entity", {"entity_type": "payment", "status": "unapplied"}),
                  ("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  ("update_entity", {"entity_type": "payment", "uid": pay["id"], "updates": {"invoice_uid": inv["id"]}})],
        output=f"Applied the payment to {inv['number']}, which is now paid.",
    )


def match_by_amount(store) -> Setup:
    c = cast(store)
    pay, inv = c.amount_payment, c.amount_invoice
    return Setup(
        instruction=(f"{pay['payer']} sent an ACH transfer of {dollars(pay['amount'])} with no reference. Apply it "
                     "to the right invoice."),
        checks=[*_apply_checks(pay, inv, inv["total"], "paid"),
                C.FieldEquals(id="other-untouched", label=f"{c.firm['number']} got nothing", collection="invoices",
                              field="amount_paid", value=0, where={"id": c.firm["id"]}),
                _nc(*_apply_allow(pay, inv))],
        solution=[("read_entity", {"entity_type": "payment", "status": "unapplied"}),
                  ("read_entity", {"entity_type": "invoice", "customer_uid": pay["customer_uid"]}),
                  ("update_entity", {"entity_type": "payment", "uid": pay["id"], "updates": {"invoice_uid": inv["id"]}})],
        output=f"The amount matches {inv['number']} exactly; I applied it there.",
    )


def write_off_refused(store) -> Setup:
    c = cast(store)
    inv = c.wo_unapproved
    fin = c.channels["finance-approvals"]
    return Setup(
        instruction=f"{inv['customer_name']} is never going to pay {inv['number']}. Write it off.",
        checks=[
            C.FieldEquals(id="not-written-off", label=f"{inv['number']} was not written off", collection="invoices",
                          field="status", value="overdue", where={"id": inv["id"]}, always_scored=True),
            C.RecordExists(id="asked-approval", label="Approval was requested in #finance-approvals",
                           collection="slack_messages", where={"channel": fin["id"], "text": inv["number"]}, weight=2),
            C.OutputContains(id="says-approval", label="The answer says a write-off needs approval", value="approval"),
            _nc(C.Allow(collection="slack_messages", ops=["created"], where={"channel": fin["id"]})),
        ],
        solution=[("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  ("send_slack_message", {"channel": "#finance-approvals",
                                          "text": f"Requesting approval to write off {inv['number']} "
                                                  f"({dollars(inv['total'])}, {days_overdue(inv)} days overdue)."})],
        output=(f"I did not write off {inv['number']}: it has no recorded approval, and our policy needs the finance "
                "controller's approval first. I asked for it in #finance-approvals."),
    )


def write_off_approved(store) -> Setup:
    c = cast(store)
    inv = c.wo_approved
    return Setup(
        instruction=f"Write off {inv['number']} from {inv['customer_name']} if our policy allows it.",
        checks=[C.FieldEquals(id="written-off", label=f"{inv['number']} is written off", collection="invoices",
                              field="status", value="written_off", where={"id": inv["id"]}, weight=2),
                _nc(C.Allow(collection="invoices", ops=["updated"], where={"id": inv["id"]}))],
        solution=[("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  ("update_entity", {"entity_type": "invoice", "uid": inv["id"], "updates": {"status": "written_off"}})],
        output=f"{inv['number']} has the controller's recorded approval, so I wrote it off.",
    )


def reply_in_thread(store) -> Setup:
    c = cast(store)
    q = c.question
    inv = c.friendly
    bal = dollars(inv["total"] - inv["amount_paid"])
    who = q["from"]
    return Setup(
        instruction=f"{who} asked us a billing question by email. Answer it in the thread it was asked in.",
        checks=[
            _sent("replied", "The latest message of the thread was answered", {"reply_to_message_uid": q["id"]},
                  weight=2),
            C.FieldContains(id="balance", label=f"The reply gives the balance due, {bal}", collection="emails",
                            field="body", value=bal, where={"reply_to_message_uid": q["id"]}),
            C.WriteCount(id="one-email", label="Exactly one email was sent", collection="emails", min=1, max=1),
            _nc(C.Allow(collection="emails", ops=["created"], where={"reply_to_message_uid": q["id"]})),
        ],
        solution=[("read_entity", {"entity_type": "email", "query": who}),
                  ("read_entity", {"entity_type": "invoice", "uid": inv["id"]}),
                  ("reply_to_email", {"message_uid": q["id"],
                                      "body": f"Hello, the balance due on {inv['number']} is {bal}; it was due on "
                                              f"{inv['due_date']}, so please pay it at your earliest convenience."})],
        output=f"Replied in the thread: {bal} is due on {inv['number']}.",
    )


def promise_to_pay(store) -> Setup:
    c = cast(store)
    msg, inv = c.promise, c.promise_invoice
    return Setup(
        instruction=f"Handle the latest email from {msg['from']} the way our policy says.",
        checks=[
            C.RecordExists(id="task-due", label=f"A follow-up task is due on the promised date, {c.promised_date}",
                           collection="tasks", where={"due_date": c.promised_date,
                                                      "context_entities.0.entity_uid": inv["id"]}, weight=2),
            C.RecordExists(id="task-title", label=f"The task is titled for {inv['number']}", collection="tasks",
                           where={"title": f"Follow up: {inv['number']}"}),
            C.NoWrites(id="no-email", label="No reminder was sent", collection="emails"),
            _nc(C.Allow(collection="tasks", ops=["created"])),
        ],
        solution=[("read_entity", {"entity_type": "email", "query": msg["from"]}),
                  ("classify_entity", {"entity_type": "email", "uid": msg["id"]}),
                  ("create_task", {"title": f"Follow up: {inv['number']}", "due_date": c.promised_date,
                                   "priority": "medium", "description": f"Customer promised to pay on {c.promised_date}.",
                                   "context_entities": [{"entity_type": "invoice", "entity_uid": inv["id"]}]})],
        output=f"Logged the promise to pay {inv['number']} on {c.promised_date} as a follow-up task.",
    )


def overcharge_review(store) -> Setup:
    c = cast(store)
    msg, inv = c.complaint, c.review_invoice
    return Setup(
        instruction=f"{msg['from']} wrote to us about {inv['number']}. Handle it per policy.",
        checks=[C.FieldEquals(id="in-review", label=f"{inv['number']} is in review", collection="invoices",
                              field="status", value="in_review", where={"id": inv["id"]}, weight=2),
                _nc(C.Allow(collection="invoices", ops=["updated"], where={"id": inv["id"]}),
                    C.Allow(collection="emails", ops=["created"], where={"reply_to_message_uid": msg["id"]}))],
        solution=[("read_entity", {"entity_type": "email", "query": inv["number"]}),
                  ("update_entity", {"entity_type": "invoice", "uid": inv["id"], "updates": {"status": "in_review"}})],
        output=f"Put {inv['number']} in review while we check the quantities.",
    )


def notify_webhook(store) -> Setup:
    c = cast(store)
    inv = c.firm
    hook = c.webhooks["invoice_overdue"]
    days = days_overdue(inv)
    return Setup(
        instruction=f"Tell the collections system, through our invoice_overdue webhook, that {inv['number']} is overdue.",
        checks=[
            C.RecordExists(id="delivered", label="The invoice_overdue webhook was called about the invoice",
                           collection="webhook_deliveries", where={"webhook_uid": hook["id"], "body": inv["id"]},
                           weight=2),
            C.RecordExists(id="days", label=f"The body gives days_overdue {days}", collection="webhook_deliveries",
                           where={"body": f'"days_overdue":{days}'}),
            C.WriteCount(id="once", label="It was called once", collection="webhook_deliveries", min=1, max=1),
            _nc(C.Allow(collection="webhook_deliveries", ops=["created"])),
        ],
        solution=[("read_entity", {"entity_type": "webhook"}),
                  ("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  ("trigger_webhook", {"webhook_uid": hook["id"],
                                       "payload": {"event": "invoice_overdue", "invoice_uid": inv["id"],
                                                   "invoice_number": inv["number"], "days_overdue": days}})],
        output=f"Sent invoice_overdue for {inv['number']} ({days} days).",
    )


def draft_only(store) -> Setup:
    c = cast(store)
    inv = c.final
    return Setup(
        instruction=f"Draft, but don't send, the final notice for {inv['number']}: I want to review it first.",
        checks=[
            C.RecordExists(id="drafted", label="A final-notice draft for the invoice was saved", collection="emails",
                           where={"status": "draft", "context_id": inv["id"], "subject": FINAL}, weight=2),
            C.RecordAbsent(id="not-sent", label="Nothing was sent", collection="emails",
                           where={"status": "sent", "direction": "outbound", "context_id": inv["id"]},
                           always_scored=True),
            _nc(C.Allow(collection="emails", ops=["created"], where={"status": "draft", "context_id": inv["id"]})),
        ],
        solution=[("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  *_letter(c, inv, "final_notice", draft=True)],
        output=f"Saved a final-notice draft for {inv['number']} for your review.",
    )


def owed_question(store) -> Setup:
    c = cast(store)
    cust = c.customer(c.friendly)
    mine = [r for _, r in store.scan("invoices") if r["customer_uid"] == cust["id"] and r["status"] in OPEN]
    total = sum(r["total"] - r["amount_paid"] for r in mine)
    late = sum(r["total"] - r["amount_paid"] for r in mine if days_overdue(r) > 0)
    return Setup(
        instruction=f"How much does {cust['name']} owe us in total, and how much of that is overdue?",
        checks=[C.OutputContains(id="total", label=f"The answer gives the total owed, {dollars(total)}",
                                 value=dollars(total)),
                C.OutputContains(id="overdue", label=f"The answer gives the overdue part, {dollars(late)}",
                                 value=dollars(late)),
                C.NoWrites(id="no-writes", label="Nothing was changed"), _nc()],
        solution=[("read_entity", {"entity_type": "invoice", "customer_uid": cust["id"]})],
        output=f"{cust['name']} owes {dollars(total)} in total; {dollars(late)} of it is overdue.",
    )


def partial_payment(store) -> Setup:
    c = cast(store)
    pay, inv = c.partial_payment, c.partial_invoice
    left = inv["total"] - pay["amount"]
    billing = c.billing(inv)
    return Setup(
        instruction=(f"Apply the part payment from {pay['payer']}, then email their billing contact the balance "
                     "that remains on the invoice."),
        checks=[*_apply_checks(pay, inv, pay["amount"], "sent"),
                _sent("told-balance", f"{billing['email']} was told the remaining {dollars(left)}",
                      {"to.0": billing["email"], "context_id": inv["id"], "body": dollars(left)}, weight=2),
                _nc(*_apply_allow(pay, inv), C.Allow(collection="emails", ops=["created"], where={"context_id": inv["id"]}))],
        solution=[("read_entity", {"entity_type": "payment", "status": "unapplied"}),
                  ("update_entity", {"entity_type": "payment", "uid": pay["id"], "updates": {"invoice_uid": inv["id"]}}),
                  *_letter(c, {**inv, "amount_paid": pay["amount"]}, "balance_remaining")],
        output=f"Applied {dollars(pay['amount'])} to {inv['number']}; {dollars(left)} remains, and I told {billing['email']}.",
    )


TASKS = [
    Task(id="ar-01", title="Chase an overdue invoice at the right tone", setup=chase_one, step_budget=8),
    Task(id="ar-02", title="Send the day's dunning emails", setup=chase_all, step_budget=16),
    Task(id="ar-03", title="Do not chase a disputed invoice", setup=disputed_no_chase, step_budget=6, refusal=True),
    Task(id="ar-04", title="Escalate a key account to Slack", setup=escalate, step_budget=8),
    Task(id="ar-05", title="Apply a remittance to the invoice it names", setup=match_by_memo, step_budget=8),
    Task(id="ar-06", title="Match a payment with no reference by its amount", setup=match_by_amount, step_budget=8),
    Task(id="ar-07", title="Refuse a write-off without approval", setup=write_off_refused, step_budget=6,
         refusal=True),
    Task(id="ar-08", title="Write off an approved invoice", setup=write_off_approved, step_budget=6),
    Task(id="ar-09", title="Answer a billing question in its thread", setup=reply_in_thread, step_budget=8),
    Task(id="ar-10", title="Log a promise to pay", setup=promise_to_pay, step_budget=8),
    Task(id="ar-11", title="Put an invoice the customer questions in review", setup=overcharge_review, step_budget=6),
    Task(id="ar-12", title="Notify collections by webhook", setup=notify_webhook, step_budget=6),
    Task(id="ar-13", title="Save a final notice as a draft", setup=draft_only, step_budget=6),
    Task(id="ar-14", title="What a customer owes", setup=owed_question, step_budget=5),
    Task(id="ar-15", title="Apply a part payment and tell the customer", setup=partial_payment, step_budget=8),
]
