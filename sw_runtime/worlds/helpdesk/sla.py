"""SLA policies applied to tickets: which policy a ticket is under, and when
each of its metrics breaches.

A ticket with a priority is under the first policy whose filter it meets (the
VIP policy for organisations tagged ``vip``, else Standard). Its first reply
time is achieved by the first public comment of an agent; its requester wait
time (the resolution target) by being solved. Breach times count calendar
minutes from the ticket's creation, so they do not depend on the clock: the
agent compares them with the time the policy gives.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

_FMT = "%Y-%m-%dT%H:%M:%SZ"


def parse(t: str) -> datetime:
    return datetime.strptime(t[:19] + "Z", _FMT).replace(tzinfo=timezone.utc)


def fmt(t: datetime) -> str:
    return t.strftime(_FMT)


def policy_of(store, ticket: dict) -> dict | None:
    if ticket.get("priority") is None:
        return None
    org = store.get("organizations", str(ticket["organization_id"])) if ticket.get("organization_id") else None
    tags = set(org["tags"]) if org else set()
    for _, policy in sorted(store.scan("sla_policies"), key=lambda p: p[1]["position"]):
        if all(c["field"] != "organization_tags" or c["value"] in tags for c in policy["filter"]["all"]):
            return policy
    return None


def target(policy: dict, metric: str, priority: str) -> int:
    """Minutes the policy gives ``metric`` at ``priority``."""
    return next(m["target"] for m in policy["policy_metrics"] if m["metric"] == metric and m["priority"] == priority)


def first_replied(store, ticket: dict) -> bool:
    for _, c in store.scan("comments", {"ticket_id": ticket["id"]}):
        author = store.get("users", str(c["author_id"]))
        if c["public"] and author is not None and author["role"] != "end-user" \
                and author["id"] != ticket["requester_id"]:
            return True
    return False


def metrics(store, ticket: dict) -> dict:
    """Zendesk's ``slas`` sideload for one ticket: ``{"policy_metrics": [...]}``."""
    policy = policy_of(store, ticket)
    if policy is None:
        return {"policy_metrics": []}
    created = parse(ticket["created_at"])
    out = []
    for metric, done in (("first_reply_time", first_replied(store, ticket)),
                         ("requester_wait_time", ticket["status"] in ("solved", "closed"))):
        minutes = target(policy, metric, ticket["priority"])
        out.append({"metric": metric, "stage": "achieved" if done else "active",
                    "breach_at": fmt(created + timedelta(minutes=minutes)), "policy_id": policy["id"],
                    "policy_title": policy["title"]})
    return {"policy_metrics": out}


def breached(store, ticket: dict, now: datetime) -> bool:
    """Whether an active first-reply metric of ``ticket`` breached before ``now``."""
    for m in metrics(store, ticket)["policy_metrics"]:
        if m["metric"] == "first_reply_time" and m["stage"] == "active" and parse(m["breach_at"]) < now:
            return True
    return False
