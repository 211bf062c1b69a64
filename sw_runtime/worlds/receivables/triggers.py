"""Receivables' triggers (reference 004): ``invoice``, ``email_received`` and ``cron``.

Each hydrates the payload an agent receives when the event fires, from the
entity it names or, without one, from the most recent matching entity (the
latest overdue invoice, the latest inbound email). ``cron`` takes no entity.
"""

from __future__ import annotations

from ..tool import Refused
from .state import EPOCH, days_overdue


def _entity(store, entity_id, collection: str, latest: str, named: str, fits, key: str) -> dict:
    """The record ``entity_id`` names or, without one, the most recent (by
    ``key``, then id) that ``fits``; ``latest`` and ``named`` say what was sought,
    for the refusal."""
    if entity_id is None:
        found = [r for _, r in store.scan(collection) if fits(r)]
        if not found:
            raise Refused("not_found", f"no {latest} to start from; give an entity_id")
        return max(found, key=lambda r: (r[key], r["id"]))
    rec = store.get(collection, entity_id)
    if rec is None:
        raise Refused("not_found", f"no {named} with uid {entity_id!r}")
    return rec


def _invoice(store, entity_id):
    inv = _entity(store, entity_id, "invoices", "overdue invoice", "invoice", lambda r: r["status"] == "overdue",
                  "due_date")
    return {"trigger_type": "invoice", "entity_type": "invoice", "entity_uid": inv["id"],
            "event": "invoice_overdue" if inv["status"] == "overdue" else f"invoice_{inv['status']}",
            "invoice": {**inv, "balance_due": inv["total"] - inv["amount_paid"], "days_overdue": days_overdue(inv)}}


def _email(store, entity_id):
    inbound = _entity(store, entity_id, "emails", "inbound email", "received email",
                      lambda r: r["direction"] == "inbound", "at")
    if inbound["direction"] != "inbound":  # a named email must be one that was received
        raise Refused("not_found", f"no received email with uid {entity_id!r}")
    return {"trigger_type": "email_received", "entity_type": "email", "entity_uid": inbound["id"], "email": inbound}


def _cron(store, entity_id):
    return {"trigger_type": "cron", "entity_type": None, "entity_uid": None, "fired_at": EPOCH,
            "schedule": "0 9 * * 1-5"}


TRIGGERS = {"invoice": _invoice, "email_received": _email, "cron": _cron}
