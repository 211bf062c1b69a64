"""The quickbasket world: the seeded shop, its rules, its tools' refusals,
plausible wrong answers caught by the right check, and qb-08's ask_user flow
over HTTP against a real server.

In-process episodes run through the engine (``Engine`` + ``CreateEpisode``).
Every task's reference solution on seeds 0-49 is ``check_world``'s job
(tests/worlds/test_checker.py).
"""

from __future__ import annotations

import re

import pytest

from sw_core_ext import Store
from sw_runtime import schemas
from sw_runtime.engine.engine import Engine
from sw_runtime.worlds.quickbasket import WORLD, rules
from sw_runtime.worlds.quickbasket.cast import cast
from sw_runtime.worlds.quickbasket.catalog import ORGANIC
from sw_runtime.worlds.quickbasket.state import FRIDAY, TOMORROW, shift

ID_PATTERNS = {"products": r"p-\d{4}", "orders": r"ord-\d{4}", "slots": r"sl-\d{4}-\d{2}", "refunds": r"rf-\d{4}",
               "addresses": r"ad-\d{2}", "lists": r"ls-\d{2}", "cart": r"p-\d{4}"}


@pytest.fixture(scope="module")
def engine():
    return Engine()


class Run:
    def __init__(self, engine, task_id=None, seed=0):
        self.engine = engine
        self.ep = engine.create(WORLD.name, schemas.CreateEpisode(task_id=task_id, seed=seed))
        self.c = cast(self.ep.start)

    def __call__(self, tool, **args):
        return self.engine.step(self.ep.id, tool, args)

    def ok(self, tool, **args):
        answer = self(tool, **args)
        assert answer["ok"], answer
        return answer["result"]

    def submit(self, output=None):
        return self.engine.submit(self.ep.id, self.ep.setup.output if output is None else output)


def start(seed: int) -> Store:
    return Store(WORLD.generate(seed), collections=WORLD.collections)


def failed(ev) -> list:
    return [c["id"] for c in ev["checks"] if c["pass"] is not True]


# -- the world -------------------------------------------------------------------------------------------------------


def test_world_metadata():
    assert WORLD.name == "quickbasket" and WORLD.state_schema is not None
    assert [t.id for t in WORLD.tasks] == [f"qb-{i:02d}" for i in range(1, 16)]
    assert sum(t.refusal for t in WORLD.tasks) >= 2
    assert "10%" in WORLD.policy and "cents" in WORLD.policy and "ask_user" in WORLD.policy
    assert {t.name for t in WORLD.tools if t.writes} == {
        "add_to_cart", "update_cart_item", "remove_from_cart", "add_address", "checkout", "cancel_order",
        "reschedule_order", "choose_substitute", "request_refund"}
    for t in WORLD.tools:
        params = t.definition()["parameters"]
        assert params["additionalProperties"] is False, t.name
        for prop, spec in params["properties"].items():
            assert spec.get("description"), f"{t.name}.{prop} needs a description"
    s = start(0)
    for task in WORLD.tasks:
        setup = task.setup(s.fork())
        assert bool(setup.hidden_facts) is (task.id == "qb-08"), task.id
        assert [c for c in setup.checks if c.id == "no-collateral"], task.id


@pytest.mark.parametrize("seed", range(100))
def test_generator_invariants(seed):
    state = WORLD.generate(seed)
    assert tuple(state) == WORLD.collections
    assert WORLD.state_schema.validate(state) == []
    ids = []
    for collection, pattern in ID_PATTERNS.items():
        for rid in state[collection]:
            assert re.fullmatch(pattern, rid), (collection, rid)
            ids.append(rid)
    assert not [(a, b) for a in ids for b in ids if a != b and a in b], "an id is a substring of another"
    for p in state["products"].values():
        assert type(p["price"]) is int and p["price"] > 0 and type(p["stock"]) is int
    for o in state["orders"].values():
        assert o["total"] == o["subtotal"] - o["discount"] + o["delivery_fee"]
        assert o["subtotal"] == sum(rules.line_charge(ln) for ln in o["lines"])

    c = cast(Store(state, collections=WORLD.collections))
    by_id = c.by_id
    # The weekly list holds one sold-out item with an allowed substitute and one without.
    sold = [by_id[it["product_id"]] for it in c.weekly["items"] if by_id[it["product_id"]]["stock"] == 0]
    assert sorted(rules.substitute_for(c.products, p, 2) is None for p in sold) == [False, True]
    assert all(ORGANIC in p["tags"] for p in sold)
    # The cart checks out as it is; tomorrow has a morning slot, Friday an evening slot.
    assert all(by_id[ln["product_id"]]["stock"] >= ln["quantity"] and not by_id[ln["product_id"]]["age_restricted"]
               for ln in c.cart)
    assert any(s["date"] == TOMORROW and s["start"] < "12:00" and s["remaining"] > 0 for s in c.slots)
    assert any(s["date"] == FRIDAY and s["start"] >= "16:00" and s["remaining"] > 0 for s in c.slots)
    # The last delivery is refundable and has exactly one item sold out since.
    assert shift(c.last["delivered_at"][:10], rules.REFUND_DAYS) >= rules.TODAY
    assert c.gone["status"] == "ok" and by_id[c.gone["product_id"]]["stock"] == 0
    assert c.flagged["status"] == "out_of_stock" and by_id[c.flagged["product_id"]]["stock"] == 0
    assert not c.account["age_verified"]


def test_the_best_promo_is_unique_and_some_codes_are_traps():
    reasons = set()
    for seed in range(30):
        s = start(seed)
        c = cast(s)
        fee = min((x for x in c.slots if x["date"] == TOMORROW and x["remaining"] > 0),
                  key=lambda x: (x["fee"], x["start"]))["fee"]
        promos = [p for _, p in s.scan("promos")]
        totals = sorted(rules.totals(c.cart, p, fee)["total"] for p in promos
                        if rules.promo_problem(p, c.cart, True) is None)
        assert len(totals) >= 2 and totals[0] < totals[1], seed
        reasons |= {rules.promo_problem(p, c.cart, True).split(" ", 1)[1].split(" ")[0] for p in promos
                    if rules.promo_problem(p, c.cart, True)}
    assert {"expired", "is", "needs"} <= reasons  # expired, first-order only, minimum not met


def test_substitution_rule():
    base = {"id": "p-0001", "kind": "whole milk", "size": "1 gal", "tags": ["organic"], "price": 1000,
            "brand": "A", "stock": 0, "age_restricted": False}

    def cand(**kw):
        return {**base, "id": kw.pop("id", "p-0002"), "stock": 5, **kw}

    assert rules.substitute_for([cand(price=1100)], base)["id"] == "p-0002"  # exactly +10% is allowed
    assert rules.substitute_for([cand(price=1101)], base) is None
    assert rules.substitute_for([cand(tags=[])], base) is None  # drops a dietary tag
    assert rules.substitute_for([cand(size="half gal")], base) is None
    assert rules.substitute_for([cand(stock=1)], base, quantity=2) is None
    pick = rules.substitute_for([cand(id="p-0003", price=1050, brand="B"), cand(id="p-0004", price=1050, brand="A"),
                                 cand(id="p-0005", price=1080, tags=["organic", "vegan"])], base)
    assert pick["id"] == "p-0004"  # cheapest, then same brand


# -- tools -----------------------------------------------------------------------------------------------------------


def _refusals():
    """(name, [calls before], the refused call, code), from a cast."""
    return [
        ("add-out-of-stock", [], lambda c: ("add_to_cart", {"product_id": c.gone["product_id"]}), "out_of_stock"),
        ("add-unknown", [], lambda c: ("add_to_cart", {"product_id": "p-9999"}), "not_found"),
        ("update-not-in-cart", [], lambda c: ("update_cart_item", {"product_id": c.gone["product_id"],
                                                                   "quantity": 1}), "not_in_cart"),
        ("checkout-expired-promo", [], lambda c: ("checkout", {"address_id": "ad-01", "slot_id": _open_slot(c),
                                                               "promo_code": "MAYDAY15"}), "promo_invalid"),
        ("checkout-first-order-promo", [], lambda c: ("checkout", {"address_id": "ad-01", "slot_id": _open_slot(c),
                                                                   "promo_code": "welcome20"}), "promo_invalid"),
        ("checkout-full-slot", [], lambda c: ("checkout", {"address_id": "ad-01", "slot_id": _full_slot(c)}),
         "slot_full"),
        ("checkout-unknown-address", [], lambda c: ("checkout", {"address_id": "ad-99", "slot_id": _open_slot(c)}),
         "not_found"),
        ("checkout-wine-unverified", [lambda c: ("add_to_cart", {"product_id": _wine(c)["id"]})],
         lambda c: ("checkout", {"address_id": "ad-01", "slot_id": _open_slot(c)}), "age_verification_required"),
        ("cancel-delivered", [], lambda c: ("cancel_order", {"order_id": c.last["id"]}), "not_changeable"),
        ("cancel-on-the-way", [], lambda c: ("cancel_order", {"order_id": c.on_the_way["id"]}), "not_changeable"),
        ("reschedule-full", [], lambda c: ("reschedule_order", {"order_id": c.saturday["id"],
                                                                "slot_id": _full_slot(c)}), "slot_full"),
        ("substitute-not-flagged", [], lambda c: ("choose_substitute", {
            "order_id": c.thursday["id"], "product_id": next(ln["product_id"] for ln in c.thursday["lines"]
                                                             if ln["status"] == "ok"), "substitute_id": None}),
         "not_flagged"),
        ("refund-window-closed", [], lambda c: ("request_refund", {
            "order_id": _old_delivery(c)["id"], "reason": "damaged",
            "items": [{"product_id": _old_delivery(c)["lines"][0]["product_id"], "quantity": 1}]}),
         "refund_window_closed"),
        ("refund-too-many", [], lambda c: ("request_refund", {
            "order_id": c.last["id"], "reason": "damaged",
            "items": [{"product_id": c.eggs["product_id"], "quantity": c.eggs["quantity"] + 1}]}), "too_many"),
        ("refund-not-delivered", [], lambda c: ("request_refund", {
            "order_id": c.saturday["id"], "reason": "missing",
            "items": [{"product_id": c.saturday["lines"][0]["product_id"], "quantity": 1}]}), "not_delivered"),
        ("address-duplicate-label", [], lambda c: ("add_address", {"label": "home", "line1": "1 A Street",
                                                                   "city": "San Francisco", "state": "CA",
                                                                   "postcode": "94100"}), "already_exists"),
    ]


def _open_slot(c):
    return next(s["id"] for s in c.slots if s["remaining"] > 0)


def _full_slot(c):
    return next(s["id"] for s in c.slots if s["remaining"] == 0)


def _wine(c):
    return next(p for p in c.products if p["age_restricted"] and p["stock"] > 0)


def _old_delivery(c):
    return min((o for o in c.orders if o["status"] == "delivered"), key=lambda o: o["delivered_at"])


@pytest.mark.parametrize(("name", "before", "refused", "code"), _refusals(), ids=[r[0] for r in _refusals()])
def test_refusals_give_their_code_and_change_nothing(engine, name, before, refused, code):
    for seed in range(4):
        run = Run(engine, seed=seed)
        for make in before:
            run.ok(*make(run.c)[:1], **make(run.c)[1])
        digest = run.ep.store.digest()
        tool, args = refused(run.c)
        answer = run(tool, **args)
        assert not answer["ok"] and answer["error"]["code"] == code, (name, seed, answer)
        assert len(answer["error"]["message"]) > 20
        assert run.ep.store.digest() == digest


def test_checkout_charges_what_check_promo_says(engine):
    run = Run(engine, seed=11)
    slot = _open_slot(run.c)
    preview = run.ok("check_promo", code="FREESHIP", slot_id=slot)
    order = run("checkout", address_id="ad-01", slot_id=slot, promo_code="freeship" if preview["applies"] else None)
    assert order["ok"]
    o = order["result"]
    if preview["applies"]:
        assert o["total"] == preview["order"]["total"] and o["delivery_fee"] == 0 and o["promo_code"] == "FREESHIP"
    assert o["status"] == "placed" and o["id"] == "ord-s002" and run.ok("view_cart")["lines"] == []
    assert run.ep.store.get("slots", slot)["remaining"] == run.ep.start.get("slots", slot)["remaining"] - 1


def test_rescheduling_moves_capacity_and_fee(engine):
    run = Run(engine, seed=2)
    thu = run.c.thursday
    target = next(s for s in run.c.slots if s["date"] == FRIDAY and s["remaining"] > 0)
    o = run.ok("reschedule_order", order_id=thu["id"], slot_id=target["id"])
    assert o["slot"]["id"] == target["id"] and o["delivery_fee"] == target["fee"]
    assert o["total"] == o["subtotal"] - o["discount"] + target["fee"]
    store, first = run.ep.store, run.ep.start
    assert store.get("slots", target["id"])["remaining"] == first.get("slots", target["id"])["remaining"] - 1
    old = thu["slot"]["id"]
    assert store.get("slots", old)["remaining"] == first.get("slots", old)["remaining"] + 1


# -- tasks: wrong answers ------------------------------------------------------------------------------------------


def _decoy(c, p):
    """A cheaper same-kind product without the original's tags: the tempting wrong substitute."""
    return min((q for q in c.products if q["kind"] == p["kind"] and q["size"] == p["size"] and q["stock"] >= 2
                and not set(p["tags"]) <= set(q["tags"])), key=lambda q: q["price"])


def _setup(run):
    return run.ep.setup


WRONG = [
    ("qb-01", lambda r: [("add_to_cart", {"product_id": next(
        p["id"] for p in r.c.products if p["kind"] == r.c.by_id[_setup(r).solution[1][1]["product_id"]]["kind"]
        and p["id"] != _setup(r).solution[1][1]["product_id"] and p["stock"] >= 3), "quantity": 2})],
     "first-added"),
    ("qb-03", lambda r: [("add_to_cart", {"product_id": rules.substitute_for(
        r.c.products, r.c.by_id[r.c.gone["product_id"]], r.c.gone["quantity"])["id"], "quantity": 1})]
     if rules.substitute_for(r.c.products, r.c.by_id[r.c.gone["product_id"]], r.c.gone["quantity"]) else
     [("update_cart_item", {"product_id": r.c.cart[0]["product_id"], "quantity": 0})], "no-collateral"),
    ("qb-04", lambda r: [("add_to_cart", {"product_id": _decoy(r.c, r.c.by_id[next(
        c.where["product_id"] for c in _setup(r).checks if c.id == "original-absent")])["id"], "quantity": 1})],
     "substitute-added"),
    ("qb-05", lambda r: [("checkout", {"address_id": "ad-01", "slot_id": _setup(r).solution[-1][1]["slot_id"]})],
     "order-placed"),
    ("qb-06", lambda r: [("request_refund", {"order_id": r.c.last["id"], "reason": "damaged",
                                             "items": [{"product_id": r.c.cheddar["product_id"], "quantity": 1}]})],
     "no-refund"),
    ("qb-07", lambda r: [("request_refund", {"order_id": r.c.last["id"], "reason": "quality", "items": [
        {"product_id": r.c.eggs["product_id"], "quantity": r.c.eggs["quantity"]},
        {"product_id": r.c.yogurt["product_id"], "quantity": r.c.yogurt["quantity"]}]})], "eggs-refunded"),
    ("qb-08", lambda r: [("checkout", {"address_id": "ad-01", "slot_id": _setup(r).solution[-1][1]["slot_id"]})],
     "order-to-office"),
    ("qb-09", lambda r: [("cancel_order", {"order_id": r.c.thursday["id"]})], "saturday-cancelled"),
    ("qb-10", lambda r: [("add_to_cart", {"product_id": _setup(r).checks[1].where["product_id"]})],
     "wine-not-added"),
    ("qb-11", lambda r: [("choose_substitute", {"order_id": r.c.thursday["id"],
                                                "product_id": r.c.flagged["product_id"],
                                                "substitute_id": _decoy(r.c, r.c.by_id[r.c.flagged["product_id"]])[
                                                    "id"]})], "line-decided"),
    ("qb-14", lambda r: [("reschedule_order", {"order_id": r.c.thursday["id"], "slot_id": next(
        s["id"] for s in r.c.slots if s["date"] == "2026-05-16" and s["remaining"] > 0)})], "moved"),
    ("qb-15", lambda r: [("add_to_cart", {"product_id": _decoy(r.c, r.c.by_id[it["product_id"]])["id"],
                                          "quantity": 1}) for it in r.c.weekly["items"]
                         if r.c.by_id[it["product_id"]]["stock"] == 0][:1], "no-collateral"),
]


@pytest.mark.parametrize(("task_id", "calls", "check_id"), WRONG, ids=[f"{w[0]}-{w[2]}" for w in WRONG])
def test_wrong_answers_fail_the_right_check(engine, task_id, calls, check_id):
    for seed in range(4):
        run = Run(engine, task_id, seed)
        for tool, args in calls(run):
            answer = run(tool, **args)
            assert answer["ok"], (seed, answer)  # the shop allowed it: only the checks catch it
        ev = run.submit()
        assert ev["pass"] is False and check_id in failed(ev), (task_id, seed, ev["checks"])


def test_doing_nothing_with_the_right_words_still_fails_refusals(engine):
    for task_id in ("qb-06", "qb-10"):
        ev = Run(engine, task_id).submit("")
        assert ev["pass"] is False and ev["score"] < 1


# -- qb-08 over HTTP: a detail only the customer knows ------------------------------------------------------------


def test_qb08_needs_ask_user_and_passes_with_it_over_http(http):
    ep = http.post("/environments/quickbasket/episodes", json={"task_id": "qb-08", "seed": 3}).json()
    assert "ask_user" in {t["name"] for t in ep["tools"]}
    step = f"/episodes/{ep['episode_id']}/step"

    def call(tool, **args):
        r = http.post(step, json={"tool": tool, "arguments": args})
        assert r.status_code == 200, r.text
        return r.json()

    answer = call("ask_user", question="Where is your office? I need the full address.")
    assert answer["ok"], answer
    text = answer["result"]["answer"]
    m = re.search(r"at (.+?), (.+?), (.+?), CA (\d{5})", text)
    assert m, text
    line1, line2, city, postcode = m.groups()
    saved = call("add_address", label="Office", line1=line1, line2=line2, city=city, state="CA", postcode=postcode)
    assert saved["ok"], saved
    slots = call("list_delivery_slots", date=TOMORROW)["result"]["slots"]
    morning = next(s for s in slots if s["start"] < "12:00" and s["remaining"] > 0)
    order = call("checkout", address_id=saved["result"]["id"], slot_id=morning["id"])
    assert order["ok"] and order["result"]["address"]["line1"] == line1
    ev = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": "Ordered to your office."}).json()
    assert ev["pass"] is True and ev["score"] == 1.0, ev["checks"]

    other = http.post("/environments/quickbasket/episodes", json={"task_id": "qb-07", "seed": 3}).json()
    assert "ask_user" not in {t["name"] for t in other["tools"]}
