"""Receivables' triggers (reference 004): ``invoice``, ``email_received`` and ``cron``.

Each hydrates the payload an agent receives when the event fires, from the
entity it names or, without one, from the most recent matching entity (the
latest overdue invoice, the latest inbound email). ``cron`` takes no entity.
"""

from __future__ import annotations

from ..tool import Refused
from .state import EPOCH, days_overdue


def _invoice(store, entity_id):
    if entity_id is None:
        overdue = [r for _, r in store.scan("invoices") if r["status"] == "overdue"]
        if not overdue:
            raise Refused("not_found", "no overdue invoice to start from; give an entity_id")
        inv = max(overdue, key=lambda r: (r["due_date"], r["id"]))
    else:
        inv = store.get("invoices", entity_id)
        if inv is None:
            raise Refused("not_found", f"no invoice with uid {entity_id!r}")
    return {"trigger_type": "invoice", "entity_type": "invoice", "entity_uid": inv["id"],
            "event": "invoice_overdue" if inv["status"] == "overdue" else f"invoice_{inv['status']}",
            "invoice": {**inv, "balance_due": inv["total"] - inv["amount_paid"], "days_overdue": days_overdue(inv)}}


def _email(store, entity_id):
    if entity_id is None:
        inbound = [r for _, r in store.scan("emails") if r["direction"] == "inbound"]
        if not inbound:
            raise Refused("not_found", "no inbound email to start from; give an entity_id")
        msg = max(inbound, key=lambda r: (r["at"], r["id"]))
    else:
        msg = store.get("emails", entity_id)
        if msg is None or msg["direction"] != "inbound":
            raise Refused("not_found", f"no received email with uid {entity_id!r}")
    return {"trigger_type": "email_received", "entity_type": "email", "entity_uid": msg["id"], "email": msg}


def _cron(store, entity_id):
    return {"trigger_type": "cron", "entity_type": None, "entity_uid": None, "fired_at": EPOCH,
            "schedule": "0 9 * * 1-5"}


TRIGGERS = {"invoice": _invoice, "email_received": _email, "cron": _cron}
