"""The billing world at Stripe's own paths (``{tools_url}/api.stripe.com/v1/…``),
driven by the official ``stripe`` SDK against a real server: every task's
reference solution sent through the SDK passes with the same trace and digests
as ``step``, and the answers are Stripe's (list objects and their pagination,
errors with type, code and param, card errors, idempotency keys)."""

from __future__ import annotations

import pytest
import stripe
from sw_core_ext import Store

from sw_runtime.runs.addresses import ADDRESSES
from sw_runtime.worlds.billing import WORLD
from tests.runs.conftest import new_run

STRIPE_TOOLS = {a.tool for a in ADDRESSES if a.provider == "stripe"}
# A reference call that asks the simulated user is not a Stripe request.
SDK_TASKS = [t for t in WORLD.tasks if all(tool != "ask_user" for tool, _ in t.setup(
    Store(WORLD.generate(0), collections=WORLD.collections)).solution)]


@pytest.fixture
def client(v1):
    """The stripe SDK's globals pointed at a fresh billing run (and put back after)."""
    saved = stripe.api_base, stripe.api_key, stripe.max_network_retries
    run = new_run(v1, environment="billing", task="Sort out a double charge")
    stripe.api_base, stripe.api_key, stripe.max_network_retries = run["tools_url"] + "/api.stripe.com", run["token"], 0
    yield run
    stripe.api_base, stripe.api_key, stripe.max_network_retries = saved


def sdk(tool: str, args: dict, key: str | None = None):
    """``Refund.create`` as ``stripe.Refund.create(**args)``; an ``id`` is the SDK's first argument."""
    cls, method = tool.split(".")
    fn = getattr(getattr(stripe, cls), method)
    args = dict(args)
    if key is not None:
        args["idempotency_key"] = key
    return fn(args.pop("id"), **args) if "id" in args else fn(**args)


def test_every_billing_tool_has_its_stripe_path():
    assert STRIPE_TOOLS == {t.alias for t in WORLD.tools}  # the SDK's names


@pytest.mark.parametrize("task", SDK_TASKS, ids=lambda t: t.id)
def test_every_reference_solution_through_the_stripe_sdk_passes_as_step_does(v1, http, client, task):
    calls = task.setup(Store(WORLD.generate(0), collections=WORLD.collections)).solution
    # The SDK sends an Idempotency-Key on every POST (a random one unless given): give it one, and step the same.
    keyed = [(tool, args, f"{task.id}-{n}" if WORLD.tools_by_name[tool].writes else None)
             for n, (tool, args) in enumerate(calls)]
    for tool, args, key in keyed:
        sdk(tool, args, key)
    finished = v1.post(f"/v1/runs/{client['id']}/finish", json={"output": "done"}).json()
    rest = finished["trace"]["calls"]
    assert {(c["provider"], c["surface"]) for c in rest} == {("stripe", "rest")}

    ep = http.post("/environments/billing/episodes", json={"task_id": task.id, "seed": 0}).json()
    for tool, args, key in keyed:
        step_args = {**args, "idempotency_key": key} if key else args
        answer = http.post(f"/episodes/{ep['episode_id']}/step", json={"tool": tool, "arguments": step_args}).json()
        assert answer["ok"], answer
    step = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert [WORLD.served(c["operation"]) for c in rest] == [s["tool"] for s in step]  # 001 shows the alias (the real API's name), step the served name
    assert [c["arguments"] for c in rest] == [s["arguments"] for s in step]  # brackets typed as step's JSON
    assert [c["state_digest"] for c in rest] == [s["state_digest"] for s in step]
    submitted = http.post(f"/episodes/{ep['episode_id']}/submit", json={"output": "done"}).json()
    assert finished["evaluation"]["digest"] == submitted["digest"]


def test_lists_paginate_with_starting_after_as_stripe_does(client):
    page = stripe.Charge.list(limit=3)
    assert page.object == "list" and len(page.data) == 3 and page.has_more and page.url == "/v1/charges"
    everything = [c.id for c in stripe.Charge.list(limit=25).auto_paging_iter()]  # follows starting_after
    state = Store(WORLD.generate(0), collections=WORLD.collections)
    assert len(everything) == len(set(everything)) == state.count("charges")
    first = stripe.Charge.list(limit=2)
    after = stripe.Charge.list(limit=2, starting_after=first.data[-1].id)
    assert after.data[0].id == everything[2]
    found = stripe.Customer.search(query="email~'.com' AND created>0", limit=5)
    assert found.object == "search_result" and len(found.data) == 5 and found.has_more
    assert all(".com" in c.email for c in found.data)
    expanded = stripe.Subscription.list(limit=1, expand=["data.customer"])
    assert expanded.data[0].customer.object == "customer"


def test_stripes_errors_come_back_as_the_sdks_exceptions(client):
    with pytest.raises(stripe.InvalidRequestError) as missing:
        stripe.Customer.retrieve("cus_NOSUCHCUSTOMER")
    assert missing.value.http_status == 404 and missing.value.code == "resource_missing"
    assert missing.value.param == "id" and "No such customer" in missing.value.user_message
    with pytest.raises(stripe.InvalidRequestError) as unknown:
        stripe.Refund.create(charge="ch_X", colour="red")
    assert unknown.value.http_status == 400 and unknown.value.code == "parameter_unknown"
    assert unknown.value.param == "colour"

    state = Store(WORLD.generate(0), collections=WORLD.collections)
    from sw_runtime.worlds.billing.cast import cast

    cus, inv, old, new = cast(state).retry
    with pytest.raises(stripe.CardError) as card:  # the default card expired
        stripe.Invoice.pay(inv["id"])
    assert card.value.http_status == 402 and card.value.code == "card_declined"
    assert card.value.error.decline_code == "expired_card"
    assert stripe.Invoice.pay(inv["id"], payment_method=new["id"]).status == "paid"


def test_an_idempotency_key_replays_the_first_answer_and_refuses_other_parameters(client):
    state = Store(WORLD.generate(0), collections=WORLD.collections)
    from sw_runtime.worlds.billing.cast import cast

    _, ch = cast(state).single
    first = stripe.Refund.create(charge=ch["id"], amount=1000, idempotency_key="retry-me")
    again = stripe.Refund.create(charge=ch["id"], amount=1000, idempotency_key="retry-me")
    assert first.id == again.id
    assert len(stripe.Refund.list(charge=ch["id"]).data) == 1
    with pytest.raises(stripe.IdempotencyError):
        stripe.Refund.create(charge=ch["id"], amount=2000, idempotency_key="retry-me")


def test_a_wrong_key_is_stripes_401_and_not_a_call(v1, client):
    with pytest.raises(stripe.AuthenticationError):
        stripe.Customer.list(api_key="sk_test_wrong")
    assert v1.get(f"/v1/runs/{client['id']}").json()["calls"] == 0


def test_the_sdks_own_retry_after_a_timeout_replays_the_refund_instead_of_repeating_it(http, base):
    """Under timeout_after_commit the refund happens but answers 500; the SDK retries with the same
    Idempotency-Key it generated, and the world answers the first refund again: one refund, not two."""
    from sw_runtime.engine import faults
    from sw_runtime.worlds.billing.cast import cast

    seed = next(s for s in range(2000) if [n for n in range(1, 6) if faults.hits("timeout_after_commit", s, n)] == [2])
    _, ch = cast(Store(WORLD.generate(seed), collections=WORLD.collections)).single
    ep = http.post("/environments/billing/episodes", json={"seed": seed, "fault_profile": "timeout_after_commit"}).json()
    saved = stripe.api_base, stripe.api_key, stripe.max_network_retries
    stripe.api_base, stripe.api_key = base + ep["tools_url"] + "/api.stripe.com", ep["tools_token"]
    stripe.max_network_retries = 2
    try:
        stripe.Charge.retrieve(ch["id"])  # step 1
        refund = stripe.Refund.create(charge=ch["id"], reason="requested_by_customer")  # step 2 times out; 3 replays
        refunds = stripe.Refund.list(charge=ch["id"])
    finally:
        stripe.api_base, stripe.api_key, stripe.max_network_retries = saved
    assert [r.id for r in refunds.data] == [refund.id] and refund.amount == ch["amount"]
    trace = http.get(f"/episodes/{ep['episode_id']}").json()["trace"]
    assert [(e["tool"], e["ok"]) for e in trace] == [("Charge_retrieve", True), ("Refund_create", False),
                                                     ("Refund_create", True), ("Refund_list", True)]
    assert trace[1]["arguments"]["idempotency_key"] == trace[2]["arguments"]["idempotency_key"]
    assert trace[2]["mutated"] is False  # the replay changed nothing
