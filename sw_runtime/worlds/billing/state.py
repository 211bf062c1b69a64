"""Billing's seeded start state: the Stripe account of Tallyroom, a small SaaS.

``generate(seed)`` builds the account: four products and their prices (one
legacy price of each plan archived beside the live one), ~40 customers with
cards, subscriptions in every status Stripe has, months of invoices with
their payment intents, charges and balance transactions, refunds, disputes in
every status, coupons and promotion codes (valid, expired, used up), weekly
payouts and the events that tell the story. Records are stored in Stripe's
own shapes (``object``, Unix-second timestamps, integer cents), so a tool
answers them as they are.

Background customers are made by ``_Gen``; ``plant`` then makes the
situations the tasks are about (a charge taken twice beside a legitimate
look-alike, a failed invoice whose customer added a new card, a dispute due
this week beside one already past due, two customers with one name…). Names,
amounts, days, plans and ids vary with the seed; ``cast.py`` finds each part
by content, never by a flag in the state.
"""

from __future__ import annotations

import random

from .clock import DAY, EPOCH, HOUR, MINUTE, NOW, add_months, period_end, ymd
from .rules import fee
from .seed_people import COMPANIES, FIRST, LAST, LOOKALIKES

__all__ = ["COLLECTIONS", "EPOCH", "generate", "EVIDENCE_FIELDS", "ONBOARDING"]

COLLECTIONS = ("customers", "payment_methods", "products", "prices", "subscriptions", "invoices", "invoiceitems",
               "payment_intents", "charges", "refunds", "disputes", "coupons", "promotion_codes",
               "balance_transactions", "payouts", "events", "idempotency_keys")
ONBOARDING = "Onboarding package"
EVIDENCE_FIELDS = ("access_activity_log", "billing_address", "cancellation_policy", "cancellation_rebuttal",
                   "customer_communication", "customer_email_address", "customer_name",
                   "duplicate_charge_explanation", "product_description", "receipt", "refund_policy",
                   "service_date", "uncategorized_text")
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
BRANDS = ("visa", "mastercard", "amex", "discover")


class _Gen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.s = {c: {} for c in COLLECTIONS}
        self.prices = {}  # lookup name -> price record
        self.numbers = 0

    # -- primitives ----------------------------------------------------------------------------------------------

    def sid(self, prefix: str, n: int = 14) -> str:
        while True:  # fixed width, so no id is a substring of another
            rid = f"{prefix}_" + "".join(self.rng.choice(_ALNUM) for _ in range(n))
            if all(rid not in coll for coll in self.s.values()):
                return rid

    def add(self, coll: str, rec: dict) -> dict:
        self.s[coll][rec["id"]] = rec
        return rec

    def event(self, kind: str, obj: dict, at: int) -> None:
        self.add("events", {"id": self.sid("evt"), "object": "event", "type": kind, "created": at,
                            "data": {"object": {"id": obj["id"], "object": obj["object"]}}})

    # -- the catalog ---------------------------------------------------------------------------------------------

    def catalog(self) -> None:
        r = self.rng
        team, biz = r.randrange(10, 17) * 100, r.randrange(22, 33) * 100
        onboarding = r.randrange(30, 46) * 1000 - 100
        for key, name, desc in (("team", "Tallyroom Team", "Shared notes and projects for small teams, per seat"),
                                ("business", "Tallyroom Business", "SSO, audit log and priority support, per seat"),
                                ("onboarding", ONBOARDING, "A guided setup session and data import, once"),
                                ("storage", "Extra storage", "100 GB more for the workspace")):
            self.add("products", {"id": self.sid("prod"), "object": "product", "name": name, "active": True,
                                  "description": desc, "created": NOW - 700 * DAY - r.randrange(DAY),
                                  "metadata": {}})
            self.prices[key + "_product"] = self.s["products"][list(self.s["products"])[-1]]
        rows = [("team_monthly", "team", "Team monthly", team, "month", True),
                ("team_annual", "team", "Team annual", team * 10, "year", True),
                ("team_monthly_2024", "team", "Team monthly (2024)", team - 200, "month", False),
                ("team_annual_2024", "team", "Team annual (2024)", (team - 200) * 10, "year", False),
                ("business_monthly", "business", "Business monthly", biz, "month", True),
                ("business_annual", "business", "Business annual", biz * 10, "year", True),
                ("business_annual_2024", "business", "Business annual (2024)", (biz - 300) * 10, "year", False),
                ("onboarding", "onboarding", "Onboarding package", onboarding, None, True),
                ("storage", "storage", "Extra storage monthly", 500, "month", True)]
        for key, prod, nick, amount, interval, active in rows:
            self.prices[key] = self.add("prices", {
                "id": self.sid("price"), "object": "price", "product": self.prices[prod + "_product"]["id"],
                "nickname": nick, "unit_amount": amount, "currency": "usd", "active": active,
                "type": "recurring" if interval else "one_time",
                "recurring": {"interval": interval, "interval_count": 1} if interval else None,
                "lookup_key": key if active else None, "created": NOW - 690 * DAY + len(self.prices) * HOUR,
                "metadata": {}})

    # -- customers and cards -------------------------------------------------------------------------------------

    def customer(self, first: str, last: str, company: str, created: int) -> dict:
        slug = company.lower().replace(" ", "").replace("&", "and")
        return self.add("customers", {
            "id": self.sid("cus"), "object": "customer", "name": f"{first} {last}",
            "email": f"{first.lower()}@{slug}.com", "description": company, "created": created, "currency": "usd",
            "balance": 0, "delinquent": False, "discount": None,
            "invoice_settings": {"default_payment_method": None},
            "metadata": {"workspace": slug, "last_active": ymd(NOW - self.rng.randrange(1, 9) * DAY)}})

    def card(self, cus: dict, at: int, last4: str | None = None, exp: tuple | None = None,
             default: bool = True) -> dict:
        r = self.rng
        month, year = exp or (r.randrange(1, 13), r.randrange(2027, 2031))
        pm = self.add("payment_methods", {
            "id": self.sid("pm"), "object": "payment_method", "type": "card", "customer": cus["id"], "created": at,
            "card": {"brand": r.choice(BRANDS), "last4": last4 or f"{r.randrange(1000, 10000):04d}",
                     "exp_month": month, "exp_year": year, "funding": "credit", "country": "US"},
            "billing_details": {"name": cus["name"], "email": cus["email"]}, "metadata": {}})
        if pm["card"]["last4"] in ("9995", "0002") and last4 is None:
            pm["card"]["last4"] = "4242"
        if default:
            cus["invoice_settings"] = {"default_payment_method": pm["id"]}
        return pm

    # -- money movements -----------------------------------------------------------------------------------------

    def charge(self, cus: dict, pm: dict, amount: int, at: int, description: str, invoice: dict | None = None,
               failure: tuple | None = None) -> dict:
        pi = self.add("payment_intents", {
            "id": self.sid("pi"), "object": "payment_intent", "amount": amount, "currency": "usd",
            "customer": cus["id"], "description": description, "created": at, "payment_method": pm["id"],
            "invoice": invoice["id"] if invoice else None, "latest_charge": None,
            "status": "requires_payment_method" if failure else "succeeded", "metadata": {}})
        ch = self.add("charges", {
            "id": self.sid("ch"), "object": "charge", "amount": amount, "amount_captured": 0 if failure else amount,
            "amount_refunded": 0, "refunded": False, "captured": not failure, "paid": not failure,
            "status": "failed" if failure else "succeeded", "currency": "usd", "customer": cus["id"],
            "description": description, "invoice": invoice["id"] if invoice else None, "payment_intent": pi["id"],
            "payment_method": pm["id"], "payment_method_details": {"type": "card", "card": {
                "brand": pm["card"]["brand"], "last4": pm["card"]["last4"], "exp_month": pm["card"]["exp_month"],
                "exp_year": pm["card"]["exp_year"]}},
            "failure_code": "card_declined" if failure else None, "failure_message": failure[1] if failure else None,
            "outcome": {"type": "issuer_declined" if failure else "authorized",
                        "network_status": "declined_by_network" if failure else "approved_by_network",
                        "decline_code": failure[0] if failure else None,
                        "seller_message": "The bank did not return any further details with this decline."
                        if failure else "Payment complete."},
            "disputed": False, "dispute": None, "balance_transaction": None, "created": at, "metadata": {}})
        pi["latest_charge"] = ch["id"]
        if failure:
            self.event("charge.failed", ch, at)
        else:
            bt = self.txn(amount, fee(amount), "charge", ch["id"], description, at)
            ch["balance_transaction"] = bt["id"]
            self.event("charge.succeeded", ch, at)
        return ch

    def txn(self, amount: int, fee_: int, kind: str, source: str, description: str, at: int) -> dict:
        available = at + 2 * DAY
        return self.add("balance_transactions", {
            "id": self.sid("txn"), "object": "balance_transaction", "amount": amount, "fee": fee_,
            "net": amount - fee_, "currency": "usd", "type": kind, "reporting_category": {
                "charge": "charge", "refund": "refund", "adjustment": "dispute", "payout": "payout",
                "payout_failure": "payout_reversal"}[kind],
            "source": source, "description": description, "created": at, "available_on": available,
            "status": "available" if available <= NOW else "pending", "payout": None})

    def refund(self, ch: dict, amount: int, at: int, reason: str) -> dict:
        re_ = self.add("refunds", {
            "id": self.sid("re"), "object": "refund", "amount": amount, "charge": ch["id"],
            "payment_intent": ch["payment_intent"], "currency": "usd", "reason": reason, "status": "succeeded",
            "created": at, "balance_transaction": None, "metadata": {}})
        re_["balance_transaction"] = self.txn(-amount, 0, "refund", re_["id"], "REFUND FOR CHARGE", at)["id"]
        ch["amount_refunded"] += amount
        ch["refunded"] = ch["amount_refunded"] == ch["amount"]
        self.event("charge.refunded", ch, at)
        return re_

    def invoice(self, cus: dict, sub: dict | None, lines: list, start: int, end: int, status: str, at: int) -> dict:
        self.numbers += 1
        total = sum(li["amount"] for li in lines)
        inv = self.add("invoices", {
            "id": self.sid("in"), "object": "invoice", "customer": cus["id"],
            "subscription": sub["id"] if sub else None, "status": status,
            "number": f"TR{cus['id'][4:8]}-{self.numbers:04d}", "currency": "usd", "created": at,
            "period_start": start, "period_end": end, "collection_method": "charge_automatically", "due_date": None,
            "attempt_count": 0, "attempted": False, "subtotal": total, "total": total, "amount_due": total,
            "amount_paid": total if status == "paid" else 0,
            "amount_remaining": 0 if status in ("paid", "void", "draft") else total,
            "lines": [{"id": self.sid("il"), "object": "line_item", "period": {"start": start, "end": end}, **li}
                      for li in lines],
            "charge": None, "payment_intent": None, "status_transitions": {
                "finalized_at": None if status == "draft" else at + HOUR, "paid_at": None, "voided_at": None,
                "marked_uncollectible_at": None}, "metadata": {}})
        if status == "draft":
            inv["amount_remaining"] = total
        return inv

    def bill(self, cus: dict, sub: dict, pm: dict, start: int, end: int, status: str = "paid",
             failure: tuple | None = None, attempts: int = 1) -> dict:
        """One period's invoice of ``sub``, paid (a charge) or left open (failed charges)."""
        lines = []
        for item in sub["items"]:
            p = self.s["prices"][item["price"]]
            lines.append({"description": f"{item['quantity']} × {p['nickname']}",
                          "amount": p["unit_amount"] * item["quantity"], "quantity": item["quantity"],
                          "price": p["id"], "proration": False})
        inv = self.invoice(cus, sub, lines, start, end, status, start)
        if inv["total"] == 0 or status in ("draft", "void"):
            return inv
        at = start + HOUR
        for n in range(attempts if failure else 1):
            ch = self.charge(cus, pm, inv["total"], at + n * 2 * DAY, f"Invoice {inv['number']}", inv,
                             failure=failure)
            inv["charge"], inv["payment_intent"] = ch["id"], ch["payment_intent"]
        inv["attempt_count"], inv["attempted"] = (attempts if failure else 1), True
        if status == "paid":
            inv["status_transitions"]["paid_at"] = at
            self.event("invoice.paid", inv, at)
        else:
            self.event("invoice.payment_failed", inv, at)
        return inv

    def subscribe(self, cus: dict, pm: dict, items: list, created: int, status: str = "active",
                  billed: int = 3) -> dict:
        """A subscription since ``created``; its last ``billed`` periods (the current one among them) invoiced
        and paid; ``billed=0`` leaves its invoices to the caller."""
        interval = self.prices_by_id(items[0][0])["recurring"]["interval"]
        start = created
        while period_end(start, interval) <= NOW:
            start = period_end(start, interval)
        sub = self.add("subscriptions", {
            "id": self.sid("sub"), "object": "subscription", "customer": cus["id"], "status": status,
            "items": [{"id": self.sid("si"), "object": "subscription_item", "price": pid, "quantity": q}
                      for pid, q in items],
            "created": created, "start_date": created, "current_period_start": start,
            "current_period_end": period_end(start, interval), "billing_cycle_anchor": created,
            "cancel_at_period_end": False, "cancel_at": None, "canceled_at": None, "ended_at": None,
            "cancellation_details": {"comment": None, "feedback": None, "reason": None},
            "trial_start": None, "trial_end": None, "pause_collection": None, "discount": None,
            "default_payment_method": None, "latest_invoice": None, "collection_method": "charge_automatically",
            "currency": "usd", "metadata": {}})
        self.event("customer.subscription.created", sub, created)
        periods = [start] if billed else []
        while periods and len(periods) < billed and add_months(periods[0], -(12 if interval == "year" else 1)) >= created:
            periods.insert(0, add_months(periods[0], -(12 if interval == "year" else 1)))
        for p in periods:
            sub["latest_invoice"] = self.bill(cus, sub, pm, p, period_end(p, interval))["id"]
        return sub

    def prices_by_id(self, pid: str) -> dict:
        return self.s["prices"][pid]

    # -- disputes and payouts ------------------------------------------------------------------------------------

    def dispute(self, ch: dict, status: str, reason: str, at: int, due_by: int) -> dict:
        dp = self.add("disputes", {
            "id": self.sid("dp"), "object": "dispute", "amount": ch["amount"], "charge": ch["id"],
            "payment_intent": ch["payment_intent"], "currency": "usd", "reason": reason, "status": status,
            "created": at, "is_charge_refundable": False,
            "evidence": {f: None for f in EVIDENCE_FIELDS},
            "evidence_details": {"due_by": due_by, "has_evidence": status in ("under_review", "won", "lost"),
                                 "past_due": due_by < NOW and status == "needs_response",
                                 "submission_count": 1 if status in ("under_review", "won", "lost") else 0},
            "balance_transactions": [], "metadata": {}})
        ch["disputed"], ch["dispute"] = True, dp["id"]
        if not status.startswith("warning"):
            bt = self.txn(-ch["amount"], 1500, "adjustment", dp["id"], f"Chargeback withdrawal for {ch['id']}", at)
            dp["balance_transactions"].append(bt["id"])
            if status == "won":
                back = self.txn(ch["amount"], -1500, "adjustment", dp["id"], f"Chargeback reversal for {ch['id']}",
                                at + 20 * DAY)
                dp["balance_transactions"].append(back["id"])
        self.event("charge.dispute.created", dp, at)
        return dp

    def payouts(self) -> None:
        """Weekly payouts (Mondays) of what became available the week before; the latest is in transit,
        and one earlier week failed and came back."""
        monday = NOW - (NOW % (7 * DAY)) - 3 * DAY  # 1970-01-01 was a Thursday
        weeks = [monday - w * 7 * DAY for w in range(10, 0, -1)] + [monday]
        fail_from = self.rng.randrange(2, 6)  # the first week from here with money in it fails
        bts = sorted(self.s["balance_transactions"].values(), key=lambda b: (b["available_on"], b["id"]))
        for i, week in enumerate(weeks):
            lo = weeks[i - 1] if i else 0
            batch = [b for b in bts if lo <= b["available_on"] < week and b["payout"] is None]
            net = sum(b["net"] for b in batch)
            if net <= 0:
                continue
            last = i == len(weeks) - 1
            status = "in_transit" if last else "failed" if fail_from is not None and i >= fail_from else "paid"
            if status == "failed":
                fail_from = None
            po = self.add("payouts", {
                "id": self.sid("po"), "object": "payout", "amount": net, "currency": "usd", "created": week,
                "arrival_date": week + 2 * DAY, "status": status, "method": "standard", "type": "bank_account",
                "description": "STRIPE PAYOUT", "failure_code": "account_closed" if status == "failed" else None,
                "failure_message": "The bank account has been closed." if status == "failed" else None,
                "balance_transaction": None, "metadata": {}})
            if status == "failed":  # the money came back; it is paid out again the next week
                self.txn(net, 0, "payout_failure", po["id"], "Payout failure", week + 3 * DAY)
                self.event("payout.failed", po, week + 3 * DAY)
            else:
                for b in batch:
                    b["payout"] = po["id"]
                self.event("payout.paid" if status == "paid" else "payout.created", po, week)
            out = self.txn(-net, 0, "payout", po["id"], "STRIPE PAYOUT", week)
            out["available_on"], out["status"] = week, "available"
            po["balance_transaction"] = out["id"]
        self.add("payouts", {  # a payout started by mistake and canceled before it left
            "id": self.sid("po"), "object": "payout", "amount": 10_000, "currency": "usd", "created": weeks[1] + DAY,
            "arrival_date": weeks[1] + 3 * DAY, "status": "canceled", "method": "standard", "type": "bank_account",
            "description": "Manual payout", "failure_code": None, "failure_message": None,
            "balance_transaction": None, "metadata": {}})
        pending = self.add("payouts", {
            "id": self.sid("po"), "object": "payout", "amount": 0, "currency": "usd", "created": NOW - HOUR,
            "arrival_date": NOW + 2 * DAY, "status": "pending", "method": "standard", "type": "bank_account",
            "description": "STRIPE PAYOUT", "failure_code": None, "failure_message": None,
            "balance_transaction": None, "metadata": {}})
        ready = [b for b in bts if b["payout"] is None and monday <= b["available_on"] <= NOW]
        pending["amount"] = max(100, sum(b["net"] for b in ready))


def generate(seed: int) -> dict:
    from .plant import plant

    g = _Gen(seed)
    g.catalog()
    plant(g)
    g.payouts()
    return g.s


def pick_people(g: _Gen, n: int) -> list:
    """``n`` distinct (first, last, company) with distinct full names, and none a look-alike's spelling."""
    taken = {name for pair in LOOKALIKES for name in pair}
    names = [(f, l) for f in FIRST for l in LAST if f not in taken]
    g.rng.shuffle(names)
    companies = list(COMPANIES)
    g.rng.shuffle(companies)
    seen_last, out = set(), []
    for f, l in names:
        if l in seen_last:
            continue
        seen_last.add(l)
        out.append((f, l, companies[len(out)]))
        if len(out) == n:
            return out
    raise ValueError("not enough names")


def minutes(g: _Gen, lo: int, hi: int) -> int:
    return g.rng.randrange(lo, hi) * MINUTE
