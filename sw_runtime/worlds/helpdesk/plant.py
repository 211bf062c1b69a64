"""The situations helpdesk's tasks are about, planted into a ``state.Builder``.

Each planter (``plant_queue.py``, ``plant_tickets.py``; ``plant_parts.py``
holds what they share) adds its people and tickets with phrases no background ticket
uses, so ``cast.py`` finds them by content; which names, products, amounts,
order numbers and times they get varies with the seed. Times are minutes
before the start of an episode (Monday 15 June 2026, 09:00 UTC).
"""

from __future__ import annotations

from . import plant_queue as q
from . import plant_tickets as t
from .content import LOOKALIKE_FIRST
from .plant_parts import lookalike_org, triage_group

__all__ = ["everything", "lookalike_org", "triage_group"]


# In this order, which fixes what each planter draws from the seed's generator.
PLANTERS = (q.triage, t.duplicates, t.tracking_macro, q.sla_breach, t.big_refund, t.earlier_ticket,
            q.departed_agent, t.quiet_customers, q.bulk_recall, q.vip_routing, t.privacy, t.sla_promise,
            t.false_duplicates, t.shared_first_name, t.callback_task, t.articles, t.priority_audit, q.bad_csat,
            q.stale_pending, t.replacement_reply, q.customer_tickets, q.checkout_outage, t.firmware_escalation,
            t.closed_followup)


def everything(b) -> None:
    """Plant every task's situation into a builder that has its people and background."""
    b.pairs = list(LOOKALIKE_FIRST)
    b.rng.shuffle(b.pairs)
    for planter in PLANTERS:
        planter(b)
