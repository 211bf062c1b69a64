"""Quickbasket's seeded start state: ``generate(seed)``.

One customer's account at an online grocery shop on Tuesday 12 May 2026:
the catalog (~110 products, priced and stocked by the seed), a cart ready to
check out, two saved shopping lists, delivery slots for the next six days,
promo codes, two addresses, the order history (delivered, cancelled, one out
for delivery, two placed for later this week) and past refunds.

The seed varies prices, stock, slot fees and capacity, the cart, the lists,
the orders and their lines, promo values, names and addresses. Around that
noise it plants the situations the tasks are about, so every task has its
decision on every seed: an out-of-stock product that has an allowed
substitute and one that has none (both on the weekly list), an out-of-stock
line flagged on Thursday's order, one item of the last delivery that is out
of stock now, gluten-free staples whose cheapest option is sold out, a
Friday-evening slot that may be full, promo codes of which exactly one is
best. Only ``random.Random`` seeded with the seed is used.

Ids are fixed-width (``p-0123``, ``ord-2417``, ``sl-0514-18``) so no id is a
substring of another. Money is integer cents.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta, timezone

from . import rules
from .catalog import BRAND_FACTOR, FAMILIES, GF, ORGANIC, SWAPPABLE, Family

COLLECTIONS = ("account", "addresses", "products", "cart", "lists", "orders", "slots", "promos", "refunds")
EPOCH = "2026-05-12T16:00:00.000Z"  # 09:00 in San Francisco (UTC-7)
ACCOUNT_ID = "acct"
UTC_OFFSET_H = -7  # the shop's time zone in May (America/Los_Angeles, daylight time)
SLOT_DAYS = ("2026-05-13", "2026-05-14", "2026-05-15", "2026-05-16", "2026-05-17", "2026-05-18")
WINDOWS = ((8, 10, 399), (10, 12, 299), (12, 14, 299), (14, 16, 299), (16, 18, 499), (18, 20, 599), (20, 22, 399))
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
TOMORROW, THURSDAY, FRIDAY, SATURDAY = "2026-05-13", "2026-05-14", "2026-05-15", "2026-05-16"
WEEKLY, TACOS = "Weekly basics", "Taco night"
GF_KINDS = ("spaghetti", "sandwich bread", "crackers")
LAST_ORDER_KINDS = ("large eggs", "greek yogurt", "cheddar")

CUSTOMERS = (("Dana Whitfield", "dana.whitfield@fastmail.com"), ("Marcus Osei", "marcus.osei@gmail.com"),
             ("Priya Natarajan", "priya.n@outlook.com"), ("Elena Sokolova", "elena.sokolova@gmail.com"),
             ("Tom Brennan", "tbrennan@icloud.com"))
HOMES = (("1847 Fulton Street", "Apt 3", "94117"), ("622 Noe Street", "", "94114"),
         ("2290 Lombard Street", "Unit 5", "94123"), ("415 Judah Street", "", "94122"),
         ("78 Elsie Street", "", "94110"))
MOMS = (("3311 Grand Avenue", "Oakland", "94610"), ("58 Vernon Street", "Oakland", "94610"),
        ("1402 Cedar Street", "Berkeley", "94702"))


def local_iso(day: str, hh: int, mm: int = 0) -> str:
    """A shop-local wall time as UTC ``YYYY-MM-DDTHH:MM:SS.000Z``."""
    d = date.fromisoformat(day)
    t = datetime(d.year, d.month, d.day, hh, mm, tzinfo=timezone.utc) - timedelta(hours=UTC_OFFSET_H)
    return t.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def shift(day: str, days: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def weekday(day: str) -> str:
    return WEEKDAYS[date.fromisoformat(day).weekday()]


def slot_id(day: str, hh: int) -> str:
    return f"sl-{day[5:7]}{day[8:10]}-{hh:02d}"


class _Shop:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.products: list = []
        self.by_family: dict = {}

    def price(self, fam: Family, brand: str, tags: tuple) -> int:
        p = fam.base * BRAND_FACTOR[brand] * (1.28 if ORGANIC in tags else 1.0) * self.rng.uniform(0.9, 1.12)
        return max(99, int(round(p / 10)) * 10 - 1)

    def build_catalog(self) -> None:
        for fi, fam in enumerate(FAMILIES):
            items = []
            for brand, name, tags in fam.variants:
                items.append({"kind": fam.kind, "category": fam.category, "size": fam.size, "brand": brand,
                              "name": name, "tags": sorted(tags), "price": self.price(fam, brand, tags),
                              "stock": 0 if self.rng.random() < 0.05 else self.rng.randrange(4, 60),
                              "age_restricted": fam.age_restricted})
            self.by_family[fi] = items
            self.products += items
        self.rng.shuffle(self.products)
        for i, p in enumerate(self.products):
            p["id"] = f"p-{101 + i:04d}"

    def family(self, fam: Family) -> list:
        return self.by_family[FAMILIES.index(fam)]

    def stocked(self, p: dict, at_least: int) -> dict:
        """Make sure ``p`` can be ordered ``at_least`` times (random noise may have sold it out)."""
        if p["stock"] < at_least:
            p["stock"] = at_least + self.rng.randrange(0, 20)
        return p

    def plant_swap(self, fam: Family, with_substitute: bool) -> dict:
        """An organic product of ``fam`` sold out, with exactly the wanted
        outcome of the substitution rule; returns the sold-out product."""
        organic = [p for p in self.family(fam) if ORGANIC in p["tags"]]
        target, other = self.rng.sample(organic, 2)
        target["stock"] = 0
        for p in organic:
            if p is target:
                continue
            if p is other and with_substitute:
                p["price"] = target["price"] + max(10, target["price"] * self.rng.randrange(2, 10) // 100 // 10 * 10)
                self.stocked(p, 8)
            else:  # too dear to be allowed
                p["price"] = target["price"] * self.rng.randrange(120, 140) // 100 // 10 * 10 + 9
                self.stocked(p, 8)
        for p in self.family(fam):  # the tempting non-organic ones are cheaper and in stock
            if ORGANIC not in p["tags"]:
                p["price"] = min(p["price"], target["price"] * 85 // 100 // 10 * 10 + 9)
                self.stocked(p, 8)
        assert (rules.substitute_for(self.products, target) is not None) == with_substitute
        return target


def _line(p: dict, qty: int, status: str = "ok") -> dict:
    return {"product_id": p["id"], "name": p["name"], "size": p["size"], "quantity": qty,
            "unit_price": p["price"], "line_total": p["price"] * qty, "status": status, "substitute": None}


def generate(seed: int) -> dict:
    """The start state for ``seed``: ``{collection: {id: record}}``."""
    rng = random.Random(f"quickbasket/{seed}")
    shop = _Shop(rng)
    shop.build_catalog()
    fams = list(FAMILIES)

    # -- planted stock situations -----------------------------------------------------------------------------
    last_kind_fams = [f for f in fams if f.kind in LAST_ORDER_KINDS and f in SWAPPABLE]
    swap_pool = [f for f in SWAPPABLE if f not in last_kind_fams]
    fam_a, fam_b, fam_f = rng.sample(swap_pool, 3)
    sold_a = shop.plant_swap(fam_a, True)  # on the weekly list: substitute it
    sold_b = shop.plant_swap(fam_b, False)  # on the weekly list: leave it out
    flag_has_sub = rng.random() < 0.5
    sold_f = shop.plant_swap(fam_f, flag_has_sub)  # flagged on Thursday's order

    for kind in GF_KINDS:  # gluten-free staples: sometimes the cheapest one is sold out
        gf = sorted((p for p in shop.products if p["kind"] == kind and GF in p["tags"]), key=lambda p: p["price"])
        for p in gf:
            shop.stocked(p, 4)
        if rng.random() < 0.6:
            gf[0]["stock"] = 0

    plain = [f for f in fams if f not in SWAPPABLE and not f.age_restricted and f.kind not in GF_KINDS]

    def pick(fam_list, k):
        out = []
        for f in rng.sample(fam_list, k):
            out.append(rng.choice(shop.family(f)))
        return out

    # -- orders ---------------------------------------------------------------------------------------------------
    orders: list = []

    def order(status, placed_day, placed_hh, slot_day, window, lines, delivered_day=None, cancelled_day=None,
              address=None):
        fee = rng.choice((299, 399, 499, 599))
        subtotal = sum(rules.line_charge(ln) for ln in lines)
        o = {"status": status, "placed_at": local_iso(placed_day, placed_hh, rng.randrange(0, 60)),
             "slot": {"id": slot_id(slot_day, window[0]), "date": slot_day, "weekday": weekday(slot_day),
                      "start": f"{window[0]:02d}:00", "end": f"{window[1]:02d}:00"},
             "address": address, "lines": lines, "subtotal": subtotal, "discount": 0, "promo_code": None,
             "delivery_fee": fee, "total": subtotal + fee,
             "item_count": sum(ln["quantity"] for ln in lines if ln["status"] != "removed"),
             "delivered_at": local_iso(delivered_day, window[0] + 1, rng.randrange(0, 60)) if delivered_day else None,
             "cancelled_at": local_iso(cancelled_day, rng.randrange(9, 20)) if cancelled_day else None}
        orders.append(o)
        return o

    # The last delivery: eggs, yogurt and cheddar, one item sold out since, two more.
    last = [rng.choice(shop.family(f)) for f in rng.sample(last_kind_fams, len(last_kind_fams))]
    last.sort(key=lambda p: LAST_ORDER_KINDS.index(p["kind"]))
    gone = rng.choice(shop.family(rng.choice(plain)))
    others = pick([f for f in plain if f.kind != gone["kind"]], 2)
    last_lines = []
    for p in last + others:
        qty = rng.choice((1, 1, 2)) if p["kind"] != "greek yogurt" else rng.choice((1, 2))
        shop.stocked(p, qty + 2)
        last_lines.append(_line(p, qty))
    gone_qty = rng.choice((1, 2))
    gone["stock"] = 0
    last_lines.insert(rng.randrange(3, len(last_lines) + 1), _line(gone, gone_qty))
    delivered = shift(rules.TODAY, -rng.randrange(2, 9))
    order("delivered", shift(delivered, -1), rng.randrange(8, 21), delivered, rng.choice(WINDOWS), last_lines,
          delivered_day=delivered)

    # Out for delivery this morning.
    ofd = [_line(p, rng.choice((1, 1, 2, 3))) for p in pick(plain, rng.randrange(3, 6))]
    order("out_for_delivery", shift(rules.TODAY, -1), rng.randrange(12, 21), rules.TODAY,
          rng.choice(((10, 12, 0), (12, 14, 0))), ofd)

    # Thursday's order, with a line the shop flagged as sold out, and Saturday's.
    thu_lines = [_line(p, rng.choice((1, 2))) for p in pick(plain, rng.randrange(2, 4))]
    thu_lines.insert(rng.randrange(0, len(thu_lines) + 1), _line(sold_f, rng.choice((1, 2)), "out_of_stock"))
    order("placed", shift(rules.TODAY, -1), rng.randrange(8, 22), THURSDAY, rng.choice(WINDOWS), thu_lines)
    sat_lines = [_line(p, rng.choice((1, 2, 3))) for p in pick(plain, rng.randrange(3, 6))]
    order("placed", shift(rules.TODAY, -2), rng.randrange(8, 22), SATURDAY, rng.choice(WINDOWS), sat_lines)

    # History: March to early May, at least two April deliveries and an April cancellation.
    history_days = [shift("2026-03-02", rng.randrange(0, 28)) for _ in range(3)]
    history_days += [shift("2026-04-01", d) for d in sorted(rng.sample(range(0, 29), rng.randrange(3, 5)))]
    history_days.append(shift("2026-04-30", 0))  # placed in April, delivered in May
    refunds_on = []
    for i, day in enumerate(sorted(history_days)):
        lines = [_line(p, rng.choice((1, 1, 2))) for p in pick(plain + list(SWAPPABLE), rng.randrange(3, 7))]
        cancel = day.startswith("2026-04") and i % 3 == 1
        # Placed in the day (07:00-16:59 local), so the UTC placed_at is on the same date.
        o = order("cancelled" if cancel else "delivered", day, rng.randrange(7, 17), shift(day, 1),
                  rng.choice(WINDOWS), lines, delivered_day=None if cancel else shift(day, 1),
                  cancelled_day=day if cancel else None)
        if not cancel and rng.random() < 0.45:
            refunds_on.append(o)
    if not any(o["placed_at"].startswith("2026-04") for o in refunds_on):
        april = [o for o in orders if o["status"] == "delivered" and o["placed_at"].startswith("2026-04")]
        refunds_on.append(rng.choice(april))

    # -- addresses, account ----------------------------------------------------------------------------------------
    name, mail = rng.choice(CUSTOMERS)
    home, mom = rng.choice(HOMES), rng.choice(MOMS)
    addresses = {
        "ad-01": {"id": "ad-01", "label": "Home", "recipient": name, "line1": home[0], "line2": home[1],
                  "city": "San Francisco", "state": "CA", "postcode": home[2],
                  "instructions": rng.choice(("Leave at the door", "Ring the bell", "Buzz #3, then leave upstairs")),
                  "is_default": True},
        "ad-02": {"id": "ad-02", "label": "Mom", "recipient": f"Ruth {name.split()[1]}", "line1": mom[0],
                  "line2": "", "city": mom[1], "state": "CA", "postcode": mom[2], "instructions": "",
                  "is_default": False},
    }
    for o in orders:
        a = addresses["ad-02" if rng.random() < 0.15 and o["status"] != "placed" else "ad-01"]
        o["address"] = {k: a[k] for k in ("id", "label", "recipient", "line1", "line2", "city", "state", "postcode")}

    orders.sort(key=lambda o: o["placed_at"])
    number = rng.randrange(1000, 8000)
    order_records = {}
    for o in orders:
        number += rng.randrange(1, 4)
        oid = f"ord-{number:04d}"
        o["id"] = oid
        order_records[oid] = {"id": oid, **{k: v for k, v in o.items() if k != "id"}}

    refunds = {}
    for i, o in enumerate(sorted(refunds_on, key=lambda o: o["placed_at"]), 1):
        ln = rng.choice(o["lines"])
        qty = 1
        rid = f"rf-{i:04d}"
        amount = ln["unit_price"] * qty
        refunds[rid] = {"id": rid, "order_id": o["id"], "items": [{"product_id": ln["product_id"], "quantity": qty,
                                                                   "amount": amount}],
                        "reason": rng.choice(("damaged", "missing", "expired")), "note": "", "amount": amount,
                        "status": "approved", "created_at": local_iso(shift(o["delivered_at"][:10], 1), 10)}

    # -- cart, lists -------------------------------------------------------------------------------------------
    # Nothing below may restock the item of the last delivery that sold out.
    plain = [f for f in plain if f.kind != gone["kind"]]
    for _ in range(50):  # a cart of $45 to $130, with some produce
        produce = rng.choice([f for f in plain if f.category == "produce"])
        picks = [rng.choice(shop.family(produce))] + pick([f for f in plain if f is not produce],
                                                           rng.randrange(3, 6))
        cart_lines = [(p, rng.choice((1, 1, 2, 3))) for p in picks]
        if 4_500 <= sum(p["price"] * q for p, q in cart_lines) <= 13_000:
            break
    cart_at = local_iso(shift(rules.TODAY, -1), rng.randrange(18, 23), rng.randrange(0, 60))
    cart = {}
    for p, q in cart_lines:
        shop.stocked(p, q + 3)
        cart[p["id"]] = {"product_id": p["id"], "name": p["name"], "size": p["size"], "category": p["category"],
                         "unit_price": p["price"], "quantity": q, "added_at": cart_at}
    weekly_items = [(sold_a, rng.choice((1, 2))), (sold_b, 1)]
    for p in pick([f for f in plain if all(f.kind != shop_p["kind"] for shop_p in picks)], rng.randrange(3, 5)):
        weekly_items.append((shop.stocked(p, 6), rng.choice((1, 2))))
    rng.shuffle(weekly_items)
    taco_kinds = ("tortilla chips", "hummus", "avocados", "roma tomatoes", "ground beef", "cheddar")
    tacos = [(shop.stocked(p, 4), 1) for p in pick([f for f in fams if f.kind in taco_kinds and f in plain], 4)]
    lists = {
        "ls-01": {"id": "ls-01", "name": WEEKLY, "items": [{"product_id": p["id"], "quantity": q}
                                                           for p, q in weekly_items]},
        "ls-02": {"id": "ls-02", "name": TACOS, "items": [{"product_id": p["id"], "quantity": q} for p, q in tacos]},
    }

    # -- slots ---------------------------------------------------------------------------------------------------
    slots = {}
    for day in SLOT_DAYS:
        for start, end, fee in WINDOWS:
            sid = slot_id(day, start)
            slots[sid] = {"id": sid, "date": day, "weekday": weekday(day), "start": f"{start:02d}:00",
                          "end": f"{end:02d}:00", "fee": fee + rng.choice((-100, 0, 0, 100)),
                          "remaining": rng.choice((0, 0, 1, 2, 3, 4, 5, 6))}
    for sid in (slot_id(TOMORROW, rng.choice((8, 10))), slot_id(FRIDAY, rng.choice((18, 20)))):
        slots[sid]["remaining"] = max(1, slots[sid]["remaining"])  # a morning tomorrow, an evening on Friday
    if rng.random() < 0.5:
        slots[slot_id(FRIDAY, 16)]["remaining"] = 0
    tomorrow = [s for s in slots.values() if s["date"] == TOMORROW and s["remaining"] > 0]

    # -- promos ----------------------------------------------------------------------------------------------------
    lines = list(cart.values())
    fee = min(tomorrow, key=lambda s: (s["fee"], s["start"]))["fee"]
    for _ in range(200):
        promos = _promos(rng, lines)
        valid = [p for p in promos.values() if rules.promo_problem(p, lines, True) is None]
        totals = sorted((rules.totals(lines, p, fee)["total"], p["code"]) for p in valid)
        if len(totals) >= 2 and totals[0][0] < totals[1][0]:
            break
    else:
        raise AssertionError("quickbasket generator: no promo set with one best code")

    account = {"id": ACCOUNT_ID, "name": name, "email": mail, "phone": f"(415) 555-{rng.randrange(1000, 10000)}",
               "member_since": f"20{rng.randrange(19, 25)}-0{rng.randrange(1, 10)}-1{rng.randrange(0, 9)}",
               "age_verified": False, "payment_method": f"Visa ending {rng.randrange(1000, 10000)}",
               "default_address_id": "ad-01"}
    return {
        "account": {ACCOUNT_ID: account},
        "addresses": addresses,
        "products": {p["id"]: p for p in sorted(shop.products, key=lambda p: p["id"])},
        "cart": cart,
        "lists": lists,
        "orders": order_records,
        "slots": slots,
        "promos": promos,
        "refunds": refunds,
    }


def _promos(rng: random.Random, lines: list) -> dict:
    subtotal = sum(ln["unit_price"] * ln["quantity"] for ln in lines)
    pct = rng.choice((10, 12, 15))
    save = rng.choice((800, 1000, 1200))
    fresh = rng.choice((20, 25, 30))

    def promo(code, description, kind, value, min_subtotal=0, category=None, first=False, starts="2026-05-01",
              expires="2026-05-31"):
        return {"code": code, "description": description, "kind": kind, "value": value, "min_subtotal": min_subtotal,
                "category": category, "first_order_only": first, "starts": starts, "expires": expires,
                "active": True}

    save_min = rng.choice((subtotal - rng.randrange(500, 2000), subtotal + rng.randrange(200, 2000)))
    save_min = max(2_000, save_min // 500 * 500)
    items = [
        promo(f"SPRING{pct}", f"{pct}% off your order of $40 or more", "percent", pct, 4_000),
        promo(f"FRESH{fresh}", f"{fresh}% off produce when you buy $10 of produce", "percent", fresh, 1_000,
              category="produce"),
        promo(f"SAVE{save // 100}", f"${save // 100} off orders of {rules.dollars(save_min)} or more", "amount",
              save, save_min),
        promo("WELCOME20", "20% off your first order", "percent", 20, 0, first=True, starts="2026-01-01",
              expires="2026-12-31"),
        promo("BIG25", "$25 off orders of $150 or more", "amount", 2_500, 15_000),
        promo("MAYDAY15", "15% off everything (May Day weekend)", "percent", 15, 0, starts="2026-05-01",
              expires="2026-05-04"),
        promo("FREESHIP", "Free delivery on orders of $60 or more", "free_delivery", 0, 6_000),
    ]
    return {p["code"]: p for p in items}
