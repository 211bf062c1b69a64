"""Billing's tasks about plans and customers: switching, cancelling, pausing,
trials, seats, coupons, and the customer records themselves."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from .cast import cast
from .clock import DAY, NOW, day, dollars, ts_of, when
from .seed_people import COMPANIES, FIRST, LAST
from .taskkit import asked, find, nc, one_refund, refund_check, refunded, rng, said, status, sub_updated, who

PRORATED = "create_prorations"


def _prorated(sub: dict) -> C.RecordExists:
    return C.RecordExists(id="prorated", label="The change was prorated (a credit for the unused time)",
                          collection="invoiceitems", where={"subscription": sub["id"], "proration": True})


def _items(sub: dict) -> C.Allow:
    return C.Allow(collection="invoiceitems", ops=["created"], where={"subscription": sub["id"]})


def _on_price(check_id: str, sub: dict, price: dict, weight: float = 2) -> C.RecordExists:
    return C.RecordExists(id=check_id, label=f"The subscription is on {price['nickname']}", collection="subscriptions",
                          where={"id": sub["id"], "items.0.price": price["id"]}, weight=weight)


def annual_switch(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["team_monthly"][0]
    annual, item = c.prices["team_annual"], sub["items"][0]
    change = [{"id": item["id"], "price": annual["id"]}]
    return Setup(
        instruction=f"{who(cus)} wants to move to annual billing on the same plan. Set it up and prorate it.",
        checks=[_on_price("on-annual", sub, annual), _prorated(sub),
                C.RecordExists(id="annual-invoice", label="A new invoice bills the annual price", collection="invoices",
                               where={"subscription": sub["id"], "status": "draft", "lines.1.price": annual["id"]}),
                nc(sub_updated(sub), _items(sub),
                   C.Allow(collection="invoices", ops=["created"], where={"subscription": sub["id"]}))],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"]}),
                  ("Price.list", {"lookup_keys": ["team_annual"], "active": True}),
                  ("Invoice.create_preview", {"customer": cus["id"], "subscription": sub["id"],
                                              "subscription_details": {"items": change}}),
                  ("Subscription.modify", {"id": sub["id"], "items": change, "proration_behavior": PRORATED}),
                  ("Invoice.list", {"customer": cus["id"], "status": "draft"})],
        output=(f"Moved {cus['name']} from Team monthly to Team annual ({dollars(annual['unit_amount'])} a seat a year, "
                f"{item['quantity']} seats), prorated: the unused part of this month is credited on the new annual "
                "invoice, and the billing year starts today."),
    )


def downgrade(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["business_monthly"][0]
    team, item = c.prices["team_monthly"], sub["items"][0]
    return Setup(
        instruction=f"{who(cus)} wants to drop from Business to Team, keeping the same number of seats.",
        checks=[_on_price("on-team", sub, team), _prorated(sub),
                C.RecordExists(id="same-seats", label=f"Still {item['quantity']} seats", collection="subscriptions",
                               where={"id": sub["id"], "items.0.quantity": item["quantity"]}),
                nc(sub_updated(sub), _items(sub))],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"]}),
                  ("Price.list", {"active": True, "type": "recurring"}),
                  ("Subscription.modify", {"id": sub["id"], "items": [{"id": item["id"], "price": team["id"]}],
                                           "proration_behavior": PRORATED})],
        output=(f"Moved {cus['name']} from Business monthly to Team monthly ({dollars(team['unit_amount'])} a seat), "
                f"{item['quantity']} seats, prorated: the unused Business time is credited on their next invoice."),
    )


def cancel_at_end(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["business_monthly"][1]
    return Setup(
        instruction=(f"{who(cus)} wrote in: they're moving to a competitor and want their subscription cancelled right "
                     "away."),
        checks=[status("at-period-end", "The subscription is set to cancel at the period's end", "subscriptions", sub,
                       True, field="cancel_at_period_end"),
                status("still-active", "It was not cancelled at once", "subscriptions", sub, "active", 1, always=True),
                said("told-date", f"The answer gives the end date, {day(sub['current_period_end'])}",
                     day(sub["current_period_end"])),
                nc(sub_updated(sub))],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"]}),
                  ("Subscription.modify", {"id": sub["id"], "cancel_at_period_end": True,
                                           "cancellation_details": {"feedback": "switched_service"}})],
        output=(f"Switching to a competitor does not qualify for an immediate cancellation, so {cus['name']}'s "
                f"subscription is set to cancel at the end of the period they have paid for, on "
                f"{day(sub['current_period_end'])}; they keep access until then."),
    )


def duplicate_subscription(store) -> Setup:
    c = cast(store)
    cus, older, newer = c.dup_subs
    inv = store.get("invoices", newer["latest_invoice"])
    ch = store.get("charges", inv["charge"])
    return Setup(
        instruction=f"{who(cus)} says they were signed up for Team twice last week. Please fix it.",
        checks=[status("newer-canceled", f"The newer subscription {newer['id']} was cancelled", "subscriptions", newer,
                       "canceled"),
                status("older-kept", f"The older subscription {older['id']} is still active", "subscriptions", older,
                       "active", 1, always=True),
                refund_check("duplicate-refunded", f"The duplicate's charge {ch['id']} was refunded in full", ch,
                             ch["amount"], reason="duplicate"),
                one_refund(),
                nc(sub_updated(newer), _items(newer), *refunded(ch))],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"]}),
                  ("Invoice.list", {"subscription": newer["id"]}), ("Charge.retrieve", {"id": ch["id"]}),
                  ("Subscription.cancel", {"id": newer["id"], "cancellation_details": {
                      "comment": "Duplicate subscription"}}),
                  ("Refund.create", {"charge": ch["id"], "reason": "duplicate"})],
        output=(f"{cus['name']} had two Team subscriptions created minutes apart. I cancelled the newer one, "
                f"{newer['id']}, at once (a duplicate qualifies) and refunded its charge {ch['id']} of "
                f"{dollars(ch['amount'])} in full as a duplicate; {older['id']} stays active."),
    )


def expired_code(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["team_monthly"][1]
    code = c.promos["launch"]
    return Setup(
        instruction=f"{who(cus)} wants to use the code {code['code']} on their subscription.",
        checks=[C.NoWrites(id="no-discount", label="No discount was applied", collection="subscriptions",
                           always_scored=True),
                said("names-expiry", "The answer says the code has expired", "expired"), nc()],
        solution=[find(cus), ("PromotionCode.list", {"code": code["code"]})],
        output=(f"I did not apply {code['code']}: the promotion code expired on {day(code['expires_at'])}, and we only "
                "apply codes that are active, unexpired and not used up."),
        )


def second_coupon(store) -> Setup:
    c = cast(store)
    cus, sub = c.discounted
    spring = c.promos["spring"]
    return Setup(
        instruction=f"{who(cus)} asked for the {spring['code']} discount on their subscription too.",
        checks=[C.NoWrites(id="no-discount", label="No second discount was applied", collection="subscriptions",
                           always_scored=True),
                said("names-rule", "The answer names the one-coupon rule", "one coupon"), nc()],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"]})],
        output=(f"I did not add {spring['code']}: {cus['name']}'s subscription already has a discount, and our rule is "
                "one coupon per customer."),
    )


def apply_code(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["team_monthly"][3]
    spring, old = c.promos["spring"], c.promos["spring_old"]
    return Setup(
        instruction=f"Please apply the promotion code {spring['code']} to {who(cus)}'s subscription.",
        checks=[C.RecordExists(id="discounted", label=f"The subscription has {spring['code']}",
                               collection="subscriptions", weight=2,
                               where={"id": sub["id"], "discount.promotion_code": spring["id"]}),
                C.RecordAbsent(id="not-old-code", label=f"Last year's {old['code']} was not used",
                               collection="subscriptions", where={"discount.promotion_code": old["id"]}),
                nc(sub_updated(sub), C.Allow(collection="coupons", ops=["updated"], where={"id": spring["coupon"]}),
                   C.Allow(collection="promotion_codes", ops=["updated"], where={"id": spring["id"]}))],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"]}),
                  ("PromotionCode.list", {"code": spring["code"], "active": True}),
                  ("Subscription.modify", {"id": sub["id"], "discounts": [{"promotion_code": spring["id"]}]})],
        output=(f"Applied {spring['code']} ({spring['id']}, valid until {day(spring['expires_at'])}) to "
                f"{cus['name']}'s subscription {sub['id']}."),
    )


def namesake(store) -> Setup:
    c = cast(store)
    a, b = c.namesakes
    target, other = (a, b) if rng(store, "bl-14").random() < 0.5 else (b, a)
    sub = [s for _, s in store.scan("subscriptions", {"customer": target["id"]})][0]
    osub = [s for _, s in store.scan("subscriptions", {"customer": other["id"]})][0]
    return Setup(
        instruction=f"Please cancel {target['name']}'s subscription at the end of the period.",
        checks=[asked(), status("target-cancels", "The right customer's subscription cancels at the period's end",
                                "subscriptions", sub, True, field="cancel_at_period_end"),
                status("other-kept", f"The other {other['name']}'s subscription was left alone", "subscriptions", osub,
                       False, 1, field="cancel_at_period_end", always=True),
                nc(sub_updated(sub))],
        solution=[find(target), ("ask_user", {"question": f"There are two customers named {target['name']}; which one "
                                                          "(email or company)?"}),
                  ("Subscription.list", {"customer": target["id"]}),
                  ("Subscription.modify", {"id": sub["id"], "cancel_at_period_end": True})],
        output=(f"There are two customers named {target['name']}; you meant the one at {target['description']} "
                f"({target['email']}). Their subscription now cancels on {day(sub['current_period_end'])}."),
        hidden_facts={"which, email, company, who, one, address": f"The one at {target['description']}, "
                                                                   f"{target['email']}."},
        persona="Dana from Tallyroom's customer success team, who answers briefly.",
    )


def pause_billing(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["team_monthly"][4]
    t = when(NOW + rng(store, "bl-15").randrange(20, 60) * DAY)
    resume = ts_of(t.year, t.month, t.day)
    return Setup(
        instruction=f"{who(cus)} is closing their office for a while. Pause their billing until they're back.",
        checks=[asked(),
                C.FieldEquals(id="resumes", label=f"Billing resumes on {day(resume)}", collection="subscriptions",
                              field="pause_collection.resumes_at", value=resume, where={"id": sub["id"]}, weight=2),
                C.FieldEquals(id="voids", label="Invoices are voided while paused", collection="subscriptions",
                              field="pause_collection.behavior", value="void", where={"id": sub["id"]}),
                nc(sub_updated(sub))],
        solution=[find(cus), ("ask_user", {"question": "Until what date should their billing be paused?"}),
                  ("Subscription.list", {"customer": cus["id"]}),
                  ("Subscription.modify", {"id": sub["id"], "pause_collection": {"behavior": "void",
                                                                                 "resumes_at": resume}})],
        output=f"Paused billing for {cus['name']} (invoices voided meanwhile); it resumes on {day(resume)}.",
        hidden_facts={"when, date, until, back, resume, long, return": f"Until {day(resume)}."},
        persona="Sam from Tallyroom support, who answers briefly.",
    )


def extend_trial(store) -> Setup:
    c = cast(store)
    cus, sub = c.trial
    end = sub["trial_end"] + 7 * DAY
    return Setup(
        instruction=f"{who(cus)} asked for one more week on their trial.",
        checks=[status("extended", f"The trial now ends {day(end)}", "subscriptions", sub, end, field="trial_end"),
                status("trialing", "Still trialing", "subscriptions", sub, "trialing", 1, always=True),
                nc(sub_updated(sub))],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"], "status": "trialing"}),
                  ("Subscription.modify", {"id": sub["id"], "trial_end": end, "proration_behavior": "none"})],
        output=f"Extended {cus['name']}'s trial by a week: it now ends on {day(end)}.",
    )


def add_seats(store) -> Setup:
    c = cast(store)
    cus, sub = c.plain["team_monthly"][6]
    item = sub["items"][0]
    more = rng(store, "bl-21").randrange(2, 6)
    return Setup(
        instruction=f"{who(cus)} is hiring: add {more} seats to their subscription.",
        checks=[C.RecordExists(id="seats", label=f"{item['quantity'] + more} seats", collection="subscriptions",
                               weight=2, where={"id": sub["id"], "items.0.quantity": item["quantity"] + more}),
                _prorated(sub), nc(sub_updated(sub), _items(sub))],
        solution=[find(cus), ("Subscription.list", {"customer": cus["id"]}),
                  ("Subscription.modify", {"id": sub["id"], "items": [{"id": item["id"],
                                                                      "quantity": item["quantity"] + more}],
                                           "proration_behavior": PRORATED})],
        output=(f"{cus['name']} now has {item['quantity'] + more} seats (was {item['quantity']}); the new seats are "
                "prorated on their next invoice."),
    )


def new_customer(store) -> Setup:
    r = rng(store, "bl-23")
    taken = {c["name"] for _, c in store.scan("customers")}
    used = {c["description"] for _, c in store.scan("customers")}
    name = r.choice([f"{f} {l}" for f in FIRST for l in LAST if f"{f} {l}" not in taken])
    company = r.choice([c for c in COMPANIES if c not in used] or ["Kestrel Bikes"])
    email = f"{name.split()[0].lower()}@{company.lower().replace(' ', '').replace('&', 'and')}.io"
    return Setup(
        instruction=f"Add a new customer: {name}, {email}, from {company}.",
        checks=[C.RecordExists(id="created", label=f"{name} was added", collection="customers", weight=2,
                               where={"email": email, "name": name, "description": company}),
                C.WriteCount(id="one-customer", label="Exactly one customer was added", collection="customers",
                             min=1, max=1),
                nc(C.Allow(collection="customers", ops=["created"], where={"email": email}))],
        solution=[("Customer.search", {"query": f"email:'{email}'"}),
                  ("Customer.create", {"name": name, "email": email, "description": company})],
        output=f"Added {name} ({email}) of {company} as a new customer.",
    )


def change_email(store) -> Setup:
    c = cast(store)
    a, b = c.lookalikes
    target, other = (a, b) if rng(store, "bl-27").random() < 0.5 else (b, a)
    new = target["email"].replace("@", ".billing@")
    return Setup(
        instruction=f"{who(target)} has a new billing email, {new}. Please update it.",
        checks=[status("updated", f"{target['name']}'s email is {new}", "customers", target, new, field="email"),
                status("other-kept", f"{other['name']}'s email is unchanged", "customers", other, other["email"], 1,
                       field="email", always=True),
                nc(C.Allow(collection="customers", ops=["updated"], where={"id": target["id"]}))],
        solution=[find(target), ("Customer.modify", {"id": target["id"], "email": new})],
        output=(f"Updated {target['name']}'s email to {new}. (Not to be confused with {other['name']} at "
                f"{other['description']}, whom I left alone.)"),
    )
