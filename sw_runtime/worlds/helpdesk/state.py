"""Helpdesk's data model and its seeded start state: a Zendesk Support account.

``generate(seed)`` builds Brightwater Outfitters' Zendesk (``brightwater``): five
groups, ten agents (one of them has left), about ninety customers in eighteen
organisations (three VIP, one with a look-alike), about 210 tickets in every
status with their comments and audits, SLA policies, macros, views, custom
ticket fields, satisfaction ratings and a small help center. Background
tickets come from ``content.BACKGROUND``; ``plant.py`` adds the situations the
tasks are about. Only ``random.Random(seed)`` is used, and ids are given at the
end, by creation time, as Zendesk gives them: an id never says which part a
record plays.

Records are stored in Zendesk's API shapes (integer ids, ``...Z`` times) under
their id as a string.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from ..money import dollars as money  # the way the policy asks amounts to be written
from . import plant
from .content import (AGENT_REPLIES, BACKGROUND, CUSTOMER_FOLLOWUPS, DOMAIN, FIRST, GROUPS, LAST,
                      MAIL_HOSTS, ORGS, PRODUCTS)
from .records import static_records

COLLECTIONS = ("tickets", "comments", "audits", "users", "organizations", "groups", "macros", "views",
               "sla_policies", "ticket_fields", "satisfaction_ratings", "articles")
EPOCH = "2026-06-15T09:00:00.000Z"  # a Monday morning; step n happens 7n seconds later
NOW = datetime(2026, 6, 15, 9, 0, tzinfo=timezone.utc)
ASSISTANT_ID = 36100001  # the agent's own Zendesk user
FIELD_ORDER, FIELD_REFUND, FIELD_PRODUCT = 36700001, 36700002, 36700003
VIP_TAG = "vip"
REFUND_LIMIT = 15_000  # cents: refunds above this need a supervisor's approval
STATUSES = ("new", "open", "pending", "hold", "solved", "closed")


def ts(minutes_ago: float) -> str:
    """Zendesk's time format for ``minutes_ago`` before the start of an episode."""
    return (NOW - timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")


class Builder:
    """People, organisations and ticket specs on their way to records."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.names = [(f, s) for f in FIRST for s in LAST]
        self.rng.shuffle(self.names)
        self.users: list = []
        self.orgs: list = []
        self.specs: list = []  # tickets before ids: see ``ticket``
        self.ratings: list = []
        self.audits: list = []  # extra audits (beyond each ticket's Create): (spec, minutes_ago, author, events)
        self.articles: list = []
        self._taken: set = set()  # order numbers given out
        self._people: set = set()  # full names given out

    # -- people -------------------------------------------------------------------------------------------------

    def name(self, first: str | None = None, last: str | None = None) -> tuple:
        while True:
            f, s = self.names.pop()
            f, s = first or f, last or s
            if f"{f} {s}" not in self._people:
                self._people.add(f"{f} {s}")
                return f, s

    def person(self, role="end-user", org=None, first=None, last=None, host=None, **extra) -> dict:
        f, s = self.name(first, last)
        if role != "end-user":
            mail = f"{f.lower()}.{s.lower()}@{DOMAIN}"
        elif org is not None:
            mail = f"{f.lower()}.{s.lower()}@{org['domain_names'][0]}"
        else:
            mail = f"{f.lower()}.{s.lower()}{self.rng.randrange(10, 99)}@{host or self.rng.choice(MAIL_HOSTS)}"
        user = {"name": f"{f} {s}", "email": mail, "role": role, "organization_id": org["key"] if org else None,
                "phone": f"+1-555-{self.rng.randrange(100, 999)}-{self.rng.randrange(1000, 9999)}",
                "tags": [], "suspended": False, "active": True, "verified": True,
                "time_zone": "Pacific Time (US & Canada)", "locale": "en-US", "default_group_id": None,
                "created_days": self.rng.randrange(90, 900), "notes": "", **extra}
        self.users.append(user)
        return user

    def customer(self, **kw) -> dict:
        return self.person("end-user", **kw)

    # -- tickets ------------------------------------------------------------------------------------------------

    def ticket(self, requester, subject, description, *, status, minutes_ago, group=None, assignee=None,
               priority=None, type=None, tags=(), order=None, refund=None, product=None, comments=(),
               due_at=None, problem=None, via="email", followup=None) -> dict:
        """A ticket spec; ``comments`` are ``(author, body, public, minutes_ago)`` after the description."""
        spec = {"requester": requester, "subject": subject, "description": description, "status": status,
                "minutes_ago": minutes_ago, "group": group, "assignee": assignee, "priority": priority,
                "type": type, "tags": list(tags), "order": order, "refund": refund, "product": product,
                "comments": [(requester, description, True, minutes_ago)] + list(comments), "due_at": due_at,
                "problem": problem, "via": via, "followup": followup}
        self.specs.append(spec)
        return spec

    def order_number(self) -> str:
        while True:
            n = f"BW-{self.rng.randrange(100000, 999999)}"
            if n not in self._taken:
                self._taken.add(n)
                return n

    def tracking(self) -> str:
        return "1Z" + "".join(self.rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(16))


def _people(b: Builder) -> None:
    rng = b.rng
    b.assistant = b.person("agent", first="Brightwater", last="Assistant", default_group_id="Support")
    b.assistant["email"] = f"assistant@{DOMAIN}"
    b.supervisor = b.person("admin", default_group_id="Billing", tags=["supervisor"])
    b.agents = {g: [b.person("agent", default_group_id=g) for _ in range(2)] for g in GROUPS}
    b.departed = b.agents["Returns"][0]
    b.departed.update(suspended=True, active=False, notes="Left Brightwater on 5 June 2026.")
    names = list(ORGS)
    rng.shuffle(names)
    for i, name in enumerate(names[:16]):
        slug = name.lower().replace(" ", "")
        b.orgs.append({"key": name, "name": name, "domain_names": [f"{slug}.org"], "tags": [],
                       "details": "", "notes": "", "group": None})
    for org in b.orgs[:3]:
        org["tags"] = [VIP_TAG]
        org["notes"] = "VIP account: route to Priority Support."
        org["group"] = "Priority Support"
    plant.lookalike_org(b)
    b.members = {o["key"]: [] for o in b.orgs}
    for org in b.orgs[3:]:
        if VIP_TAG in org["tags"]:
            continue
        for _ in range(rng.randrange(2, 4)):
            b.members[org["key"]].append(b.customer(org=org))
    b.background = [b.customer() for _ in range(40)] + [u for o in b.orgs[3:] for u in b.members[o["key"]]]


def _background(b: Builder) -> None:
    """About 150 ordinary tickets, none new, each with an agent's first reply."""
    rng = b.rng
    weights = (("open", 28), ("pending", 14), ("hold", 8), ("solved", 30), ("closed", 20))
    pool = [s for s, w in weights for _ in range(w)]
    for _ in range(150):
        group = rng.choice(("Support", "Support", "Billing", "Returns", "Technical"))
        subject, text = rng.choice(BACKGROUND[group])
        field = rng.choice(sorted(PRODUCTS))
        product = rng.choice(PRODUCTS[field])
        status = rng.choice(pool)
        agent = rng.choice([a for a in b.agents[group] if not a["suspended"]])
        if status == "closed":
            created = rng.randrange(31 * 1440, 75 * 1440)
        elif status == "solved":
            created = rng.randrange(3 * 1440, 28 * 1440)
        elif status == "pending":
            created = rng.randrange(2 * 1440, 12 * 1440)
        else:
            created = rng.randrange(300, 20 * 1440)
        requester = rng.choice(b.background)
        replied = created - rng.randrange(20, 180)
        comments = [(agent, rng.choice(AGENT_REPLIES), True, replied)]
        if status == "pending":  # the agent asked last, at most four days ago
            comments.append((agent, "Could you confirm the order number and send a photo?", True,
                             rng.randrange(60, min(4 * 1440, replied - 10))))
        elif rng.random() < 0.4:
            comments.append((requester, rng.choice(CUSTOMER_FOLLOWUPS), True, max(replied - rng.randrange(30, 300), 5)))
        if status in ("solved", "closed"):
            comments.append((agent, "I am marking this as solved. Reply any time if you need more help.", True,
                             max(comments[-1][3] - 600, 10)))
        b.ticket(requester, subject, text.format(p=product), status=status, minutes_ago=created, group=group,
                 assignee=agent, priority=rng.choice(("low", "normal", "normal", "high")),
                 type=rng.choice((None, "question", "question", "incident", "task")), product=field,
                 tags=[field, group.lower().replace(" ", "_")], comments=comments,
                 order=b.order_number() if rng.random() < 0.6 else None,
                 due_at=None)
        spec = b.specs[-1]
        if spec["type"] == "task":
            spec["due_at"] = ts(-rng.randrange(1, 20) * 1440)
        if status in ("solved", "closed") and rng.random() < 0.35:
            b.ratings.append((spec, rng.choice(("good", "good", "good", "offered")), "",
                              spec["comments"][-1][3] - 120))


def generate(seed: int) -> dict:
    b = Builder(seed)
    _people(b)
    _background(b)
    plant.everything(b)
    return static_records(b)
