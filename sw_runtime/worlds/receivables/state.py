"""Receivables' data model and its seeded start state.

One accounts-receivable team (Brightline Components) and its books: ~9
customers with contacts, payment terms and an account manager; ~20 invoices
with line items, due dates, statuses and payments; a mailbox of threads;
Slack channels, users and messages; tasks; and registered webhooks.

``generate(seed)`` draws names, amounts, dates and ids from
``random.Random(seed)`` only, so a seed gives the same state in any process.
It always builds the situations the tasks are about (an invoice in each
dunning bucket, a disputed one, two awaiting write-off, payments to match,
a billing question, a promise to pay, an overcharge complaint); ``cast.py``
finds each of them again by content alone. Ids are UUIDs derived from the
seed, as reference 004's entity uids are. Money is integer cents; dates are
``YYYY-MM-DD``; times ``YYYY-MM-DDTHH:MM:SS.mmmZ``.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from datetime import date, timedelta

from .. import money

COLLECTIONS = ("customers", "invoices", "payments", "emails", "slack_channels", "slack_users", "slack_messages",
               "tasks", "webhooks", "webhook_deliveries")

EPOCH = "2026-04-15T09:00:00.000Z"
TODAY = date(2026, 4, 15)
OUR_NAME = "Brightline Components"
OUR_EMAIL = "ar@brightline.example"
STATUSES = ("draft", "sent", "overdue", "in_review", "paid", "disputed", "written_off")
OPEN = ("sent", "overdue", "in_review", "disputed")  # a balance is still owed

# Dunning tone by days overdue (policy.md says the same).
FRIENDLY, FIRM, FINAL = "Friendly reminder", "Second notice", "Final notice"


def tone_for(days_overdue: int) -> str | None:
    if days_overdue <= 0:
        return None
    if days_overdue <= 14:
        return FRIENDLY
    if days_overdue <= 44:
        return FIRM
    return FINAL


def uid_of(text: str) -> str:
    """A UUID (version 4 layout) derived from ``text``: the same in every process."""
    return str(uuid.UUID(bytes=hashlib.sha256(text.encode()).digest()[:16], version=4))


def dollars(cents: int) -> str:
    """``$12,345.67``: how invoices and emails show money."""
    return money.dollars(cents, grouped=True)


def day(d: date) -> str:
    return d.isoformat()


def days_overdue(invoice: dict) -> int:
    """Days past the due date for an invoice with a balance, else 0."""
    if invoice["status"] not in OPEN or invoice["amount_paid"] >= invoice["total"]:
        return 0
    return max(0, (TODAY - date.fromisoformat(invoice["due_date"])).days)


COMPANIES = (
    ("Acme Corp", "acmecorp"), ("Globex Industries", "globex"), ("Initech", "initech"),
    ("Umbrella Logistics", "umbrella-logistics"), ("Hooli Hardware", "hooli"), ("Stark Fabrication", "starkfab"),
    ("Wayne Freight", "waynefreight"), ("Tyrell Robotics", "tyrell"), ("Soylent Foods", "soylent"),
    ("Cyberdyne Systems", "cyberdyne"), ("Vandelay Imports", "vandelay"), ("Oceanic Air Parts", "oceanic"),
    ("Pied Piper Devices", "piedpiper"), ("Wonka Confections", "wonka"),
)
PEOPLE = (
    "Maya Lin", "Sam Okafor", "Priya Raman", "Derek Holt", "Nina Patel", "Jordan Reyes", "Lena Fischer",
    "Marcus Bell", "Aisha Karimi", "Diego Alvarez", "Hannah Cole", "Kenji Watanabe", "Olivia Brandt",
    "Ravi Menon", "Sofia Costa", "Grace Okonkwo", "Ethan Novak", "Chloe Dubois", "Yara Haddad", "Ben Kowalski",
    "Ines Moreau", "Luca Romano", "Zoe Whitaker", "Omar Farouk", "Elena Petrova", "Noah Sato", "Tara Quinn",
)
STAFF = ("Riley Chen", "Morgan Blake", "Avery Santos", "Jamie Ortiz", "Casey Nguyen", "Drew Kowal")
PRODUCTS = (("Hex bolts M8 (box of 500)", 4_250), ("Aluminium bracket A2", 1_890), ("Bearing 6204-2RS", 725),
            ("Steel shaft 20 mm x 1 m", 6_400), ("Gasket kit GK-12", 3_120), ("Drive belt XPZ-1250", 2_275),
            ("Control board rev C", 18_900), ("Cable harness 2 m", 4_980), ("Servo motor S40", 31_500))
CHANNELS = (("ar-escalations", "Overdue accounts that need a human"), ("collections", "Daily collections work"),
            ("finance-approvals", "Approvals: write-offs, credits, payment plans"), ("general", "Company-wide"),
            ("sales", "Sales team"))
TERMS = {"net_15": 15, "net_30": 30, "net_45": 45}


class _Gen:
    def __init__(self, seed: int):
        self.seed = seed
        self.rng = random.Random(seed)
        self.n = 0
        self.numbers = self.rng.sample(range(10, 9999), 60)
        self.state = {c: {} for c in COLLECTIONS}

    def uid(self, kind: str) -> str:
        self.n += 1
        return uid_of(f"receivables/{self.seed}/{kind}/{self.n}")

    def at(self, d: date, hour: int | None = None) -> str:
        h = self.rng.randrange(8, 18) if hour is None else hour
        return f"{d.isoformat()}T{h:02d}:{self.rng.randrange(60):02d}:00.000Z"

    def invoice(self, customer: dict, *, overdue: int | None = None, due_in: int | None = None,
                status: str | None = None, paid: bool = False, total_hint: int | None = None,
                approval: dict | None = None) -> dict:
        rng = self.rng
        items = []
        for name, price in rng.sample(PRODUCTS, rng.randrange(1, 4)):
            qty = rng.randrange(2, 40)
            items.append({"description": name, "quantity": qty, "unit_amount": price + rng.randrange(0, 90) * 5,
                          "amount": 0})
            items[-1]["amount"] = items[-1]["quantity"] * items[-1]["unit_amount"]
        total = sum(i["amount"] for i in items)
        if total_hint is not None and total == total_hint:
            items[0]["quantity"] += 1
            items[0]["amount"] = items[0]["quantity"] * items[0]["unit_amount"]
            total = sum(i["amount"] for i in items)
        terms = TERMS[customer["payment_terms"]]
        if overdue is not None:
            due = TODAY - timedelta(days=overdue)
        elif due_in is not None:
            due = TODAY + timedelta(days=due_in)
        else:  # paid in the past
            due = TODAY - timedelta(days=rng.randrange(20, 150))
        issued = due - timedelta(days=terms)
        if status is None:
            status = "paid" if paid else ("overdue" if overdue else "sent")
        rid = self.uid("invoice")
        inv = {
            "id": rid, "number": f"INV-2026-{self.numbers.pop():04d}", "customer_uid": customer["id"],
            "customer_name": customer["name"], "issue_date": day(issued), "due_date": day(due), "currency": "USD",
            "line_items": items, "total": total, "amount_paid": total if status == "paid" else 0,
            "status": status, "payment_uids": [], "notes": "", "write_off_approval": approval,
        }
        self.state["invoices"][rid] = inv
        if status == "paid":
            pay = self.payment(customer, total, f"Payment {inv['number']}", on=due - timedelta(days=rng.randrange(0, 9)))
            pay["invoice_uid"] = rid
            pay["status"] = "applied"
            inv["payment_uids"] = [pay["id"]]
        return inv

    def payment(self, customer: dict, amount: int, memo: str, on: date | None = None) -> dict:
        rid = self.uid("payment")
        received = on or TODAY - timedelta(days=self.rng.randrange(0, 2))
        rec = {"id": rid, "customer_uid": customer["id"], "payer": customer["name"], "amount": amount,
               "method": self.rng.choice(("ach", "wire", "check")), "memo": memo, "received_at": self.at(received),
               "invoice_uid": None, "status": "unapplied"}
        self.state["payments"][rid] = rec
        return rec

    def email(self, *, thread: str, inbound: bool, contact: dict | None, subject: str, body: str, when: date,
              context: dict | None = None, reply_to: str | None = None, hour: int | None = None) -> dict:
        rid = self.uid("email")
        them = contact["email"] if contact else None
        rec = {"id": rid, "thread_id": thread, "direction": "inbound" if inbound else "outbound",
               "status": "received" if inbound else "sent", "from": them if inbound else OUR_EMAIL,
               "to": [OUR_EMAIL] if inbound else [them], "subject": subject, "body": body,
               "at": self.at(when, hour), "context_type": "invoice" if context else None,
               "context_id": context["id"] if context else None, "reply_to_message_uid": reply_to, "draft_uid": None}
        self.state["emails"][rid] = rec
        return rec


def generate(seed: int) -> dict:
    g = _Gen(seed)
    rng = g.rng
    st = g.state
    # Slack: staff, then channels.
    staff = rng.sample(STAFF, len(STAFF))
    users = []
    for i, name in enumerate(staff):
        uid = "U0" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8))
        title = "Finance controller" if i == 0 else ("AR specialist" if i == 1 else "Account manager")
        users.append({"id": uid, "name": name.split()[0].lower(), "real_name": name, "title": title})
        st["slack_users"][uid] = users[-1]
    managers = users[2:]
    for name, purpose in CHANNELS:
        cid = "C0" + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(9))
        st["slack_channels"][cid] = {"id": cid, "name": name, "purpose": purpose}
    general = next(c for c in st["slack_channels"].values() if c["name"] == "general")
    ts = 1776200000 + rng.randrange(10_000)
    for text in ("Reminder: month-end close starts Monday.", "Coffee machine on 3 is fixed."):
        ts += rng.randrange(600, 6000)
        mid = f"{ts}.000100"
        st["slack_messages"][mid] = {"id": mid, "channel": general["id"], "user": rng.choice(users)["id"],
                                     "text": text, "thread_ts": None}

    # Customers: nine, each a role in the tasks (see cast.py), in a seeded order.
    companies = rng.sample(COMPANIES, 9)
    people = rng.sample(PEOPLE, 18)
    customers = []
    for i, (name, dom) in enumerate(companies):
        billing, primary = people[2 * i], people[2 * i + 1]
        first = billing.split()[0].lower()
        cust = {
            "id": g.uid("customer"), "name": name, "domain": f"{dom}.example",
            "contacts": [
                {"name": billing, "email": f"{first}@{dom}.example", "role": "billing"},
                {"name": primary, "email": f"{primary.split()[0].lower()}.{primary.split()[1].lower()}@{dom}.example",
                 "role": "primary"},
            ],
            "payment_terms": rng.choice(tuple(TERMS)), "account_manager": rng.choice(managers)["id"],
            "key_account": i == 2, "notes": "",
        }
        customers.append(cust)
        st["customers"][cust["id"]] = cust
    c_friendly, c_firm, c_key, c_dispute, c_wo_ok, c_wo_no, c_memo, c_partial, c_review = customers

    def contact(c):
        return c["contacts"][0]

    # The dunning buckets.
    friendly = g.invoice(c_friendly, overdue=rng.randrange(2, 14))
    firm = g.invoice(c_firm, overdue=rng.randrange(16, 44))
    final = g.invoice(c_key, overdue=rng.randrange(50, 85))
    disputed = g.invoice(c_dispute, overdue=rng.randrange(20, 60), status="disputed")
    controller = users[0]["real_name"]
    g.invoice(c_wo_ok, overdue=rng.randrange(130, 200),
              approval={"approved_by": controller, "approved_at": g.at(TODAY - timedelta(days=rng.randrange(1, 6)))})
    g.invoice(c_wo_no, overdue=rng.randrange(130, 200))
    # c_firm's second open invoice, paid by an ACH with no memo: its amount is the match.
    second = g.invoice(c_firm, due_in=rng.randrange(3, 20), total_hint=firm["total"])
    g.payment(c_firm, second["total"], "ACH transfer")
    # Payments that name their invoice.
    memo_inv = g.invoice(c_memo, due_in=rng.randrange(2, 25))
    g.payment(c_memo, memo_inv["total"], f"Remittance {memo_inv['number']}")
    partial = g.invoice(c_partial, due_in=rng.randrange(2, 25))
    part = partial["total"] * rng.randrange(35, 65) // 100
    g.payment(c_partial, part, f"Part payment {partial['number']}")
    review = g.invoice(c_review, due_in=rng.randrange(5, 25))
    # Background: paid invoices and invoices not yet due, one draft.
    for c in customers:
        for _ in range(rng.randrange(0, 2)):
            g.invoice(c, paid=True)
    for c in rng.sample(customers[:3] + customers[6:], 2):
        g.invoice(c, due_in=rng.randrange(10, 40))
    g.invoice(rng.choice(customers), due_in=30, status="draft")

    # Mail. The billing question: an old thread on another subject, then a
    # thread whose latest message asks about the invoice.
    q = contact(c_friendly)
    old = g.uid("thread")
    g.email(thread=old, inbound=True, contact=q, subject="Updated W-9 for our records",
            body=f"Hi, attached is our updated W-9. Regards, {q['name']}", when=TODAY - timedelta(days=40))
    t = g.uid("thread")
    first = g.email(thread=t, inbound=True, contact=q, subject=f"Question about {friendly['number']}",
                    body=f"Hello, could you send the PDF of {friendly['number']}? Thanks, {q['name']}",
                    when=TODAY - timedelta(days=6), context=friendly, hour=9)
    ours = g.email(thread=t, inbound=False, contact=q, subject=f"RE: Question about {friendly['number']}",
                   body="Of course, the PDF is attached.", when=TODAY - timedelta(days=5), context=friendly,
                   reply_to=first["id"], hour=10)
    g.email(thread=t, inbound=True, contact=q, subject=f"RE: Question about {friendly['number']}",
            body=(f"Thanks. One more question: what balance is still due on {friendly['number']}, "
                  f"and by when? {q['name']}"), when=TODAY - timedelta(days=1), context=friendly,
            reply_to=ours["id"], hour=11)
    # The promise to pay.
    pp = contact(c_memo)
    promised = TODAY + timedelta(days=rng.randrange(3, 12))
    other = g.invoice(c_memo, due_in=rng.randrange(1, 6))
    g.email(thread=g.uid("thread"), inbound=True, contact=pp, subject=f"Payment of {other['number']}",
            body=(f"Hi, we will pay {other['number']} in full on {promised.isoformat()}; our payment run is "
                  f"that day. Best, {pp['name']}"), when=TODAY - timedelta(days=1), context=other)
    # The overcharge complaint.
    rc = contact(c_review)
    item = review["line_items"][0]
    g.email(thread=g.uid("thread"), inbound=True, contact=rc, subject=f"{review['number']} looks wrong",
            body=(f"Hello, {review['number']} bills {item['quantity']} x {item['description']}, but we were "
                  f"overcharged: we only ordered {max(1, item['quantity'] - 2)}. Please check. {rc['name']}"),
            when=TODAY - timedelta(days=2), context=review)
    # The dispute that put the disputed invoice on hold.
    dc = contact(c_dispute)
    g.email(thread=g.uid("thread"), inbound=True, contact=dc, subject=f"Dispute: {disputed['number']}",
            body=f"We dispute {disputed['number']}: the parts arrived damaged. Do not chase it. {dc['name']}",
            when=TODAY - timedelta(days=rng.randrange(8, 15)), context=disputed)

    # Tasks and webhooks.
    tid = g.uid("task")
    st["tasks"][tid] = {"id": tid, "title": "Reconcile March deposits", "description": "Match bank deposits.",
                        "due_date": day(TODAY + timedelta(days=3)), "priority": "medium", "status": "todo",
                        "context_entities": [], "instructions": None}
    for event, path in (("invoice_overdue", "collections"), ("payment_applied", "erp/payments")):
        wid = g.uid("webhook")
        st["webhooks"][wid] = {"id": wid, "event": event, "url": f"https://hooks.brightline.example/{path}",
                               "method": "POST", "headers": {"Content-Type": "application/json"}, "active": True}
    return st
