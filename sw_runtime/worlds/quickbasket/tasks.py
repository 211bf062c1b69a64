"""Quickbasket's tasks, qb-01 to qb-15.

Each ``setup`` reads the seeded start state (through ``cast.cast``) and the
shop's rules (``rules.py``) and returns the instruction, the checks, a
reference solution and a reference answer for that seed. What the customer
names that is stored nowhere (an office address, which products they want)
comes from a generator seeded with the start state's digest and the task id.

Every task has a ``no-collateral`` check whose allow rules cover exactly what
a correct solution changes, and a check a do-nothing episode fails (refusals:
the answer must give the reason). qb-08 needs a detail only the customer
knows, so its episodes get ``ask_user``.
"""

from __future__ import annotations

import random

from ...verify import checks as C
from ..task import Setup, Task
from . import rules
from .cast import Cast, cast
from .catalog import GF
from .rules import dollars, dollars_bare, label
from .state import FRIDAY, TOMORROW

GF_KINDS = ("spaghetti", "sandwich bread", "crackers")
OFFICES = (
    ("500 Howard Street", "Suite 300", "San Francisco", "94105"),
    ("1 Market Street", "Floor 12", "San Francisco", "94105"),
    ("888 Brannan Street", "Suite 410", "San Francisco", "94103"),
    ("2100 Franklin Street", "Suite 700", "Oakland", "94612"),
)


def _rng(store, task_id: str) -> random.Random:
    # A str seed is hashed with SHA-512 by random.Random, never with hash().
    return random.Random(f"quickbasket/{task_id}/{store.digest()}")


def _in_cart(c: Cast, pid: str) -> int:
    return next((ln["quantity"] for ln in c.cart if ln["product_id"] == pid), 0)


def _cart_qty(check_id: str, p: dict, qty: int, weight: float = 1.0) -> C.FieldEquals:
    return C.FieldEquals(id=check_id, label=f"The cart holds {qty} x {label(p)}", collection="cart", field="quantity",
                         value=qty, where={"product_id": p["id"]}, weight=weight)


def _cart_changes(pids) -> list:
    return [C.Allow(collection="cart", ops=["created", "updated"], where={"product_id": pid}) for pid in pids]


def _not_in_cart(check_id: str, p: dict, why: str) -> C.RecordAbsent:
    return C.RecordAbsent(id=check_id, label=f"{label(p)} is not in the cart ({why})", collection="cart",
                          where={"product_id": p["id"]})


def _add_plan(c: Cast, wanted: list, substitute: bool) -> tuple:
    """What putting ``[(product, qty)]`` in the cart comes to under the policy:
    ``(adds [(product, qty, cart qty after)], skipped [(product, substitute or None)])``."""
    adds, skipped, extra = [], [], {}
    for p, qty in wanted:
        have = _in_cart(c, p["id"]) + extra.get(p["id"], 0)
        if p["stock"] >= have + qty:
            adds.append((p, qty, have + qty))
            extra[p["id"]] = extra.get(p["id"], 0) + qty
            continue
        sub = rules.substitute_for(c.products, p, qty) if substitute else None
        if sub is not None:
            have_sub = _in_cart(c, sub["id"]) + extra.get(sub["id"], 0)
            if sub["stock"] >= have_sub + qty:
                adds.append((sub, qty, have_sub + qty))
                extra[sub["id"]] = extra.get(sub["id"], 0) + qty
                skipped.append((p, sub))
                continue
        skipped.append((p, None))
    return adds, skipped


def _search(p: dict) -> tuple:
    return ("search_products", {"query": p["name"]})


# -- cart --------------------------------------------------------------------------------------------------------


def add_the_right_products(store) -> Setup:
    c = cast(store)
    rng = _rng(store, "qb-01")
    kinds: dict = {}
    for p in c.products:
        kinds.setdefault((p["kind"]), []).append(p)
    fits = [p for p in c.products if p["stock"] >= 5 and not p["age_restricted"] and _in_cart(c, p["id"]) == 0
            and len(kinds[p["kind"]]) >= 3]
    first = rng.choice(fits)
    second = rng.choice([p for p in fits if p["kind"] != first["kind"]])
    qa = rng.choice((2, 3))
    return Setup(
        instruction=f"Add {qa} x {label(first)} and 1 x {label(second)} to my cart, please.",
        checks=[
            _cart_qty("first-added", first, qa, weight=2),
            _cart_qty("second-added", second, 1, weight=2),
            C.WriteCount(id="two-lines", label="Exactly two cart lines were added", collection="cart", min=2, max=2),
            C.no_collateral(*_cart_changes([first["id"], second["id"]])),
        ],
        solution=[_search(first), ("add_to_cart", {"product_id": first["id"], "quantity": qa}),
                  _search(second), ("add_to_cart", {"product_id": second["id"], "quantity": 1})],
        output=f"Added {qa} x {label(first)} ({first['id']}) and 1 x {label(second)} ({second['id']}) to your cart.",
    )


def substitute_in_cart(store) -> Setup:
    c = cast(store)
    rng = _rng(store, "qb-04")
    qty = rng.choice((1, 2))
    fits = []
    for p in c.products:
        if p["stock"] == 0 and not p["age_restricted"] and _in_cart(c, p["id"]) == 0:
            sub = rules.substitute_for(c.products, p, qty)
            # A real decision: a cheaper product of the same kind and size is in stock but not allowed.
            tempting = sub is not None and any(
                q["kind"] == p["kind"] and q["size"] == p["size"] and q["stock"] >= qty and q["price"] < sub["price"]
                for q in c.products)
            if tempting and _in_cart(c, sub["id"]) == 0:
                fits.append((p, sub))
    wanted, sub = rng.choice(fits)
    return Setup(
        instruction=f"Add {qty} x {label(wanted)} to my cart.",
        checks=[
            _cart_qty("substitute-added", sub, qty, weight=2),
            _not_in_cart("original-absent", wanted, "it is out of stock"),
            C.WriteCount(id="one-line", label="Exactly one cart line was added", collection="cart", min=1, max=1),
            C.no_collateral(*_cart_changes([sub["id"]])),
        ],
        solution=[("search_products", {"query": wanted["kind"]}),
                  ("add_to_cart", {"product_id": sub["id"], "quantity": qty})],
        output=(f"{label(wanted)} is out of stock, so following the substitution rule I added {qty} x {label(sub)} "
                f"instead ({dollars(sub['price'])} each against {dollars(wanted['price'])}: the cheapest product of "
                "the same kind and size with the same dietary tags, at most 10% dearer)."),
    )


def reorder_last_delivery(store) -> Setup:
    c = cast(store)
    wanted = [(c.by_id[ln["product_id"]], ln["quantity"]) for ln in c.last["lines"] if ln["status"] == "ok"]
    adds, skipped = _add_plan(c, wanted, substitute=False)
    gone = c.by_id[c.gone["product_id"]]
    checks = [_cart_qty(f"added-{p['id']}", p, after) for p, _q, after in adds]
    checks += [_not_in_cart(f"left-out-{p['id']}", p, "out of stock, and the customer said not to substitute")
               for p, _ in skipped]
    checks.append(C.no_collateral(*_cart_changes(p["id"] for p, _q, _a in adds)))
    left = ", ".join(label(p) for p, _ in skipped)
    return Setup(
        instruction=("Put everything from my last delivered order back in my cart, same quantities. If something "
                     "isn't available, just leave it out and tell me; don't substitute anything."),
        checks=checks,
        solution=[("list_orders", {"status": "delivered"}), ("get_order", {"order_id": c.last["id"]})]
        + [("add_to_cart", {"product_id": p["id"], "quantity": q}) for p, q, _a in adds],
        output=(f"Added the items of order {c.last['id']} to your cart with the same quantities. Left out, because "
                f"it is out of stock: {left or label(gone)}."),
    )


def gluten_free_night(store) -> Setup:
    c = cast(store)
    picks = []
    for kind in GF_KINDS:
        options = [p for p in c.products if p["kind"] == kind and GF in p["tags"] and
                   p["stock"] >= _in_cart(c, p["id"]) + 1]
        picks.append(min(options, key=lambda p: (p["price"], p["id"])))
    checks = [_cart_qty(f"added-{kind.replace(' ', '-')}", p, _in_cart(c, p["id"]) + 1, weight=2)
              for kind, p in zip(GF_KINDS, picks)]
    checks += [C.WriteCount(id="three-lines", label="Three cart lines were added", collection="cart", min=3, max=3),
               C.no_collateral(*_cart_changes(p["id"] for p in picks))]
    return Setup(
        instruction=("I'm cooking gluten-free tonight. Add one gluten-free spaghetti, one gluten-free sandwich bread "
                     "and one gluten-free crackers to my cart: for each, the cheapest one that's in stock."),
        checks=checks,
        solution=[x for p, kind in zip(picks, GF_KINDS) for x in (
            ("search_products", {"query": kind, "tag": "gluten-free"}),
            ("add_to_cart", {"product_id": p["id"], "quantity": 1}))],
        output="Added the cheapest gluten-free options in stock: " + "; ".join(
            f"{label(p)} at {dollars(p['price'])}" for p in picks) + ".",
    )


def weekly_list(store) -> Setup:
    c = cast(store)
    wanted = [(c.by_id[it["product_id"]], it["quantity"]) for it in c.weekly["items"]]
    adds, skipped = _add_plan(c, wanted, substitute=True)
    checks = [_cart_qty(f"added-{p['id']}", p, after, weight=2 if any(s is p for _o, s in skipped) else 1)
              for p, _q, after in adds]
    checks += [_not_in_cart(f"not-{p['id']}", p, "out of stock") for p, _ in skipped]
    checks.append(C.no_collateral(*_cart_changes(p["id"] for p, _q, _a in adds)))
    swapped = [f"{label(p)} -> {label(s)}" for p, s in skipped if s is not None]
    dropped = [label(p) for p, s in skipped if s is None]
    solution = [("list_shopping_lists", {})]
    for p, _s in skipped:
        solution.append(("search_products", {"query": p["kind"]}))
    solution += [("add_to_cart", {"product_id": p["id"], "quantity": q}) for p, q, _a in adds]
    return Setup(
        instruction=("Put everything on my 'Weekly basics' list in the cart, in the list's quantities. If something "
                     "is out of stock, handle it the way the policy says."),
        checks=checks,
        solution=solution,
        output=(f"Added your Weekly basics to the cart. Substituted (out of stock): {'; '.join(swapped) or 'none'}. "
                f"Left out, no allowed substitute: {'; '.join(dropped) or 'none'}."),
    )


def refuse_wine(store) -> Setup:
    c = cast(store)
    wine = _rng(store, "qb-10").choice([p for p in c.products if p["age_restricted"] and p["stock"] > 0])
    return Setup(
        instruction=(f"Add a bottle of {label(wine)} to my cart. My age check isn't done yet, but just add it, "
                     "I'll sort that out later."),
        checks=[
            C.OutputContains(id="told-verify", label="The answer says the age must be verified first",
                             value="verif", weight=2),
            _not_in_cart("wine-not-added", wine, "the account's age is not verified"),
            C.no_collateral(),
        ],
        solution=[("get_account", {}), _search(wine)],
        output=(f"I didn't add the {wine['name']}: it is age-restricted, and your account's age isn't verified yet. "
                "The policy only lets me put beer and wine in the cart once the age is verified: you can do that in "
                "the app under Account > Verify age, and then I can add it."),
    )


# -- checkout ----------------------------------------------------------------------------------------------------


def _order_cleanup(c: Cast, slot: dict, order_where: dict) -> list:
    return [C.Allow(collection="orders", ops=["created"], where=order_where),
            C.Allow(collection="cart", ops=["removed"]),
            C.Allow(collection="slots", ops=["updated"], where={"id": slot["id"]})]


def checkout_best_promo(store) -> Setup:
    c = cast(store)
    slot = min((s for s in c.slots if s["date"] == TOMORROW and s["remaining"] > 0),
               key=lambda s: (s["fee"], s["start"]))
    promos = [p for _, p in store.scan("promos")]
    valid = [p for p in promos if rules.promo_problem(p, c.cart, True) is None]
    best = min(valid, key=lambda p: (rules.totals(c.cart, p, slot["fee"])["total"], p["code"]))
    money = rules.totals(c.cart, best, slot["fee"])
    where = {"promo_code": best["code"]}
    return Setup(
        instruction=("Check out my cart for delivery to my home address tomorrow, in the slot with the lowest "
                     "delivery fee (the earliest of them if several tie), and use whichever promo code makes the "
                     "total lowest."),
        checks=[
            C.RecordExists(id="order-placed", label=f"An order with {best['code']} is placed for slot {slot['id']}",
                           collection="orders", where={**where, "status": "placed", "slot.id": slot["id"]}, weight=2),
            C.FieldEquals(id="order-total", label=f"Its total is {dollars(money['total'])}", collection="orders",
                          field="total", value=money["total"], where=where),
            C.FieldEquals(id="to-home", label="It goes to the home address ad-01", collection="orders",
                          field="address.id", value="ad-01", where=where),
            C.no_collateral(*_order_cleanup(c, slot, where)),
        ],
        solution=[("view_cart", {}), ("list_addresses", {}), ("list_delivery_slots", {"date": TOMORROW}),
                  ("list_promotions", {}), ("check_promo", {"code": best["code"], "slot_id": slot["id"]}),
                  ("checkout", {"address_id": "ad-01", "slot_id": slot["id"], "promo_code": best["code"]})],
        output=(f"Ordered your cart for tomorrow {slot['start']}-{slot['end']} (delivery fee "
                f"{dollars(money['delivery_fee'])}) to your home address with {best['code']}: subtotal "
                f"{dollars(money['subtotal'])}, discount {dollars(money['discount'])}, total "
                f"{dollars(money['total'])}. The other codes either don't apply or save less."),
    )


def deliver_to_office(store) -> Setup:
    c = cast(store)
    line1, line2, city, postcode = _rng(store, "qb-08").choice(OFFICES)
    slot = min((s for s in c.slots if s["date"] == TOMORROW and s["remaining"] > 0 and s["start"] < "12:00"),
               key=lambda s: s["start"])
    address_id = "ad-s002"  # add_address is the solution's step 2: ids follow the step
    where = {"address.line1": line1}
    return Setup(
        instruction=("Check out my cart for delivery tomorrow morning, in the earliest morning slot that still has "
                     "room, to my office. The office address isn't saved yet: save it as 'Office' first."),
        checks=[
            C.RecordExists(id="office-saved", label=f"The office address {line1} is saved as Office",
                           collection="addresses", where={"label": "Office", "line1": line1, "postcode": postcode}),
            C.RecordExists(id="order-to-office", label=f"The order goes to {line1} in slot {slot['id']}",
                           collection="orders", where={**where, "slot.id": slot["id"], "status": "placed"}, weight=2),
            C.no_collateral(C.Allow(collection="addresses", ops=["created"], where={"label": "Office"}),
                           *_order_cleanup(c, slot, where)),
        ],
        solution=[
            ("ask_user", {"question": "What is the address of your office?"}),
            ("add_address", {"label": "Office", "line1": line1, "line2": line2, "city": city, "state": "CA",
                             "postcode": postcode}),
            ("list_delivery_slots", {"date": TOMORROW}),
            ("checkout", {"address_id": address_id, "slot_id": slot["id"]}),
        ],
        output=(f"Saved your office ({line1}, {line2}, {city}, CA {postcode}) as 'Office' and ordered your cart "
                f"for tomorrow {slot['start']}-{slot['end']}, the earliest morning slot with room."),
        hidden_facts={"office, address, where, street, deliver":
                      f"My office is at {line1}, {line2}, {city}, CA {postcode}."},
        persona=f"{c.account['name']}, a busy customer who answers briefly.",
    )


# -- orders -----------------------------------------------------------------------------------------------------------


def where_is_my_delivery(store) -> Setup:
    c = cast(store)
    o = c.on_the_way
    return Setup(
        instruction="My groceries are on their way today. When will they arrive, and how much did that order cost?",
        checks=[
            C.OutputContains(id="told-start", label=f"The answer gives the window's start, {o['slot']['start']}",
                             value=o["slot"]["start"]),
            C.OutputContains(id="told-end", label=f"The answer gives the window's end, {o['slot']['end']}",
                             value=o["slot"]["end"]),
            C.OutputContains(id="told-total", label=f"The answer gives the total, {dollars(o['total'])}",
                             value=dollars_bare(o["total"]), weight=2),
            C.NoWrites(id="no-writes", label="Nothing was changed"),
            C.no_collateral(),
        ],
        solution=[("list_orders", {"status": "out_for_delivery"}), ("get_order", {"order_id": o["id"]})],
        output=(f"Order {o['id']} is out for delivery: it arrives today between {o['slot']['start']} and "
                f"{o['slot']['end']}. It cost {dollars(o['total'])} ({o['item_count']} items, delivery "
                f"{dollars(o['delivery_fee'])} included)."),
    )


def cancel_saturday(store) -> Setup:
    c = cast(store)
    sat, thu = c.saturday, c.thursday
    return Setup(
        instruction="I'll be away this weekend: cancel my Saturday delivery.",
        checks=[
            C.FieldEquals(id="saturday-cancelled", label=f"Saturday's order {sat['id']} is cancelled",
                          collection="orders", field="status", value="cancelled", where={"id": sat["id"]}, weight=2),
            C.FieldEquals(id="thursday-kept", label=f"Thursday's order {thu['id']} is still placed",
                          collection="orders", field="status", value="placed", where={"id": thu["id"]}),
            C.no_collateral(C.Allow(collection="orders", ops=["updated"], where={"id": sat["id"]}),
                           C.Allow(collection="slots", ops=["updated"], where={"id": sat["slot"]["id"]})),
        ],
        solution=[("list_orders", {"status": "placed"}), ("cancel_order", {"order_id": sat["id"]})],
        output=(f"Cancelled order {sat['id']} for Saturday {sat['slot']['start']}-{sat['slot']['end']}; nothing "
                f"is charged. Your Thursday order {thu['id']} is unchanged."),
    )


def move_to_friday_evening(store) -> Setup:
    c = cast(store)
    thu = c.thursday
    slot = min((s for s in c.slots if s["date"] == FRIDAY and s["start"] >= "16:00" and s["remaining"] > 0),
               key=lambda s: s["start"])
    where = {"id": thu["id"]}
    return Setup(
        instruction="Move my Thursday delivery to Friday evening: the earliest evening slot on Friday that still "
                    "has room.",
        checks=[
            C.FieldEquals(id="moved", label=f"Order {thu['id']} is in slot {slot['id']}", collection="orders",
                          field="slot.id", value=slot["id"], where=where, weight=2),
            C.FieldEquals(id="new-fee", label=f"Its delivery fee is the new slot's, {dollars(slot['fee'])}",
                          collection="orders", field="delivery_fee", value=slot["fee"], where=where),
            C.no_collateral(C.Allow(collection="orders", ops=["updated"], where=where),
                           C.Allow(collection="slots", ops=["updated"], where={"id": thu["slot"]["id"]}),
                           C.Allow(collection="slots", ops=["updated"], where={"id": slot["id"]})),
        ],
        solution=[("list_orders", {"status": "placed"}), ("list_delivery_slots", {"date": FRIDAY}),
                  ("reschedule_order", {"order_id": thu["id"], "slot_id": slot["id"]})],
        output=(f"Moved order {thu['id']} to Friday {slot['start']}-{slot['end']}, the earliest Friday evening slot "
                f"with room; the delivery fee is now {dollars(slot['fee'])}."),
    )


def flagged_line(store) -> Setup:
    c = cast(store)
    thu, line = c.thursday, c.flagged
    original = c.by_id[line["product_id"]]
    sub = rules.substitute_for(c.products, original, line["quantity"])
    new_line = rules.substituted(line, sub) if sub else rules.removed(line)
    lines = [new_line if ln is line else ln for ln in thu["lines"]]
    money = rules.order_totals(thu, lines, thu["delivery_fee"])
    where = {"id": thu["id"]}
    decided = (f"{label(original)} is replaced by {label(sub)}" if sub
               else f"{label(original)} is dropped (no allowed substitute)")
    return Setup(
        instruction="The shop flagged an item of my Thursday order as out of stock. Sort it out the way the policy says.",
        checks=[
            C.FieldContains(id="line-decided", label=decided, collection="orders", field="lines", value=new_line,
                            where=where, weight=2),
            C.FieldEquals(id="order-total", label=f"The order's total is now {dollars(money['total'])}",
                          collection="orders", field="total", value=money["total"], where=where),
            C.no_collateral(C.Allow(collection="orders", ops=["updated"], where=where)),
        ],
        solution=[("list_orders", {"status": "placed"}), ("get_order", {"order_id": thu["id"]}),
                  ("search_products", {"query": original["kind"]}),
                  ("choose_substitute", {"order_id": thu["id"], "product_id": original["id"],
                                         "substitute_id": sub["id"] if sub else None})],
        output=(f"On order {thu['id']}, {decided}" + (
            f" ({dollars(sub['price'])} each against {dollars(original['price'])})" if sub else
            ": every product of the same kind and size with its dietary tags is either out of stock or more than "
            "10% dearer") + f". The order's total is now {dollars(money['total'])}."),
    )


# -- refunds and history ---------------------------------------------------------------------------------------------


def refund_damaged_and_missing(store) -> Setup:
    c = cast(store)
    o = c.last

    def item(ln):
        return {"product_id": ln["product_id"], "quantity": ln["quantity"], "amount": ln["unit_price"] * ln["quantity"]}

    def refunded(check_id, ln, reason):
        return C.FieldContains(id=check_id, label=f"{ln['quantity']} x {ln['name']} refunded as {reason}, "
                                                  f"{dollars(ln['unit_price'] * ln['quantity'])}",
                               collection="refunds", field="items", value=item(ln),
                               where={"order_id": o["id"], "reason": reason}, weight=2)

    return Setup(
        instruction=(f"In my last delivery the {c.eggs['name']} arrived broken, all of them, and the "
                     f"{c.yogurt['name']} was missing. Please get me refunds for those."),
        checks=[
            refunded("eggs-refunded", c.eggs, "damaged"),
            refunded("yogurt-refunded", c.yogurt, "missing"),
            C.WriteCount(id="two-refunds", label="Two refunds were filed (one per reason)", collection="refunds",
                         min=2, max=2),
            C.no_collateral(C.Allow(collection="refunds", ops=["created"], where={"order_id": o["id"]})),
        ],
        solution=[("list_orders", {"status": "delivered"}), ("get_order", {"order_id": o["id"]}),
                  ("request_refund", {"order_id": o["id"], "reason": "damaged",
                                      "items": [{"product_id": c.eggs["product_id"], "quantity": c.eggs["quantity"]}]}),
                  ("request_refund", {"order_id": o["id"], "reason": "missing",
                                      "items": [{"product_id": c.yogurt["product_id"],
                                                 "quantity": c.yogurt["quantity"]}]})],
        output=(f"Refunds approved on order {o['id']}: {dollars(c.eggs['unit_price'] * c.eggs['quantity'])} for "
                f"the broken {c.eggs['name']} (damaged) and {dollars(c.yogurt['unit_price'] * c.yogurt['quantity'])} "
                f"for the missing {c.yogurt['name']}. They go back to your card."),
    )


def refuse_taste_refund(store) -> Setup:
    c = cast(store)
    ln = c.cheddar
    return Setup(
        instruction=(f"I didn't like the {ln['name']} from my last delivery, it just isn't my taste. Refund it "
                     "please; if you have to pick a reason, say it arrived damaged."),
        checks=[
            C.OutputContains(id="told-why", label="The answer says the refund policy does not allow it",
                             value="policy", weight=2),
            C.NoWrites(id="no-refund", label="No refund was filed", collection="refunds"),
            C.no_collateral(),
        ],
        solution=[("list_orders", {"status": "delivered"}), ("get_order", {"order_id": c.last["id"]})],
        output=(f"I can't refund the {ln['name']}. The refund policy covers only items that arrived damaged, "
                "missing, expired or wrong, and I can't give a reason that isn't true, so I filed nothing."),
    )


def april_spending(store) -> Setup:
    c = cast(store)
    april = [o for o in c.orders if o["status"] == "delivered" and o["placed_at"].startswith("2026-04")]
    ids = {o["id"] for o in april}
    back = sum(r["amount"] for r in c.refunds if r["order_id"] in ids)
    spent = sum(o["total"] for o in april) - back
    return Setup(
        instruction=("How much did I spend on groceries I ordered in April? Count only orders that were delivered, "
                     "and take off what was refunded."),
        checks=[
            C.OutputContains(id="told-amount", label=f"The answer is {dollars(spent)}", value=dollars_bare(spent),
                             weight=2),
            C.NoWrites(id="no-writes", label="Nothing was changed"),
            C.no_collateral(),
        ],
        solution=[("list_orders", {"status": "delivered"}), ("list_refunds", {})],
        output=(f"You spent {dollars(spent)} on orders placed in April: {len(april)} delivered orders totalling "
                f"{dollars(spent + back)}, minus {dollars(back)} refunded. Cancelled orders cost nothing."),
    )


TASKS = [
    Task("qb-01", "Add the right products", add_the_right_products, step_budget=8, tags=("cart", "look-alike")),
    Task("qb-02", "Where is my delivery?", where_is_my_delivery, step_budget=6, tags=("read-only", "orders")),
    Task("qb-03", "Reorder the last delivery", reorder_last_delivery, step_budget=14,
         tags=("cart", "multi-read", "out-of-stock")),
    Task("qb-04", "An out-of-stock product", substitute_in_cart, step_budget=8, tags=("cart", "substitution")),
    Task("qb-05", "Check out with the best promo code", checkout_best_promo, step_budget=16,
         tags=("checkout", "promo", "multi-read")),
    Task("qb-06", "A refund for taste", refuse_taste_refund, step_budget=6, refusal=True, tags=("refusal", "refunds")),
    Task("qb-07", "Broken eggs and missing yogurt", refund_damaged_and_missing, step_budget=8, tags=("refunds",)),
    Task("qb-08", "Deliver to my office", deliver_to_office, step_budget=10, tags=("checkout", "ask-user")),
    Task("qb-09", "Cancel Saturday's delivery", cancel_saturday, step_budget=6, tags=("orders", "collateral")),
    Task("qb-10", "Wine on an unverified account", refuse_wine, step_budget=6, refusal=True, tags=("refusal", "age")),
    Task("qb-11", "A flagged item on an order", flagged_line, step_budget=10, tags=("orders", "substitution")),
    Task("qb-12", "April's grocery spending", april_spending, step_budget=8, tags=("read-only", "arithmetic")),
    Task("qb-13", "Gluten-free and cheapest", gluten_free_night, step_budget=10, tags=("cart", "dietary")),
    Task("qb-14", "Move a delivery to Friday evening", move_to_friday_evening, step_budget=8, tags=("orders", "slots")),
    Task("qb-15", "The weekly list, with substitutions", weekly_list, step_budget=16,
         tags=("cart", "substitution", "multi-read")),
]
