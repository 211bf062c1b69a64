"""What helpdesk's tasks are built from: the checks and calls they share."""

from __future__ import annotations

import random

from ...verify import checks as C
from .cast import Cast
from .state import ASSISTANT_ID

A = ASSISTANT_ID
AUDITS = C.Allow(collection="audits", ops=["created"])


def rng_for(store, task_id: str) -> random.Random:
    return random.Random(f"helpdesk/{task_id}/{store.digest()}")


def changed(*tickets) -> list:
    """What updating ``tickets`` (with comments) changes."""
    out = []
    for t in tickets:
        out += [C.Allow(collection="tickets", ops=["updated"], where={"id": t["id"]}),
                C.Allow(collection="comments", ops=["created"], where={"ticket_id": t["id"]})]
    return out + [AUDITS]


def field_is(check_id, label, t, field, value, weight=1.0, always=False) -> C.FieldEquals:
    return C.FieldEquals(id=check_id, label=label, collection="tickets", field=field, value=value,
                         where={"id": t["id"]}, weight=weight, always_scored=always)


def note(check_id, label, t, text, public=False, weight=1.0) -> C.RecordExists:
    return C.RecordExists(id=check_id, label=label, collection="comments", weight=weight,
                          where={"ticket_id": t["id"], "public": public, "author_id": A, "body": text})


def asked() -> C.ActionCalled:
    return C.ActionCalled(id="asked-user", label="The lead was asked for the detail the request leaves out",
                          action="ask_user")


def first_name(c: Cast, t: dict) -> str:
    return c.users[t["requester_id"]]["name"].split()[0]


def update(t, **ticket) -> tuple:
    return ("zendesk.tickets.update", {"ticket_id": t["id"], "ticket": ticket})


def show(t, **kw) -> tuple:
    return ("zendesk.tickets.show", {"ticket_id": t["id"], **kw})

