"""Codehost + offsite planning + receivables: the three worlds in one episode
(xa-19, xa-20).

Engineering's state (acme/api), the ledger (receivables, with the AR team's
own Slack) and the office (Nordlys's Slack and calendar), read and written in
one episode: a weekly status for the leaders, and a key account blocked by a
bug, told to every team that needs to know.
"""

from __future__ import annotations

from ...verify import checks as C
from ..codehost.state import API
from ..codehost.tasks import R, _failing_test
from ..codehost.tasks import cast as code_cast
from ..offsite_planning import clock
from ..offsite_planning.office import ANDERS, ASSISTANT, ENGINEERING, ERIK, LEADERSHIP
from ..receivables.cast import cast as ar_cast
from ..receivables.state import days_overdue, dollars
from ..task import Setup, Task
from .common import AR, CH, FAULT, FAULT_POLICY, OP, q, rng

WORLDS = (CH, OP, AR)

ISSUES, SLACK, EVENTS = q(CH, "issues"), q(OP, "slack_messages"), q(OP, "events")
AR_SLACK = q(AR, "slack_messages")


def _mine(channel) -> dict:
    return {"channelId": channel.id, "user": ASSISTANT.uid}


def weekly_status(store) -> Setup:
    code, ledger = store.part(CH), store.part(AR)
    c = code_cast(code)
    test = _failing_test(c, c.main[-1]["sha"])
    bugs = sorted(i["number"] for _, i in code.scan("issues")
                  if i["repo"] == API and i["state"] == "open" and "bug" in i["labels"])
    open_prs = sorted(p["number"] for _, p in code.scan("pulls") if p["repo"] == API and p["state"] == "open")
    overdue = [inv for _, inv in ledger.scan("invoices") if inv["status"] == "overdue"]
    owed = sum(inv["total"] - inv["amount_paid"] for inv in overdue)
    worst = max(overdue, key=lambda inv: (days_overdue(inv), inv["number"]))
    stale = owed + rng(store, "xa-19").randrange(50_00, 900_00)  # last week's figure: payments came in since
    s = clock.local("2026-10-30", 10)
    e = s + 1800
    where = {"summary": "Weekly review"}
    text = (f"Weekly status. Engineering: main in acme/api is red ({test} fails); open bugs "
            f"{', '.join(f'#{b}' for b in bugs)}; open PRs {', '.join(f'#{p}' for p in open_prs)}. "
            f"Receivables: {len(overdue)} overdue invoices, {dollars(owed)} overdue in total; the oldest is "
            f"{worst['number']} ({days_overdue(worst)} days).")
    return Setup(
        instruction=("Post this week's status for the leaders in #leadership: whether acme/api's main is green (name "
                     "the failing test if not), the open bug issues and open pull requests by number, and from "
                     "receivables the total overdue balance and the oldest overdue invoice. Then book a 30-minute "
                     "`Weekly review` with Anders and Erik on Friday 30 October at 10:00. Last week's report said "
                     f"{dollars(stale)} was overdue; use today's figures."),
        checks=[
            C.RecordExists(id="test", label=f"The status names {test}", collection=SLACK,
                           where={**_mine(LEADERSHIP), "text": test}),
            *[C.RecordExists(id=f"bug-{b}", label=f"The status lists bug #{b}", collection=SLACK,
                             where={**_mine(LEADERSHIP), "text": f"#{b}"}) for b in bugs],
            C.RecordExists(id="owed", label=f"The status gives {dollars(owed)} overdue", collection=SLACK,
                           where={**_mine(LEADERSHIP), "text": dollars(owed)}, weight=2),
            C.RecordAbsent(id="not-stale", label=f"Last week's {dollars(stale)} was not reported as today's",
                           collection=SLACK, where={**_mine(LEADERSHIP), "text": dollars(stale)}, always_scored=True),
            C.RecordExists(id="oldest", label=f"The status names {worst['number']}", collection=SLACK,
                           where={**_mine(LEADERSHIP), "text": worst["number"]}),
            C.FieldEquals(id="review-booked", label="The Weekly review starts Friday 30 October at 10:00",
                          collection=EVENTS, field="start.dateTime", value=clock.oslo(s), where=where),
            *[C.FieldContains(id=f"invited-{p.first.lower()}", label=f"{p.first} is invited", collection=EVENTS,
                              field="attendees", value={"email": p.email, "responseStatus": "needsAction"},
                              where=where) for p in (ANDERS, ERIK)],
            C.no_collateral(C.Allow(collection=SLACK, ops=["created"], where=_mine(LEADERSHIP)),
                            C.Allow(collection=EVENTS, ops=["created"], where=where)),
        ],
        solution=[("checks.listForRef", {**R, "ref": "main"}),
                  ("issues.listForRepo", {**R, "state": "open", "labels": "bug"}),
                  ("pulls.list", {**R, "state": "open"}),
                  ("read_entity", {"entity_type": "invoice", "status": "overdue"}),
                  ("slack.chat.postMessage", {"channel": LEADERSHIP.id, "text": text}),
                  ("calendar.events.insert", {"calendarId": "primary", "summary": "Weekly review",
                                              "start": {"dateTime": clock.oslo(s), "timeZone": clock.TZ},
                                              "end": {"dateTime": clock.oslo(e), "timeZone": clock.TZ},
                                              "attendees": [{"email": ANDERS.email}, {"email": ERIK.email}]})],
        output=f"Posted the weekly status in #leadership ({dollars(owed)} overdue, main red on {test}) and booked "
               "the Weekly review with Anders and Erik on Friday 30 October, 10:00-10:30.",
    )


def key_account_blocked(store) -> Setup:
    code, c = code_cast(store.part(CH)), ar_cast(store.part(AR))
    bug = code.new_bug
    n = bug["number"]
    inv = c.final
    cust = c.customer(inv)
    am = cust["account_manager"]
    days = days_overdue(inv)
    esc = c.channels["ar-escalations"]
    return Setup(
        instruction=(f"Our key account {cust['name']} can't pay {inv['number']} because of `{bug['title']}` (#{n} in "
                     f"acme/api). Escalate the invoice in #ar-escalations the way our AR policy says, label #{n} "
                     "`bug`, and tell #engineering on the office Slack that a key account is blocked on it. Every "
                     "tool has been timing out today."),
        checks=[
            C.RecordExists(id="escalated", label=f"#ar-escalations got {inv['number']}, {days} days, <@{am}>",
                           collection=AR_SLACK, weight=2,
                           where={"channel": esc["id"], "text": inv["number"]}),
            C.RecordExists(id="tagged", label="The account manager was tagged", collection=AR_SLACK,
                           where={"channel": esc["id"], "text": f"<@{am}>"}),
            C.WriteCount(id="escalated-once", label="One escalation, not a retried copy", collection=AR_SLACK,
                         min=1, max=1, weight=2),
            C.FieldContains(id="labelled", label=f"#{n} is labelled bug", collection=ISSUES, field="labels",
                            value="bug", where={"repo": API, "number": n}),
            C.RecordExists(id="told-engineering", label=f"#engineering was told about #{n}", collection=SLACK,
                           where={**_mine(ENGINEERING), "text": f"#{n}"}),
            C.WriteCount(id="told-once", label="One post in #engineering, not a retried copy", collection=SLACK,
                         min=1, max=1, weight=2),
            C.no_collateral(C.Allow(collection=AR_SLACK, ops=["created"], where={"channel": esc["id"]}),
                            C.Allow(collection=ISSUES, ops=["updated"], where={"repo": API, "number": n}),
                            C.Allow(collection=SLACK, ops=["created"], where=_mine(ENGINEERING))),
        ],
        solution=[("read_entity", {"entity_type": "invoice", "query": inv["number"]}),
                  ("read_entity", {"entity_type": "customer", "uid": cust["id"]}),
                  ("list_slack_channels", {}),
                  ("send_slack_message", {"channel": esc["id"],
                                          "text": f"Escalation: {inv['number']} from {cust['name']} is {days} days "
                                                  f"overdue, blocked by a bug in acme/api. <@{am}> please follow up."}),
                  ("issues.addLabels", {**R, "issue_number": n, "labels": ["bug"]}),
                  ("slack.chat.postMessage", {"channel": ENGINEERING.id,
                                              "text": f"A key account can't pay an overdue invoice until #{n} "
                                                      f"({bug['title']}) is fixed: please prioritise it."})],
        output=(f"Escalated {inv['number']} ({days} days overdue) in #ar-escalations tagging the account manager, "
                f"labelled #{n} bug and told #engineering, once each."),
    )


TASKS = [
    Task("xa-19", "The leaders' weekly status from three apps", weekly_status, step_budget=12,
         policy="Status figures come from the records, not from hearsay: read each app before you post.",
         tags=("long", "trap", "stale", "codehost", "receivables", "slack", "calendar")),
    Task("xa-20", "A key account blocked by a bug, told everywhere once", key_account_blocked, step_budget=14,
         policy=FAULT_POLICY, tags=("long", "fault", f"fault:{FAULT}", "codehost", "receivables", "slack")),
]
