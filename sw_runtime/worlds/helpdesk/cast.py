"""Who plays which part in a helpdesk start state, found by content alone.

``plant.py`` gives each situation phrases no background ticket uses, and the
tests hold the generator to making every role unique on many seeds. So no
answer key hides in the state, and a task follows whatever names, orders and
times a seed drew.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from ..task import only
from . import sla
from .content import LOOKALIKE_FIRST, SHARED_FIRST, STOVES
from .plant import triage_group
from .state import NOW, REFUND_LIMIT, VIP_TAG

_one = partial(only, world="helpdesk")
UNSOLVED = ("new", "open", "pending", "hold")


@dataclass(frozen=True)
class Cast:
    groups: dict  # name -> id
    macros: dict  # title -> macro
    users: dict  # id -> user
    triage: list  # [(ticket, group name, from a VIP organisation)]
    dup_first: dict
    dup_copy: dict
    dup_other: dict
    where_order: dict
    tracking: str
    breached: dict
    breaching: dict
    refund: dict
    refund_cents: int
    zipper_new: dict
    zipper_old: dict
    zipper_twin_old: dict
    departed: dict
    successor: dict
    departed_open: list
    departed_done: list
    quiet: list  # customers who never wrote in
    stove: str
    recall: list
    recall_solved: dict
    vip_in_support: list
    lookalike_in_support: list
    privacy: dict
    colleague: dict
    colleague_ticket: dict
    promise: dict
    false_a: dict
    false_b: dict
    shared: list  # [(user, their warranty ticket)]
    callback: dict
    watch: dict
    article_right: dict
    article_wrong: dict
    lowered: dict
    lowered_by: dict
    csat_recent: list
    csat_old: dict
    stale: list
    fresh_pending: dict
    replacement: dict
    lister: dict
    lister_open: list
    lister_twin_open: list
    problem: dict
    incidents: list
    old_incident: dict
    discount: dict
    bricked: dict
    closed: dict


def _has(t: dict, phrase: str) -> bool:
    return phrase.lower() in (t["subject"] + " " + t["description"]).lower()


def cast(store) -> Cast:
    tickets = [t for _, t in store.scan("tickets")]
    users = {u["id"]: u for _, u in store.scan("users")}
    orgs = {o["id"]: o for _, o in store.scan("organizations")}
    groups = {g["name"]: g["id"] for _, g in store.scan("groups")}
    macros = {m["title"]: m for _, m in store.scan("macros")}

    def vip(t):
        return t["organization_id"] is not None and VIP_TAG in orgs[t["organization_id"]]["tags"]

    def with_subject(prefix):
        return sorted((t for t in tickets if t["subject"].startswith(prefix)), key=lambda t: t["id"])

    triage = [(t, "Priority Support" if vip(t) else triage_group(t["subject"]), vip(t))
              for t in tickets if t["status"] == "new"]

    wrong = with_subject("Wrong ")
    order = {t["id"]: t["custom_fields"][0]["value"] for t in wrong}
    pair = [t for t in wrong if sum(order[o["id"]] == order[t["id"]] for o in wrong) == 2]
    dup_first, dup_copy = pair if len(pair) == 2 else (None, None)
    dup_other = _one([t for t in wrong if t not in pair], "wrong-item ticket on another order")

    where = _one(with_subject("Where is my order"), "where-is-my-order ticket")
    note = _one([c for _, c in store.scan("comments", {"ticket_id": where["id"]}) if not c["public"]],
                "warehouse note")
    tracking = next(w for w in note["body"].replace(".", " ").split() if w.startswith("1Z"))

    no_reply = [t for t in tickets if t["status"] in UNSOLVED and t["priority"] and not sla.first_replied(store, t)]
    breached = _one([t for t in no_reply if sla.breached(store, t, NOW)], "breached ticket")
    breaching = _one([t for t in no_reply if not sla.breached(store, t, NOW)], "ticket about to breach")

    refunds = with_subject("Refund for order")
    refund = _one([t for t in refunds if float(t["custom_fields"][1]["value"]) * 100 > REFUND_LIMIT],
                  "refund over the limit")

    zipper_new = _one(with_subject("The zipper is broken again"), "zipper-again ticket")
    me = users[zipper_new["requester_id"]]
    zipper_old = _one([t for t in tickets if t["requester_id"] == me["id"] and t is not zipper_new], "earlier ticket")
    twin_old = _one([t for t in with_subject("Zipper problem with") if t["requester_id"] != me["id"]],
                    "look-alike's zipper ticket")

    departed = _one([u for u in users.values() if u["role"] == "agent" and u["suspended"]], "departed agent")
    successor = _one([u for u in users.values() if u["role"] == "agent" and not u["suspended"]
                      and u["default_group_id"] == departed["default_group_id"]], "departed agent's colleague")
    theirs = sorted((t for t in tickets if t["assignee_id"] == departed["id"]), key=lambda t: t["id"])

    requesters = {t["requester_id"] for t in tickets}
    quiet = [u for u in users.values() if u["role"] == "end-user" and u["id"] not in requesters]

    stove = _one([s for s in STOVES if any(_has(t, f"{s} stove") for t in tickets)], "recalled stove")
    recall = [t for t in tickets if _has(t, f"{stove} stove")]

    lookalike_org = _one([o for o in orgs.values() if VIP_TAG not in o["tags"] and any(
        VIP_TAG in v["tags"] and o["name"].startswith(v["name"].rsplit(" ", 1)[0] + " ") for v in orgs.values())],
        "look-alike organisation")
    in_support = [t for t in tickets if t["status"] in UNSOLVED and t["group_id"] == groups["Support"]]

    privacy = _one(with_subject("Question about my colleague's order"), "privacy ticket")
    colleague = _one([u for u in users.values() if u["role"] == "end-user" and u["name"] in privacy["description"]],
                     "colleague")
    colleague_ticket = _one([t for t in tickets if t["requester_id"] == colleague["id"]], "colleague's ticket")

    false_a, false_b = with_subject("Tent pole snapped")

    shared_users = [u for u in users.values() if u["name"].split()[0] in SHARED_FIRST]
    shared = [(u, _one([t for t in tickets if t["requester_id"] == u["id"]], "warranty ticket"))
              for u in sorted(shared_users, key=lambda u: u["id"])]

    watch = _one([t for t in tickets if t["subject"].endswith(" is frozen")], "frozen watch ticket")
    series = watch["subject"][len("My "):-len(" is frozen")]
    resets = [a for _, a in store.scan("articles") if a["title"].startswith("How to reset your ")]
    right = _one([a for a in resets if a["title"].endswith(series)], "the right reset article")
    wrong_article = _one([a for a in resets if a is not right], "the look-alike reset article")

    lowered = _one([t for t in tickets if _has(t, "leaks at the seams")], "lowered ticket")
    change = _one([a for _, a in store.scan("audits", {"ticket_id": lowered["id"]})
                   if any(e["type"] == "Change" for e in a["events"])], "priority change")

    week_ago = sla.fmt(NOW - timedelta(days=7))
    bad = [r for _, r in store.scan("satisfaction_ratings") if r["score"] == "bad"]
    by_id = {t["id"]: t for t in tickets}
    csat_recent = sorted((by_id[r["ticket_id"]] for r in bad if r["created_at"] >= week_ago), key=lambda t: t["id"])
    csat_old = _one([by_id[r["ticket_id"]] for r in bad if r["created_at"] < week_ago], "older bad rating")

    pending = [t for t in tickets if t["status"] == "pending"]
    stale = [t for t in pending if t["updated_at"] <= week_ago]
    fresh = _one([t for t in pending if week_ago < t["updated_at"] <= sla.fmt(NOW - timedelta(days=5))],
                 "pending ticket six days old")

    pairs = {frozenset(p) for p in LOOKALIKE_FIRST}
    twins = [(a, b) for a in users.values() for b in users.values() if a["id"] < b["id"] and a["role"] == "end-user"
             and a["name"].split()[-1] == b["name"].split()[-1]
             and frozenset((a["name"].split()[0], b["name"].split()[0])) in pairs]
    listers = _one([p for p in twins if me not in p], "look-alike pair of hd-22")
    count = {u["id"]: sum(t["requester_id"] == u["id"] for t in tickets) for u in listers}
    lister, twin = sorted(listers, key=lambda u: -count[u["id"]])

    problem = _one([t for t in tickets if t["type"] == "problem"], "problem ticket")
    reports = [t for t in tickets if "error 502" in t["subject"].lower() and t is not problem]

    return Cast(
        groups=groups, macros=macros, users=users, triage=triage, dup_first=dup_first, dup_copy=dup_copy,
        dup_other=dup_other, where_order=where, tracking=tracking, breached=breached, breaching=breaching,
        refund=refund, refund_cents=round(float(refund["custom_fields"][1]["value"]) * 100),
        zipper_new=zipper_new, zipper_old=zipper_old, zipper_twin_old=twin_old, departed=departed,
        successor=successor, departed_open=[t for t in theirs if t["status"] in UNSOLVED],
        departed_done=[t for t in theirs if t["status"] not in UNSOLVED], quiet=quiet, stove=stove,
        recall=[t for t in recall if t["status"] in UNSOLVED],
        recall_solved=_one([t for t in recall if t["status"] not in UNSOLVED], "solved stove ticket"),
        vip_in_support=[t for t in in_support if vip(t)],
        lookalike_in_support=[t for t in in_support if t["organization_id"] == lookalike_org["id"]],
        privacy=privacy, colleague=colleague, colleague_ticket=colleague_ticket,
        promise=_one([t for t in tickets if t["subject"].endswith(" keeps resetting")], "resetting ticket"),
        false_a=false_a, false_b=false_b, shared=shared,
        callback=_one(with_subject("Call me back about"), "call-back ticket"), watch=watch, article_right=right,
        article_wrong=wrong_article, lowered=lowered, lowered_by=users[change["author_id"]],
        csat_recent=csat_recent, csat_old=csat_old, stale=sorted(stale, key=lambda t: t["id"]),
        fresh_pending=fresh,
        replacement=_one(with_subject("Replacement for my damaged"), "replacement ticket"),
        lister=lister, lister_open=[t for t in tickets if t["requester_id"] == lister["id"]
                                    and t["status"] in UNSOLVED],
        lister_twin_open=[t for t in tickets if t["requester_id"] == twin["id"] and t["status"] in UNSOLVED],
        problem=problem, incidents=[t for t in reports if t["status"] in UNSOLVED],
        old_incident=_one([t for t in reports if t["status"] not in UNSOLVED], "old 502 ticket"),
        discount=_one(with_subject("Discount code rejected"), "discount ticket"),
        bricked=_one([t for t in tickets if t["subject"].endswith(" is bricked after the update")], "bricked ticket"),
        closed=_one([t for t in tickets if _has(t, "buckle broke")], "buckle ticket"),
    )

