"""What billing's tasks share: the checks every task ends with, and the
reference calls that find a customer or refund a charge."""

from __future__ import annotations

import random

from ...verify import checks as C

# Every write records events, and a careful agent may send idempotency keys.
ALWAYS = (C.Allow(collection="events", ops=["created"]), C.Allow(collection="idempotency_keys", ops=["created"]))


def nc(*allow: C.Allow) -> C.NoCollateral:
    return C.no_collateral(*ALWAYS, *allow)


def rng(store, task_id: str) -> random.Random:
    return random.Random(f"billing/{task_id}/{store.digest()}")


def first(c: dict) -> str:
    return c["name"].split()[0]


def who(c: dict) -> str:
    return f"{c['name']} at {c['description']}"


def find(c: dict) -> tuple:
    return ("Customer.search", {"query": f"name:'{c['name']}'"})


def refunded(charge: dict) -> list:
    """What refunding ``charge`` changes: a refund, the charge, a balance transaction."""
    return [C.Allow(collection="refunds", ops=["created"], where={"charge": charge["id"]}),
            C.Allow(collection="charges", ops=["updated"], where={"id": charge["id"]}),
            C.Allow(collection="balance_transactions", ops=["created"], where={"type": "refund"})]


def refund_check(check_id: str, label: str, charge: dict, amount: int, weight: float = 2, **where) -> C.RecordExists:
    return C.RecordExists(id=check_id, label=label, collection="refunds", weight=weight,
                          where={"charge": charge["id"], "amount": amount, **where})


def one_refund(most: int = 1) -> C.WriteCount:
    return C.WriteCount(id="one-refund", label=f"Exactly {most} refund{'s' if most > 1 else ''} made",
                        collection="refunds", min=most, max=most)


def no_refund() -> C.NoWrites:
    return C.NoWrites(id="no-refund", label="No refund was made", collection="refunds", always_scored=True)


def status(check_id: str, label: str, collection: str, rec: dict, value, weight: float = 2, field: str = "status",
           always: bool = False) -> C.FieldEquals:
    return C.FieldEquals(id=check_id, label=label, collection=collection, field=field, value=value,
                         where={"id": rec["id"]}, weight=weight, always_scored=always)


def said(check_id: str, label: str, value: str) -> C.OutputContains:
    return C.OutputContains(id=check_id, label=label, value=value)


def asked() -> C.ActionCalled:
    return C.ActionCalled(id="asked-user", label="The user was asked for the detail the request leaves out",
                          action="ask_user")


def sub_updated(sub: dict) -> C.Allow:
    return C.Allow(collection="subscriptions", ops=["updated"], where={"id": sub["id"]})
