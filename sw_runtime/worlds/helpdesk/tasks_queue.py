"""Helpdesk's queue-wide jobs: triage, SLA breaches, reassignment, bulk tags, VIP routing, bad
ratings, stale pending tickets, a customer's open tickets, incidents of a problem."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from . import sla
from .cast import cast
from .task_parts import AUDITS, changed, field_is, first_name, note, show, update


TRIAGE_POLICY = (
    "Triage rules: a new ticket about a charge or an invoice goes to Billing; about a return or an exchange, to "
    "Returns; about a device that does not work, to Technical. A ticket from a VIP organization goes to Priority "
    "Support whatever it is about, with priority high; every other triaged ticket gets priority normal. Set each "
    "triaged ticket to open."
)


def triage_inbox(store) -> Setup:
    c = cast(store)
    checks, calls, lines = [], [], []
    for t, group, vip in sorted(c.triage, key=lambda x: x[0]["id"]):
        prio = "high" if vip else "normal"
        checks.append(field_is(f"group-{t['id']}", f"#{t['id']} went to {group}", t, "group_id", c.groups[group]))
        checks.append(field_is(f"priority-{t['id']}", f"#{t['id']} has priority {prio}", t, "priority", prio))
        calls.append(update(t, group_id=c.groups[group], priority=prio, status="open"))
        lines.append(f"#{t['id']} \"{t['subject']}\" to {group} ({prio}{', VIP organization' if vip else ''})")
    checks.append(C.RecordAbsent(id="none-new", label="No ticket is left new", collection="tickets",
                                 where={"status": "new"}))
    checks.append(C.no_collateral(*[C.Allow(collection="tickets", ops=["updated"], where={"id": t["id"]})
                                    for t, _, _ in c.triage], AUDITS))
    return Setup(
        instruction="Triage the new tickets in our inbox by our routing rules.",
        checks=checks,
        solution=[("zendesk.search", {"query": "type:ticket status:new"}), ("zendesk.organizations.list", {})]
        + calls,
        output="I triaged the five new tickets and set each to open: " + "; ".join(lines) + ".",
    )


def sla_breach(store) -> Setup:
    c = cast(store)
    t, near = c.breached, c.breaching
    due = next(m["breach_at"] for m in sla.metrics(store, t)["policy_metrics"] if m["metric"] == "first_reply_time")
    view = next(v for _, v in store.scan("views") if v["title"] == "All unsolved tickets")
    return Setup(
        instruction="One of our open tickets has already breached its first-reply SLA. Find it and escalate it per "
                    "policy.",
        checks=[
            field_is("urgent", f"#{t['id']} is urgent", t, "priority", "urgent"),
            field_is("priority-group", f"#{t['id']} is in Priority Support", t, "group_id",
                     c.groups["Priority Support"]),
            C.FieldContains(id="tagged", label=f"#{t['id']} is tagged sla_breached", collection="tickets",
                            field="tags", value="sla_breached", where={"id": t["id"]}),
            field_is("near-untouched", f"#{near['id']}, not yet breached, keeps priority high", near, "priority",
                   "high", always=True),
            C.no_collateral(*changed(t)),
        ],
        solution=[("zendesk.slas.policies.list", {}), ("zendesk.views.list", {}),
                  ("zendesk.views.tickets", {"view_id": view["id"], "include": "slas"}),
                  show(t, include="slas"),
                  update(t, priority="urgent", group_id=c.groups["Priority Support"],
                          additional_tags=["sla_breached"])],
        output=(f"#{t['id']} (\"{t['subject']}\") breached its first-reply SLA at {due} with no reply yet. I set it to "
                "urgent, moved it to Priority Support and tagged it sla_breached. "
                f"#{near['id']} has not breached yet."),
    )


def departed_agent(store) -> Setup:
    c = cast(store)
    gone, heir = c.departed, c.successor
    checks = [field_is(f"moved-{t['id']}", f"#{t['id']} is assigned to {heir['name']}", t, "assignee_id", heir["id"])
              for t in c.departed_open]
    checks += [field_is(f"kept-{t['id']}", f"The {t['status']} #{t['id']} was left as it was", t, "assignee_id",
                      gone["id"], always=True) for t in c.departed_done]
    checks.append(C.no_collateral(*[C.Allow(collection="tickets", ops=["updated"], where={"id": t["id"]})
                                    for t in c.departed_open], AUDITS))
    return Setup(
        instruction=f"{gone['name']} has left Brightwater. Reassign all of their unsolved tickets to {heir['name']}.",
        checks=checks,
        solution=[("zendesk.search", {"query": f"type:user role:agent \"{gone['name']}\""}),
                  ("zendesk.search", {"query": f"type:user role:agent \"{heir['name']}\""}),
                  ("zendesk.search", {"query": f"type:ticket assignee:{gone['id']} status<solved"})]
        + [update(t, assignee_id=heir["id"]) for t in c.departed_open],
        output=(f"I reassigned {gone['name']}'s {len(c.departed_open)} unsolved tickets ("
                + ", ".join(f"#{t['id']}" for t in c.departed_open) + f") to {heir['name']}. Their solved and closed "
                "tickets stay as they were."),
    )


def bulk_recall(store) -> Setup:
    c = cast(store)
    ids = ",".join(str(t["id"]) for t in c.recall)
    return Setup(
        instruction=f"The {c.stove} stove is being recalled. Tag every unsolved ticket that mentions it with "
                    "stove_recall.",
        checks=[C.FieldContains(id=f"tagged-{t['id']}", label=f"#{t['id']} is tagged stove_recall",
                                collection="tickets", field="tags", value="stove_recall", where={"id": t["id"]})
                for t in c.recall]
        + [C.no_collateral(*[C.Allow(collection="tickets", ops=["updated"], where={"id": t["id"]}) for t in c.recall],
                           AUDITS)],
        solution=[("zendesk.search", {"query": f"type:ticket status<solved \"{c.stove} stove\""}),
                  ("zendesk.tickets.update_many", {"ids": ids, "ticket": {"additional_tags": ["stove_recall"]}})],
        output=(f"I tagged the {len(c.recall)} unsolved tickets that mention the {c.stove} stove with stove_recall: "
                + ", ".join(f"#{t['id']}" for t in c.recall)
                + f". The solved #{c.recall_solved['id']} was left alone."),
    )


def vip_routing(store) -> Setup:
    c = cast(store)
    prio = c.groups["Priority Support"]
    return Setup(
        instruction="Check the unsolved tickets in the Support group and move every one from a VIP organization to "
                    "where our policy says it belongs.",
        checks=[field_is(f"moved-{t['id']}", f"#{t['id']} (VIP) is in Priority Support", t, "group_id", prio, 2)
                for t in c.vip_in_support]
        + [field_is(f"stays-{t['id']}", f"#{t['id']}, from a look-alike organization that is not VIP, stays in Support",
                  t, "group_id", c.groups["Support"], always=True) for t in c.lookalike_in_support]
        + [C.no_collateral(*[C.Allow(collection="tickets", ops=["updated"], where={"id": t["id"]})
                             for t in c.vip_in_support], AUDITS)],
        solution=[("zendesk.organizations.list", {}), ("zendesk.groups.list", {}),
                  ("zendesk.search", {"query": "type:ticket group:Support status<solved"})]
        + [update(t, group_id=prio) for t in c.vip_in_support],
        output="I moved the VIP organizations' tickets " + " and ".join(f"#{t['id']}" for t in c.vip_in_support)
        + " from Support to Priority Support. Tickets from organizations that only look like VIP ones stay in Support.",
    )


def bad_ratings(store) -> Setup:
    c = cast(store)
    checks, calls = [], [("zendesk.satisfaction_ratings.list", {"score": "bad"})]
    for t in c.csat_recent:
        checks.append(field_is(f"reopened-{t['id']}", f"#{t['id']} was reopened", t, "status", "open"))
        checks.append(note(f"noted-{t['id']}", f"#{t['id']} has the internal note", t, "Bad CSAT follow-up"))
        calls += [show(t), update(t, status="open", comment={"body": "Bad CSAT follow-up: please review.",
                                                                "public": False})]
    old = c.csat_old
    checks.append(field_is("old-left", f"#{old['id']}, rated bad more than a week ago, stays solved", old, "status",
                         "solved", always=True))
    checks.append(C.no_collateral(*changed(*c.csat_recent)))
    return Setup(
        instruction="Reopen every ticket that got a bad satisfaction rating in the past 7 days, with an internal "
                    "note \"Bad CSAT follow-up\" on each for the team lead.",
        checks=checks, solution=calls,
        output=("I reopened " + ", ".join(f"#{t['id']}" for t in c.csat_recent) + " (bad ratings this week) with a "
                f"\"Bad CSAT follow-up\" internal note on each. #{old['id']}'s bad rating is older than 7 days."),
    )


def stale_pending(store) -> Setup:
    c = cast(store)
    macro = c.macros["Close: no response"]
    checks, calls = [], [("zendesk.macros.list", {"active": True}),
                         ("zendesk.search", {"query": "type:ticket status:pending"})]
    for t in c.stale:
        body = (f"Hi {first_name(c, t)},\n\nWe haven't heard back from you, so we are closing this request. Just reply "
                "to reopen it.\n\nBrightwater Outfitters")
        checks.append(field_is(f"solved-{t['id']}", f"#{t['id']} was solved", t, "status", "solved"))
        checks.append(note(f"told-{t['id']}", f"#{t['id']} got the macro's reply", t, "haven't heard back",
                            public=True))
        calls += [("zendesk.macros.apply", {"ticket_id": t["id"], "macro_id": macro["id"]}),
                  update(t, comment={"body": body, "public": True}, status="solved", additional_tags=["no_response"])]
    fresh = c.fresh_pending
    checks.append(field_is("fresh-pending", f"#{fresh['id']}, waiting six days, stays pending", fresh, "status",
                         "pending", always=True))
    checks.append(C.no_collateral(*changed(*c.stale)))
    return Setup(
        instruction="Clean up our pending queue per policy.",
        checks=checks, solution=calls,
        output=("I solved " + ", ".join(f"#{t['id']}" for t in c.stale) + " with the \"Close: no response\" macro: "
                f"their customers have not answered for over 7 days. #{fresh['id']} has waited only six days, so it "
                "stays pending."),
    )


def customers_open_tickets(store) -> Setup:
    c = cast(store)
    who = c.lister
    mine = sorted(c.lister_open, key=lambda t: t["id"])
    return Setup(
        instruction=f"{who['name']} wants to know which of their requests are still open. Give me their unsolved "
                    "ticket numbers and subjects.",
        checks=[C.OutputContains(id=f"lists-{t['id']}", label=f"The answer lists #{t['id']}", value=f"#{t['id']}")
                for t in mine]
        + [C.NoWrites(id="no-writes", label="Nothing was changed"), C.no_collateral()],
        solution=[("zendesk.search", {"query": f"type:user \"{who['name']}\""}),
                  ("zendesk.users.tickets.requested", {"user_id": who["id"]})],
        output=f"{who['name']} has {len(mine)} unsolved tickets: "
        + "; ".join(f"#{t['id']} \"{t['subject']}\" ({t['status']})" for t in mine) + ".",
    )


def link_incidents(store) -> Setup:
    c = cast(store)
    p = c.problem
    checks = [C.RecordExists(id=f"linked-{t['id']}", label=f"#{t['id']} is an incident of #{p['id']}",
                             collection="tickets", where={"id": t["id"], "problem_id": p["id"], "type": "incident"})
              for t in c.incidents]
    checks.append(field_is("old-unlinked", f"The solved #{c.old_incident['id']} from last month is not linked",
                         c.old_incident, "problem_id", None, always=True))
    checks.append(field_is("discount-unlinked", f"#{c.discount['id']}, a discount code problem, is not linked",
                         c.discount, "problem_id", None, always=True))
    checks.append(C.no_collateral(*[C.Allow(collection="tickets", ops=["updated"], where={"id": t["id"]})
                                    for t in c.incidents + [p]], AUDITS))
    return Setup(
        instruction=f"The checkout outage is tracked in problem ticket #{p['id']}. Link every unsolved ticket "
                    "reporting the checkout error 502 to it as an incident.",
        checks=checks,
        solution=[show(p), ("zendesk.search", {"query": "type:ticket status<solved \"error 502\""})]
        + [update(t, type="incident", problem_id=p["id"]) for t in c.incidents],
        output=("I linked " + ", ".join(f"#{t['id']}" for t in c.incidents) + f" to problem #{p['id']} as incidents. "
                f"The solved #{c.old_incident['id']} is from an earlier outage and #{c.discount['id']} is about a "
                "discount code, so I left them alone."),
    )
