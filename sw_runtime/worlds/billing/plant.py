"""The situations billing's tasks are about, planted among background customers.

Each is unique in the state by its content (``cast.py`` finds it so): the
onboarding charge taken twice minutes apart beside a legitimate one a month
earlier, the past-due invoice whose expired card has a newer card beside it,
the dispute due this week and the one already past due, the two customers
who share a name, the coupon codes that are valid, expired, used up or last
year's. Everything else is background: plain subscribers on every plan, and
one customer in each status the tasks do not act on (canceled, unpaid,
incomplete, paused, trialing, already set to cancel, written off…).
"""

from __future__ import annotations

from .clock import DAY, HOUR, NOW, add_months, period_end, ts_of
from .state import ONBOARDING, _Gen, minutes, pick_people
from .seed_people import COMPANIES, LAST, LOOKALIKES


def plant(g: _Gen) -> None:
    r, P = g.rng, g.prices
    people = iter(pick_people(g, 47))

    def new(lo: int = 90, hi: int = 600, created: int | None = None, **card):
        f, l, c = next(people)
        at = created if created is not None else NOW - r.randrange(lo, hi) * DAY - r.randrange(DAY)
        cus = g.customer(f, l, c, at)
        return cus, g.card(cus, at, **card)

    def plain(price: str, qty: int | None = None, extra: list = ()):
        cus, pm = new()
        sub = g.subscribe(cus, pm, [(P[price]["id"], qty or r.randrange(2, 10)), *extra], cus["created"])
        return cus, pm, sub

    def anchored(lo=120, hi=330):
        """A creation time whose monthly period started 3 to 13 days ago (failed attempts have happened)."""
        months = r.randrange(lo // 30, hi // 30)
        t = ts_of(2026, 3, r.randrange(3, 14), r.randrange(8, 18))
        return add_months(t, -months)

    # -- plain subscribers on every plan (the tasks pick theirs by a rule in cast.py) -------------------------------
    for price, n in (("team_monthly", 6), ("business_monthly", 3), ("team_annual", 2), ("business_annual", 2),
                     ("team_monthly_2024", 1)):
        for _ in range(n):  # annual Business seats always come to more than $500.00
            plain(price, qty=r.randrange(3, 10) if price == "business_annual" else None)
    plain("team_monthly", extra=[(P["storage"]["id"], 1)])

    # -- one-off onboarding charges -------------------------------------------------------------------------------
    onboarding = P["onboarding"]["unit_amount"]
    for i in range(3):  # single, legitimate ones; the last was refunded in full long ago
        cus, pm, _ = plain("team_monthly")
        ch = g.charge(cus, pm, onboarding, NOW - r.randrange(15, 80) * DAY + minutes(g, 0, 600), ONBOARDING)
        if i == 2:
            g.refund(ch, onboarding, ch["created"] + 3 * DAY, "requested_by_customer")
    cus, pm, _ = plain("team_monthly")  # the duplicate: two minutes apart, and a legitimate one a month before
    g.charge(cus, pm, onboarding, NOW - r.randrange(20, 40) * DAY + minutes(g, 0, 600), ONBOARDING)
    first = g.charge(cus, pm, onboarding, NOW - r.randrange(2, 6) * DAY + minutes(g, 0, 600), ONBOARDING)
    g.charge(cus, pm, onboarding, first["created"] + minutes(g, 1, 6), ONBOARDING)
    cus, pm, _ = plain("business_monthly")  # partly refunded already
    ch = g.charge(cus, pm, onboarding, NOW - r.randrange(8, 16) * DAY + minutes(g, 0, 600), ONBOARDING)
    g.refund(ch, r.randrange(5, 16) * 1000, ch["created"] + 2 * DAY, "requested_by_customer")

    # -- failed payments --------------------------------------------------------------------------------------
    for kind in ("expired", "insufficient"):
        at = anchored()
        cus, old = new(created=at, exp=(r.randrange(1, 3), 2026) if kind == "expired" else None,
                       last4=None if kind == "expired" else "9995")
        sub = g.subscribe(cus, old, [(P["team_monthly"]["id"], r.randrange(2, 9))], at, billed=0)
        start = sub["current_period_start"]
        g.bill(cus, sub, old, add_months(start, -1), start)  # last month's went through
        failure = ("expired_card", "Your card has expired.") if kind == "expired" else (
            "insufficient_funds", "Your card has insufficient funds.")
        inv = g.bill(cus, sub, old, start, sub["current_period_end"], status="open", failure=failure, attempts=2)
        sub["latest_invoice"], sub["status"], cus["delinquent"] = inv["id"], "past_due", True
        if kind == "expired":  # the customer added a new card yesterday; it is not the default yet
            g.card(cus, NOW - r.randrange(20, 40) * HOUR, default=False)

    # -- disputes ------------------------------------------------------------------------------------------------
    def disputed(status, reason, created, due, which=-1, price="team_monthly"):
        cus, pm, sub = plain(price)
        charges = sorted((c for c in g.s["charges"].values() if c["customer"] == cus["id"]), key=lambda c: c["created"])
        return g.dispute(charges[which], status, reason, created, due)

    disputed("needs_response", "product_not_received", NOW - r.randrange(5, 10) * DAY, NOW + r.randrange(3, 7) * DAY, -2)
    disputed("needs_response", "fraudulent", NOW - r.randrange(26, 34) * DAY, NOW - r.randrange(2, 6) * DAY, -2)
    disputed("warning_needs_response", "general", NOW - r.randrange(1, 4) * DAY, NOW + r.randrange(8, 12) * DAY)
    disputed("under_review", "duplicate", NOW - 20 * DAY, NOW - 5 * DAY, -2)
    disputed("won", "fraudulent", NOW - 60 * DAY, NOW - 45 * DAY, -3)
    disputed("lost", "product_unacceptable", NOW - 58 * DAY, NOW - 41 * DAY, -3)
    disputed("warning_closed", "general", NOW - 50 * DAY, NOW - 40 * DAY, -2)
    disputed("warning_under_review", "general", NOW - 12 * DAY, NOW - 2 * DAY, -1)
    cus, pm = new()  # a small one: Extra storage only
    sub = g.subscribe(cus, pm, [(P["storage"]["id"], r.randrange(1, 4))], cus["created"])
    ch = sorted((c for c in g.s["charges"].values() if c["customer"] == cus["id"]), key=lambda c: c["created"])[-1]
    g.dispute(ch, "needs_response", "subscription_canceled", NOW - r.randrange(3, 8) * DAY,
              NOW + r.randrange(4, 9) * DAY)

    # -- coupons and promotion codes -------------------------------------------------------------------------------
    spring = r.choice((15, 20, 25))
    coupons = {}
    for key, name, pct, off, duration, months, redeem_by, max_r, used in (
            ("spring", f"SPRING{spring}", spring, None, "repeating", 3, NOW + r.randrange(20, 40) * DAY, None, 7),
            ("spring_old", f"SPRING{spring - 5}", spring - 5, None, "repeating", 3, NOW - 300 * DAY, None, 31),
            ("launch", f"LAUNCH{r.choice((30, 40, 50))}", None, None, "once", None, NOW - r.randrange(3, 20) * DAY,
             None, 12),
            ("annual", f"ANNUAL{r.choice((10, 15))}", None, None, "forever", None, None, None, 4),
            ("friends", f"FRIENDS{r.choice((10, 20))}", None, 1000, "once", None, None, 25, 25)):
        if key == "launch":
            pct = int(name[6:])
        if key == "annual":
            pct = int(name[6:])
        valid = (redeem_by is None or redeem_by > NOW) and (max_r is None or used < max_r)
        coupons[key] = g.add("coupons", {
            "id": g.sid("", 8)[1:], "object": "coupon", "name": name, "percent_off": pct,
            "amount_off": off, "currency": "usd" if off else None, "duration": duration,
            "duration_in_months": months, "max_redemptions": max_r, "times_redeemed": used, "redeem_by": redeem_by,
            "valid": valid, "created": NOW - r.randrange(100, 400) * DAY, "metadata": {}})
        g.add("promotion_codes", {
            "id": g.sid("promo"), "object": "promotion_code", "code": name, "coupon": coupons[key]["id"],
            "active": key != "spring_old", "customer": None, "created": coupons[key]["created"] + HOUR,
            "expires_at": redeem_by, "max_redemptions": max_r, "times_redeemed": used,
            "restrictions": {"first_time_transaction": False, "minimum_amount": None}, "metadata": {}})
    cus, pm, sub = plain("team_monthly")  # already has a coupon
    promo = [p for p in g.s["promotion_codes"].values() if p["coupon"] == coupons["annual"]["id"]][0]
    discount = {"coupon": coupons["annual"]["id"], "promotion_code": promo["id"], "start": sub["created"]}
    sub["discount"] = discount

    # -- invoices: a duplicate sent by mistake, and one to write off -----------------------------------------------
    cus, pm, _ = plain("team_annual", qty=r.randrange(2, 6))
    line = [{"description": f"1 × {ONBOARDING}", "amount": onboarding, "quantity": 1, "price": P["onboarding"]["id"],
             "proration": False}]
    at = NOW - r.randrange(2, 6) * DAY + minutes(g, 0, 480)
    for dt in (0, minutes(g, 3, 40)):
        inv = g.invoice(cus, None, line, at + dt, at + dt, "open", at + dt)
        inv.update(collection_method="send_invoice", due_date=at + dt + 30 * DAY)
    cus, pm = new(lo=300, hi=500)  # closed down: billed until a few months ago, the last invoice unpaid
    sub = g.subscribe(cus, pm, [(P["business_monthly"]["id"], r.randrange(2, 6))], cus["created"], billed=0)
    starts = [add_months(sub["current_period_start"], -k) for k in (6, 5, 4)]
    for i, s in enumerate(starts):
        inv = g.bill(cus, sub, pm, s, add_months(s, 1), "paid" if i < 2 else "open",
                     failure=None if i < 2 else ("generic_decline", "Your card was declined."), attempts=4)
    end = add_months(starts[-1], 1)
    sub.update(status="canceled", canceled_at=end, ended_at=end, current_period_start=starts[-1],
               current_period_end=end, latest_invoice=inv["id"], cancellation_details={
                   "comment": "We are closing the company down.", "feedback": "other",
                   "reason": "payment_failed"})
    cus["delinquent"] = True

    # -- two subscriptions to one plan, minutes apart ---------------------------------------------------------------
    cus, pm = new(created=NOW - r.randrange(3, 11) * DAY - r.randrange(DAY))
    qty = r.randrange(2, 8)
    g.subscribe(cus, pm, [(P["team_monthly"]["id"], qty)], cus["created"] + HOUR, billed=1)
    g.subscribe(cus, pm, [(P["team_monthly"]["id"], qty)], cus["created"] + HOUR + minutes(g, 2, 15), billed=1)

    # -- trials, and one subscriber in each remaining status ------------------------------------------------------
    for days in (r.randrange(2, 5), r.randrange(8, 13)):
        cus, pm = new(created=NOW - (14 - days) * DAY - r.randrange(DAY))
        sub = g.subscribe(cus, pm, [(P["team_monthly"]["id"], r.randrange(2, 8))], cus["created"], billed=0)
        sub.update(status="trialing", trial_start=cus["created"], trial_end=cus["created"] + 14 * DAY,
                   current_period_start=cus["created"], current_period_end=cus["created"] + 14 * DAY)
    cus, pm, sub = plain("team_monthly")
    sub.update(cancel_at_period_end=True, cancel_at=sub["current_period_end"], cancellation_details={
        "comment": "Moving to another tool.", "feedback": "switched_service", "reason": "cancellation_requested"})
    cus, pm, sub = plain("business_monthly")
    sub["pause_collection"] = {"behavior": "void", "resumes_at": NOW + r.randrange(10, 40) * DAY}
    cus, pm, sub = plain("team_monthly")  # canceled; a refund of theirs failed, another is pending
    sub.update(status="canceled", canceled_at=NOW - 20 * DAY, ended_at=NOW - 20 * DAY)
    older, last = sorted((c for c in g.s["charges"].values() if c["customer"] == cus["id"]),
                         key=lambda c: c["created"])[-2:]
    g.refund(last, last["amount"] // 2, NOW - 2 * HOUR, "requested_by_customer")["status"] = "pending"
    gone = g.refund(older, older["amount"] // 2, NOW - 30 * DAY, "requested_by_customer")
    gone["status"] = "failed"
    del g.s["balance_transactions"][gone["balance_transaction"]]
    gone["balance_transaction"] = None
    older.update(amount_refunded=0, refunded=False)
    for status in ("canceled", "requires_action"):  # an abandoned checkout, and one waiting for 3-D Secure
        g.add("payment_intents", {
            "id": g.sid("pi"), "object": "payment_intent", "amount": P["onboarding"]["unit_amount"], "currency": "usd",
            "customer": cus["id"], "description": ONBOARDING, "created": NOW - r.randrange(2, 30) * DAY,
            "payment_method": pm["id"], "invoice": None, "latest_charge": None, "status": status, "metadata": {}})
    cus, pm = new(created=NOW - 45 * DAY, last4="0002")
    sub = g.subscribe(cus, pm, [(P["team_monthly"]["id"], 2)], cus["created"], billed=0)
    inv = g.bill(cus, sub, pm, sub["current_period_start"], sub["current_period_end"], "open",
                 failure=("generic_decline", "Your card was declined."), attempts=3)
    sub.update(status="unpaid", latest_invoice=inv["id"])
    cus, pm = new(created=NOW - DAY - r.randrange(HOUR, 5 * HOUR), last4="0002")
    sub = g.subscribe(cus, pm, [(P["business_monthly"]["id"], 3)], cus["created"], billed=0)
    inv = g.bill(cus, sub, pm, cus["created"], period_end(cus["created"], "month"), "open",
                 failure=("generic_decline", "Your card was declined."))
    sub.update(status="incomplete", latest_invoice=inv["id"])
    cus, pm = new(created=NOW - 3 * DAY - r.randrange(HOUR, 5 * HOUR), last4="0002")  # never paid, expired
    sub = g.subscribe(cus, pm, [(P["team_monthly"]["id"], 2)], cus["created"], billed=0)
    inv = g.bill(cus, sub, pm, cus["created"], period_end(cus["created"], "month"), "open",
                 failure=("generic_decline", "Your card was declined."))
    inv.update(status="void", amount_remaining=0)
    inv["status_transitions"]["voided_at"] = cus["created"] + 23 * HOUR
    sub.update(status="incomplete_expired", latest_invoice=inv["id"], ended_at=cus["created"] + 23 * HOUR)
    cus, pm = new(created=NOW - 40 * DAY)
    sub = g.subscribe(cus, pm, [(P["team_monthly"]["id"], 1)], cus["created"], billed=0)
    sub.update(status="paused", trial_start=cus["created"], trial_end=cus["created"] + 14 * DAY)
    cus, pm, sub = plain("team_monthly")  # an old invoice voided, one written off, a draft for next week
    inv = g.invoice(cus, None, line, NOW - 70 * DAY, NOW - 70 * DAY, "void", NOW - 70 * DAY)
    inv["status_transitions"]["voided_at"] = NOW - 69 * DAY
    inv = g.invoice(cus, None, [{**line[0], "description": "1 × Data migration", "amount": 15_000}],
                    NOW - 200 * DAY, NOW - 200 * DAY, "uncollectible", NOW - 200 * DAY)
    inv["status_transitions"]["marked_uncollectible_at"] = NOW - 100 * DAY
    g.invoice(cus, None, line, NOW + 0, NOW + 0, "draft", NOW - 2 * HOUR)

    # -- two customers with one name, and two whose first names differ by a letter --------------------------------
    f, l, _ = next(people)
    companies = [c for c in COMPANIES if all(c != x["description"] for x in g.s["customers"].values())]
    for company in r.sample(companies, 2):
        cus = g.customer(f, l, company, NOW - r.randrange(90, 500) * DAY)
        pm = g.card(cus, cus["created"])
        g.subscribe(cus, pm, [(P[r.choice(("team_monthly", "business_monthly"))]["id"], r.randrange(2, 9))],
                    cus["created"])
    a, b = r.choice(LOOKALIKES)
    used = {c["name"].split()[-1] for c in g.s["customers"].values()}
    last_name = r.choice([x for x in LAST if x not in used])
    for first_name, company in zip((a, b), r.sample([c for c in companies if c not in
                                                     {x["description"] for x in g.s["customers"].values()}], 2)):
        cus = g.customer(first_name, last_name, company, NOW - r.randrange(90, 500) * DAY)
        pm = g.card(cus, cus["created"])
        g.subscribe(cus, pm, [(P["team_monthly"]["id"], r.randrange(2, 9))], cus["created"])
