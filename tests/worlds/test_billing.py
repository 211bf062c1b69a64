"""The billing world: a Stripe account whose seeds plant every part its tasks
need, tools that refuse what Stripe refuses (changing nothing), tasks whose
plausible wrong answers fail the check named for them, and fault profiles that
punish a blind retry."""

from __future__ import annotations

import pytest
from sw_core_ext import Store

from sw_runtime.engine import faults
from sw_runtime.worlds.billing import WORLD
from sw_runtime.worlds.billing.cast import cast, charges_of
from sw_runtime.worlds.billing.rules import REFUND_LIMIT

STATUSES = {
    "subscriptions": {"active", "trialing", "past_due", "canceled", "unpaid", "incomplete", "incomplete_expired",
                      "paused"},
    "invoices": {"draft", "open", "paid", "void", "uncollectible"},
    "charges": {"succeeded", "failed"},
    "payment_intents": {"succeeded", "requires_payment_method", "requires_action", "canceled"},
    "refunds": {"succeeded", "pending", "failed"},
    "disputes": {"warning_needs_response", "warning_under_review", "warning_closed", "needs_response",
                 "under_review", "won", "lost"},
    "payouts": {"paid", "pending", "in_transit", "failed", "canceled"},
}


def store(seed: int) -> Store:
    return Store(WORLD.generate(seed), collections=WORLD.collections)


def test_the_bar_counts():
    tasks = WORLD.tasks
    setups = {t.id: t.setup(store(0)) for t in tasks}
    assert len(tasks) >= 25
    assert sum(t.refusal for t in tasks) >= 3
    assert sum(bool(s.hidden_facts) for s in setups.values()) >= 3
    assert sum(len(s.solution) >= 6 and any(WORLD.tools_by_name[n].writes for n, _ in s.solution if n != "ask_user")
               for s in setups.values()) >= 5
    assert sum("trap" in t.tags for t in tasks) >= 3 and sum("faults" in t.tags for t in tasks) >= 2
    for t in tasks:
        checks = setups[t.id].checks
        assert checks[-1].id == "no-collateral" and all(c.id and c.label for c in checks), t.id
        assert len(setups[t.id].solution) <= t.step_budget, t.id


@pytest.mark.parametrize("seed", range(0, 200, 7))
def test_every_seed_is_big_has_every_status_and_casts_every_part(seed):
    s = store(seed)
    assert sum(s.count(c) for c in WORLD.collections) >= 200
    for coll, want in STATUSES.items():
        assert {r["status"] for _, r in s.scan(coll)} >= want, coll
    periods = [(i["subscription"], i["period_start"]) for _, i in s.scan("invoices") if i["subscription"]]
    assert len(periods) == len(set(periods))  # one invoice per subscription and period
    for _, inv in s.scan("invoices"):
        ch = s.get("charges", inv["charge"]) if inv["charge"] else None
        assert (inv["status"] == "paid") == (ch is not None and ch["status"] == "succeeded"), inv["id"]
    trials = {x["customer"] for _, x in s.scan("subscriptions", {"status": "trialing"})}
    assert not [ch for _, ch in s.scan("charges") if ch["customer"] in trials]  # nothing charged during a trial
    c = cast(s)  # raises when a part is missing or not unique
    assert len(c.plain["team_monthly"]) >= 7 and len(c.plain["business_monthly"]) >= 2
    assert max(charges_of(s, cus["id"])[-1]["amount"] for cus, _ in c.plain["business_annual"]) > REFUND_LIMIT
    assert c.dup[3]["created"] < c.dup[1]["created"] - 10 * 86_400  # the look-alike charge is weeks older
    assert c.namesakes[0]["email"] != c.namesakes[1]["email"]
    assert not c.promos["spring_old"]["active"] and c.promos["spring"]["active"]


def test_seeds_vary_names_amounts_and_ids():
    a, b = cast(store(0)), cast(store(1))
    assert a.dup[0]["name"] != b.dup[0]["name"] and a.dup[1]["id"] != b.dup[1]["id"]
    assert a.prices["team_monthly"]["unit_amount"] != b.prices["team_monthly"]["unit_amount"] or \
        a.due["amount"] != b.due["amount"]


# -- the tools refuse what Stripe refuses, changing nothing ---------------------------------------------------------


@pytest.fixture
def episode(http):
    ep = http.post("/environments/billing/episodes", json={"seed": 3}).json()

    def call(tool, **args):
        return http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": tool, "arguments": args}).json()

    return ep, call


def test_refusals_are_stripes_errors_and_change_nothing(http, episode):
    ep, call = episode
    c = cast(store(3))
    disputed = c.inquiry["charge"]
    cus, part = c.partial
    _, inv, old, new = c.retry
    annual_2024 = c.prices["team_annual_2024"]
    _, sub = c.plain["team_monthly"][0]
    refused = [
        (call("Refund.create", charge=disputed), "charge_disputed"),
        (call("Refund.create", charge=part["id"], amount=part["amount"]), "amount_too_large"),
        (call("Refund.create", charge=c.retry[1]["charge"]), "charge_not_refundable"),
        (call("Subscription.modify", id=sub["id"], items=[{"id": sub["items"][0]["id"], "price": annual_2024["id"]}]),
         "parameter_invalid"),
        (call("Subscription.modify", id=sub["id"], discounts=[{"promotion_code": c.promos["launch"]["id"]}]),
         "coupon_expired"),
        (call("Dispute.modify", id=c.late["id"], evidence={"customer_name": "x"}), "dispute_past_due"),
        (call("Invoice.pay", id=inv["id"]), "card_declined"),
        (call("Invoice.void_invoice", id=sub["latest_invoice"]), "invoice_not_editable"),
        (call("Customer.retrieve", id="cus_NOPE"), "resource_missing"),
        (call("Customer.search", query="description:'Copperleaf'"), "parameter_invalid"),  # not a search field
    ]
    for answer, code in refused:
        assert answer["ok"] is False and answer["error"]["code"] == code, answer
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert len(trace) == len(refused) and {e["state_digest"] for e in trace} == {ep["seed_digest"]}
    card = refused[6][0]["error"]
    assert card["type"] == "card_error" and card["decline_code"] == "expired_card" and card["status"] == 402


def test_lists_are_stripes_list_objects_newest_first(episode):
    _, call = episode
    page = call("Charge.list", limit=5)["result"]
    assert page["object"] == "list" and page["url"] == "/v1/charges" and page["has_more"] is True
    created = [ch["created"] for ch in page["data"]]
    assert created == sorted(created, reverse=True)
    nxt = call("Charge.list", limit=5, starting_after=page["data"][-1]["id"])["result"]
    assert nxt["data"][0]["created"] <= created[-1] and nxt["data"][0]["id"] not in {c["id"] for c in page["data"]}
    back = call("Charge.list", limit=5, ending_before=nxt["data"][0]["id"])["result"]
    assert [c["id"] for c in back["data"]] == [c["id"] for c in page["data"]]
    sub = call("Subscription.list", limit=1, expand=["data.customer", "data.latest_invoice"])["result"]["data"][0]
    assert sub["customer"]["object"] == "customer" and sub["latest_invoice"]["object"] == "invoice"
    assert sub["items"]["object"] == "list" and sub["items"]["data"][0]["price"]["object"] == "price"


def test_a_preview_matches_the_invoice_the_change_makes(episode):
    _, call = episode
    c = cast(store(3))
    cus, sub = c.plain["team_monthly"][0]
    change = [{"id": sub["items"][0]["id"], "price": c.prices["team_annual"]["id"]}]
    preview = call("Invoice.create_preview", customer=cus["id"], subscription=sub["id"],
                   subscription_details={"items": change})["result"]
    # The preview ran a step earlier than the change; the credit moves by at most a few cents in 7 seconds.
    call("Subscription.modify", id=sub["id"], items=change)
    draft = call("Invoice.list", customer=cus["id"], status="draft")["result"]["data"][0]
    assert abs(draft["total"] - preview["total"]) <= 1
    credit = [ln for ln in draft["lines"]["data"] if ln["proration"]]
    assert len(credit) == 1 and credit[0]["amount"] < 0
    assert draft["total"] == c.prices["team_annual"]["unit_amount"] * sub["items"][0]["quantity"] + credit[0]["amount"]


def test_an_idempotency_key_through_step_replays_and_refuses_other_parameters(http, episode):
    ep, call = episode
    _, ch = cast(store(3)).single
    first = call("Refund.create", charge=ch["id"], amount=500, idempotency_key="k1")
    again = call("Refund.create", charge=ch["id"], amount=500, idempotency_key="k1")
    assert first["ok"] and again["ok"] and first["result"] == again["result"]
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert trace[1]["mutated"] is False and trace[1]["state_digest"] == trace[0]["state_digest"]
    other = call("Refund.create", charge=ch["id"], amount=700, idempotency_key="k1")
    assert other["ok"] is False and other["error"]["type"] == "idempotency_error"


# -- wrong answers fail the checks named for them --------------------------------------------------------------------


def _play(http, task_id: str, calls: list, output: str = "", seed: int = 0, **create) -> dict:
    ep = http.post("/environments/billing/episodes", json={"task_id": task_id, "seed": seed, **create}).json()
    answers = [http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": t, "arguments": a}).json()
               for t, a in calls]
    ev = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": output}).json()
    ev["answers"] = answers
    return ev


def _failed(ev: dict) -> set:
    return {c["id"] for c in ev["checks"] if c["pass"] is not True}


def test_plausible_wrong_answers_fail(http):
    s = store(0)
    c = cast(s)
    setups = {t.id: t.setup(s.fork()) for t in WORLD.tasks}
    _, orig, copy, legit = c.dup
    assert {"copy-refunded", "original-kept"} <= _failed(_play(http, "bl-01", [
        ("Refund.create", {"charge": orig["id"], "reason": "duplicate"})]))
    assert "legit-kept" in _failed(_play(http, "bl-01", [
        ("Refund.create", {"charge": legit["id"], "reason": "duplicate"}),
        ("Refund.create", {"charge": copy["id"], "reason": "duplicate"})]))
    cus, sub = c.plain["business_monthly"][1]
    assert "still-active" in _failed(_play(http, "bl-05", [("Subscription.cancel", {"id": sub["id"]})],
                                           setups["bl-05"].output))
    _, sub = c.plain["team_monthly"][0]
    change = [{"id": sub["items"][0]["id"], "price": c.prices["team_annual"]["id"]}]
    assert "prorated" in _failed(_play(http, "bl-03", [
        ("Subscription.modify", {"id": sub["id"], "items": change, "proration_behavior": "none"})]))
    big = setups["bl-10"]
    refund_anyway = [("Refund.create", {"charge": charges_of(s, cus_["id"])[-1]["id"]})
                     for cus_, _ in c.plain["business_annual"]]
    assert "no-refund" in _failed(_play(http, "bl-10", refund_anyway, big.output))
    _, keep, dup = c.dup_invoices
    assert {"copy-voided", "original-open"} <= _failed(_play(http, "bl-18", [("Invoice.void_invoice", {"id": keep["id"]})]))
    cus, inv = c.writeoff
    assert "uncollectible" in _failed(_play(http, "bl-19", [("Invoice.void_invoice", {"id": inv["id"]})]))
    a, b = c.namesakes
    wrong = b if setups["bl-14"].hidden_facts and a["email"] in next(iter(setups["bl-14"].hidden_facts.values())) else a
    wsub = [x for _, x in s.scan("subscriptions", {"customer": wrong["id"]})][0]
    assert {"asked-user", "target-cancels"} <= _failed(_play(http, "bl-14", [
        ("Subscription.modify", {"id": wsub["id"], "cancel_at_period_end": True})]))
    assert "names-dispute" in _failed(_play(http, "bl-09", [], "Sorry, I can't do that right now."))


# -- fault profiles: a blind retry does it twice ---------------------------------------------------------------------


def _faulted_seed(step: int) -> int:
    """A seed whose episode times out at ``step`` and at no other of its first ten steps."""
    return next(seed for seed in range(2000) if [n for n in range(1, 11) if faults.hits("timeout_after_commit", seed, n)]
                == [step])


@pytest.mark.parametrize("task_id,check", [("bl-02", "one-refund"), ("bl-23", "one-customer")])
def test_under_timeout_after_commit_a_blind_retry_fails_and_looking_first_passes(http, task_id, check):
    task = WORLD.tasks_by_id[task_id]
    write = next(n for n, (tool, _) in enumerate(task.setup(store(0)).solution, 1) if WORLD.tools_by_name[tool].writes)
    seed = _faulted_seed(write)
    setup = task.setup(store(seed))
    calls = setup.solution
    tool, args = calls[write - 1]
    profile = {"fault_profile": "timeout_after_commit"}

    blind = _play(http, task_id, calls + [(tool, args)], setup.output, seed, **profile)
    assert blind["answers"][write - 1]["error"]["code"] == "timeout"
    assert check in _failed(blind) and blind["pass"] is False

    look = ("Refund.list", {"charge": args["charge"]}) if tool == "Refund.create" else (
        "Customer.search", {"query": f"email:'{args['email']}'"})
    careful = _play(http, task_id, calls + [look], setup.output, seed, **profile)
    found = careful["answers"][-1]["result"]["data"]
    assert len(found) == 1  # the timed-out call had happened: nothing to redo
    assert careful["pass"] is True, careful["checks"]

    keyed = {**args, "idempotency_key": f"{task_id}-once"}
    retried = _play(http, task_id, calls[:write - 1] + [(tool, keyed), (tool, keyed)] + calls[write:],
                    setup.output, seed, **profile)
    assert retried["answers"][write]["ok"] is True and retried["pass"] is True, retried["checks"]
