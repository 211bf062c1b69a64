"""What helpdesk's planters share: the triage rules, products, VIP members, agents' replies and
look-alike customers."""

from __future__ import annotations

from .content import ORG_LOOKALIKE, PRODUCTS

DAY = 1440


TRIAGE = {  # hd-01: what a new ticket says -> the group the triage rules send it to
    "Billing": ("I was charged twice for order {o}", "Double charge on my card for {o}",
                "Invoice total is wrong for {o}"),
    "Returns": ("How do I return my {p}?", "Return request for order {o}", "I want to send back the {p}"),
    "Technical": ("My {p} won't turn on", "My {p} stopped working", "Bluetooth pairing fails on my {p}"),
}


TRIAGE_KEYS = {"Billing": ("charged twice", "double charge", "invoice total"),
               "Returns": ("return", "send back"),
               "Technical": ("won't turn on", "stopped working", "pairing fails")}


def triage_group(subject: str) -> str:
    """The group hd-01's rules send a new ticket to, by what its subject says."""
    s = subject.lower()
    return next(g for g, keys in TRIAGE_KEYS.items() if any(k in s for k in keys))


def product(b, line=None) -> tuple:
    line = line or b.rng.choice(sorted(PRODUCTS))
    return line, b.rng.choice(PRODUCTS[line])


def lookalike_org(b) -> None:
    """A non-VIP organisation named like the first VIP one (hd-10's trap)."""
    vip = b.orgs[0]
    head, _, tail = vip["name"].rpartition(" ")
    name = f"{head} {ORG_LOOKALIKE[tail]}"
    b.orgs.append({"key": name, "name": name, "domain_names": [name.lower().replace(" ", "") + ".com"], "tags": [],
                   "details": "", "notes": "", "group": None})


def vip_member(b, k: int) -> dict:
    org = b.orgs[k]
    user = b.customer(org=org)
    b.members[org["key"]].append(user)
    return user


def agent_reply(b, group: str, ago: float, text="Thanks for reaching out, we are on it.") -> tuple:
    agent = b.agents[group][1]
    return agent, (agent, text, True, ago)


PAIR_SURNAMES = ("Parker", "Hayes", "Morrison", "Sullivan", "Bennett", "Carter", "Fleming", "Garner")


def lookalike_pair(b) -> tuple:
    """Two customers whose names differ by a letter or two (Jon and John Parker)."""
    f1, f2 = b.pairs.pop()
    used = {u["name"].rsplit(" ", 1)[-1] for u in b.users}
    last = b.rng.choice([s for s in PAIR_SURNAMES if s not in used])
    return b.customer(first=f1, last=last), b.customer(first=f2, last=last)
