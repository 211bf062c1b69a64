"""Who plays which part in a billing start state, found by content alone.

The generator (``plant.py``) makes each planted situation unique; the parts
a task may give to any ordinary subscriber (an annual switch, more seats) go
to the *plain* customers, picked by a fixed rule (earliest created on the
plan) among those with a unique name, one active subscription and nothing
else going on. The tests hold the generator to every part on many seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from ..task import only
from .clock import NOW
from .state import ONBOARDING

_one = partial(only, world="billing")


@dataclass(frozen=True)
class Cast:
    prices: dict  # lookup key (team_monthly, team_annual_2024…) -> price
    customers: dict  # id -> customer
    dup: tuple  # (customer, the earlier charge, its copy minutes later, the legitimate one weeks before)
    partial: tuple  # (customer, an onboarding charge already refunded in part)
    single: tuple  # (customer, an onboarding charge nothing happened to)
    retry: tuple  # (customer, the open invoice, the expired default card, the new card)
    broke: tuple  # (customer, the open invoice declined for insufficient funds)
    due: dict  # the dispute to answer this week ...
    late: dict  # ... the one past its deadline ...
    inquiry: dict  # ... an inquiry (warning_needs_response) ...
    small: dict  # ... and one under $20
    promos: dict  # spring, spring_old, launch, friends, annual -> promotion code
    discounted: tuple  # (customer, subscription) that already has a coupon
    dup_invoices: tuple  # (customer, the invoice to keep, the copy sent by mistake)
    writeoff: tuple  # (customer, the unpaid invoice of a business that closed)
    dup_subs: tuple  # (customer, the older subscription, the newer copy)
    trial: tuple  # (customer, the trial that ends soonest)
    namesakes: tuple  # two customers with one name, by id
    lookalikes: tuple  # two customers whose first names differ by a letter
    plain: dict  # price lookup key -> [(customer, subscription)] by creation
    payout: dict  # the latest paid payout


def subs_of(store, cid: str) -> list:
    return [s for _, s in store.scan("subscriptions", {"customer": cid})]


def charges_of(store, cid: str) -> list:
    return sorted((c for _, c in store.scan("charges", {"customer": cid})), key=lambda c: (c["created"], c["id"]))


def cast(store) -> Cast:
    prices = {}
    for _, p in store.scan("prices"):
        key = p["lookup_key"] or p["nickname"].lower().replace(" (2024)", "_2024").replace(" ", "_")
        prices[key] = p
    customers = dict(store.scan("customers"))
    names: dict = {}
    for c in customers.values():
        names.setdefault(c["name"], []).append(c)
    disputes = [d for _, d in store.scan("disputes")]
    disputed_customers = {store.get("charges", d["charge"])["customer"] for d in disputes}
    onboarding = [c for _, c in store.scan("charges") if c["description"] == ONBOARDING]
    by_customer: dict = {}
    for c in onboarding:
        by_customer.setdefault(c["customer"], []).append(c)

    def dup_pair(chs):
        chs = sorted(chs, key=lambda c: c["created"])
        return [(a, b) for a, b in zip(chs, chs[1:]) if b["created"] - a["created"] < 600]

    dup_cid = _one([cid for cid, chs in by_customer.items() if dup_pair(chs)], "customer charged twice")
    first, copy = dup_pair(by_customer[dup_cid])[0]
    legit = _one([c for c in by_customer[dup_cid] if c["id"] not in (first["id"], copy["id"])], "legitimate charge")
    part = _one([c for c in onboarding if 0 < c["amount_refunded"] < c["amount"]], "partly refunded charge")
    singles = sorted((chs[0] for cid, chs in by_customer.items() if len(chs) == 1 and chs[0]["amount_refunded"] == 0),
                     key=lambda c: (c["created"], c["id"]))

    opens = [i for _, i in store.scan("invoices", {"status": "open"}) if i["subscription"]]

    def declined(code):
        out = []
        for inv in opens:
            ch = store.get("charges", inv["charge"]) if inv["charge"] else None
            sub = store.get("subscriptions", inv["subscription"])
            if ch and ch["outcome"]["decline_code"] == code and sub["status"] == "past_due":
                out.append(inv)
        return _one(out, f"past-due invoice declined with {code}")

    r_inv = declined("expired_card")
    r_cus = customers[r_inv["customer"]]
    pms = sorted((p for _, p in store.scan("payment_methods", {"customer": r_cus["id"]})), key=lambda p: p["created"])
    b_inv = declined("insufficient_funds")

    def dispute(status, test=lambda d: True, what=""):
        return _one([d for d in disputes if d["status"] == status and test(d)], what or status + " dispute")

    promos = {}
    for _, p in store.scan("promotion_codes"):
        key = p["code"].rstrip("0123456789").lower()
        if key == "spring" and not p["active"]:
            key = "spring_old"
        promos[key] = p
    disc = _one([s for _, s in store.scan("subscriptions") if s["discount"] is not None], "discounted subscription")

    sent = [i for _, i in store.scan("invoices", {"status": "open", "collection_method": "send_invoice"})]
    groups: dict = {}
    for inv in sent:
        groups.setdefault((inv["customer"], inv["total"]), []).append(inv)
    pair = sorted(_one([g for g in groups.values() if len(g) == 2], "duplicate invoice pair"),
                  key=lambda i: (i["created"], i["id"]))
    closed = _one([s for _, s in store.scan("subscriptions", {"status": "canceled"})
                   if store.get("invoices", s["latest_invoice"])["status"] == "open"], "closed business")
    by_plan: dict = {}
    for _, s in store.scan("subscriptions", {"status": "active"}):
        by_plan.setdefault((s["customer"], s["items"][0]["price"]), []).append(s)
    dsubs = sorted(_one([g for g in by_plan.values() if len(g) == 2], "duplicate subscriptions"),
                   key=lambda s: (s["created"], s["id"]))
    trials = sorted((s for _, s in store.scan("subscriptions", {"status": "trialing"})), key=lambda s: s["trial_end"])
    same = _one([g for g in names.values() if len(g) == 2], "two customers with one name")
    firsts: dict = {}
    for c in customers.values():
        firsts.setdefault(c["name"].split()[-1], []).append(c)
    alike = _one([g for g in firsts.values() if len(g) == 2 and g[0]["name"] != g[1]["name"]], "look-alike pair")

    key_of = {p["id"]: k for k, p in prices.items()}
    plain: dict = {}
    for cid, c in sorted(customers.items(), key=lambda kv: (kv[1]["created"], kv[0])):
        subs = subs_of(store, cid)
        if len(names[c["name"]]) > 1 or len(subs) != 1 or cid in disputed_customers or c["delinquent"]:
            continue
        s = subs[0]
        if (s["status"] != "active" or s["discount"] or s["pause_collection"] or s["cancel_at_period_end"]
                or len(s["items"]) != 1 or cid in by_customer
                or any(i["status"] != "paid" for _, i in store.scan("invoices", {"customer": cid}))
                or any(ch["amount_refunded"] for ch in charges_of(store, cid))):
            continue
        plain.setdefault(key_of[s["items"][0]["price"]], []).append((c, s))
    payouts = sorted((p for _, p in store.scan("payouts", {"status": "paid"})), key=lambda p: p["created"])
    return Cast(
        prices=prices, customers=customers,
        dup=(customers[dup_cid], first, copy, legit),
        partial=(customers[part["customer"]], part),
        single=(customers[singles[0]["customer"]], singles[0]),
        retry=(r_cus, r_inv, pms[0], pms[-1]) if len(pms) == 2 else _one([], "customer with a new card"),
        broke=(customers[b_inv["customer"]], b_inv),
        due=dispute("needs_response", lambda d: d["evidence_details"]["due_by"] > NOW and d["amount"] >= 2000,
                    "dispute due this week"),
        late=dispute("needs_response", lambda d: d["evidence_details"]["due_by"] < NOW, "dispute past due"),
        inquiry=dispute("warning_needs_response"),
        small=dispute("needs_response", lambda d: d["amount"] < 2000, "small dispute"),
        promos=promos,
        discounted=(customers[disc["customer"]], disc),
        dup_invoices=(customers[pair[0]["customer"]], pair[0], pair[1]),
        writeoff=(customers[closed["customer"]], store.get("invoices", closed["latest_invoice"])),
        dup_subs=(customers[dsubs[0]["customer"]], dsubs[0], dsubs[1]),
        trial=(customers[trials[0]["customer"]], trials[0]),
        namesakes=tuple(sorted(same, key=lambda c: c["id"])),
        lookalikes=tuple(sorted(alike, key=lambda c: c["id"])),
        plain=plain,
        payout=payouts[-1],
    )
