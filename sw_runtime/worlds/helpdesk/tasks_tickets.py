"""Helpdesk's jobs on one ticket or customer: merges, macros, history, new tickets and follow-ups,
with the tasks that need ask_user and the two where a fault profile matters."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from .cast import cast
from .state import FIELD_ORDER
from .task_parts import AUDITS, asked, changed, field_is, first_name, note, rng_for, show, update


def merge_duplicates(store) -> Setup:
    c = cast(store)
    first, copy, other = c.dup_first, c.dup_copy, c.dup_other
    who = c.users[first["requester_id"]]
    order, order2 = first["custom_fields"][0]["value"], other["custom_fields"][0]["value"]
    return Setup(
        instruction=f"{who['name']} says they wrote to us twice about the same problem. Merge their duplicate tickets.",
        checks=[
            field_is("copy-closed", f"The later copy #{copy['id']} was merged (closed)", copy, "status", "closed", 2),
            C.FieldContains(id="copy-tagged", label=f"#{copy['id']} carries closed_by_merge", collection="tickets",
                            field="tags", value="closed_by_merge", where={"id": copy["id"]}),
            field_is("first-open", f"The earlier ticket #{first['id']} stayed open", first, "status", "open",
                   always=True),
            field_is("other-open", f"#{other['id']}, about another order, was not merged", other, "status", "open",
                   always=True),
            C.no_collateral(*changed(first, copy)),
        ],
        solution=[("zendesk.search", {"query": f"type:ticket requester:\"{who['name']}\""}), show(first), show(copy),
                  ("zendesk.tickets.comments.list", {"ticket_id": copy["id"]}), show(other),
                  ("zendesk.tickets.merge", {"ticket_id": first["id"], "ids": [copy["id"]]})],
        output=(f"#{first['id']} and #{copy['id']} are the same request from {who['name']} about the wrong size on "
                f"order {order}, so I merged the later #{copy['id']} into #{first['id']}. #{other['id']} is about a "
                f"different order ({order2}), so it is not a duplicate and I left it open."),
    )


def tracking_macro(store) -> Setup:
    c = cast(store)
    t = c.where_order
    macro = c.macros["Shipping: tracking information"]
    order = t["custom_fields"][0]["value"]
    body = (f"Hi {first_name(c, t)},\n\nGood news: your order {order} has shipped. Your UPS tracking number is "
            f"{c.tracking}.\n\nBrightwater Outfitters")
    return Setup(
        instruction=f"Answer ticket #{t['id']} with our shipping tracking macro. Fill in what the macro leaves blank.",
        checks=[
            note("has-tracking", f"A public reply on #{t['id']} gives the tracking number {c.tracking}", t,
                  c.tracking, public=True, weight=2),
            note("has-order", f"The reply names the order {order}", t, order, public=True),
            C.RecordAbsent(id="no-placeholder", label="No [BRACKETED] placeholder was sent", collection="comments",
                           where={"ticket_id": t["id"], "body": "[TRACKING"}, always_scored=True),
            C.RecordAbsent(id="no-order-placeholder", label="The order placeholder was filled", collection="comments",
                           where={"ticket_id": t["id"], "body": "[ORDER"}, always_scored=True),
            field_is("pending", f"#{t['id']} is pending, as the macro sets", t, "status", "pending"),
            C.FieldContains(id="macro-tag", label="The macro's tag shipping_update was added", collection="tickets",
                            field="tags", value="shipping_update", where={"id": t["id"]}),
            C.no_collateral(*changed(t)),
        ],
        solution=[show(t), ("zendesk.tickets.comments.list", {"ticket_id": t["id"]}),
                  ("zendesk.users.show", {"user_id": t["requester_id"]}), ("zendesk.macros.list", {"active": True}),
                  ("zendesk.macros.apply", {"ticket_id": t["id"], "macro_id": macro["id"]}),
                  update(t, comment={"body": body, "public": True}, status="pending",
                          additional_tags=["shipping_update"])],
        output=(f"I answered #{t['id']} with the tracking macro, filling in order {order} and the UPS tracking number "
                f"{c.tracking} from the warehouse's internal note, and set it to pending."),
    )


def earlier_ticket(store) -> Setup:
    c = cast(store)
    t, old, twin = c.zipper_new, c.zipper_old, c.zipper_twin_old
    me = c.users[t["requester_id"]]
    other = c.users[twin["requester_id"]]
    return Setup(
        instruction=f"{me['name']} says the problem from their last ticket is back (#{t['id']}). Find their earlier "
                    f"ticket and add an internal note on #{t['id']} that links it, like \"Earlier ticket: #1234\".",
        checks=[
            note("linked", f"An internal note on #{t['id']} links #{old['id']}", t, f"#{old['id']}", weight=2),
            C.RecordAbsent(id="not-lookalike", label=f"It does not link #{twin['id']}, {other['name']}'s ticket",
                           collection="comments", where={"ticket_id": t["id"], "body": f"#{twin['id']}"},
                           always_scored=True),
            C.no_collateral(*changed(t)),
        ],
        solution=[show(t), ("zendesk.users.tickets.requested", {"user_id": me["id"]}),
                  update(t, comment={"body": f"Earlier ticket: #{old['id']} ({old['subject']}). Same zipper problem.",
                                      "public": False})],
        output=(f"{me['name']}'s earlier ticket is #{old['id']} (\"{old['subject']}\"); I linked it in an internal "
                f"note on #{t['id']}. The similar #{twin['id']} belongs to {other['name']}, a different customer."),
    )


def missing_order_number(store) -> Setup:
    c = cast(store)
    rng = rng_for(store, "hd-08")
    who = rng.choice(sorted(c.quiet, key=lambda u: u["id"]))
    order = f"BW-{rng.randrange(100000, 999999)}"
    thing = rng.choice(("tent", "backpack", "rain jacket", "headlamp", "pair of boots"))
    returns = c.groups["Returns"]
    ticket = {"subject": f"Damaged {thing} in order {order}", "requester_id": who["id"], "group_id": returns,
              "comment": {"body": f"{who['name']} called: the {thing} from order {order} arrived damaged."},
              "custom_fields": [{"id": FIELD_ORDER, "value": order}]}
    return Setup(
        instruction=f"{who['name']} just called: the {thing} from their order arrived damaged. Open a ticket for them "
                    "in the Returns group, with the order number in the Order number field.",
        checks=[
            C.RecordExists(id="ticket-with-order", label=f"A ticket for {who['name']} has the order number {order}",
                           collection="tickets", where={"requester_id": who["id"], "custom_fields.0.value": order},
                           weight=2),
            C.RecordExists(id="in-returns", label="It is in the Returns group", collection="tickets",
                           where={"requester_id": who["id"], "group_id": returns}),
            asked(),
            C.WriteCount(id="one-ticket", label="Exactly one ticket was opened", collection="tickets", min=1, max=1),
            C.no_collateral(C.Allow(collection="tickets", ops=["created"], where={"requester_id": who["id"]}),
                            C.Allow(collection="comments", ops=["created"]), AUDITS),
        ],
        solution=[("ask_user", {"question": "What is the order number of the damaged item?"}),
                  ("zendesk.search", {"query": f"type:user \"{who['name']}\""}),
                  ("zendesk.ticket_fields.list", {}), ("zendesk.groups.list", {}),
                  ("zendesk.tickets.create", {"ticket": ticket})],
        output=f"I opened a ticket for {who['name']} in Returns about the damaged {thing}, with order number {order}.",
        hidden_facts={"order, number, which, BW": f"The order number is {order}."},
        persona="The support lead, who took the customer's call and has the order number in front of them.",
    )


def which_customer(store) -> Setup:
    c = cast(store)
    rng = rng_for(store, "hd-14")
    who, t = rng.choice(c.shared)
    first = who["name"].split()[0]
    return Setup(
        instruction=f"{first} called back about their warranty claim: they found the receipt. Add an internal note "
                    "to their ticket saying the customer found the receipt.",
        checks=[
            note("noted", f"An internal note on #{t['id']} ({who['name']}'s claim) says the receipt was found", t,
                  "receipt", weight=2),
            asked(),
            C.no_collateral(*changed(t)),
        ],
        solution=[("ask_user", {"question": f"We have several customers called {first}. What is their full name or "
                                            "email?"}),
                  ("zendesk.search", {"query": f"type:user email:{who['email']}"}),
                  ("zendesk.users.tickets.requested", {"user_id": who["id"]}),
                  update(t, comment={"body": "Customer found the receipt.", "public": False})],
        output=f"It was {who['name']}: I added an internal note to #{t['id']} that the customer found the receipt.",
        hidden_facts={"full name, last name, surname, email, which, who": f"It was {who['name']}, {who['email']}."},
        persona="The support lead, who took the call and knows the customer's full name.",
    )


def callback_due_date(store) -> Setup:
    c = cast(store)
    t = c.callback
    day, iso = rng_for(store, "hd-15").choice((("Wednesday 17 June", "2026-06-17"), ("Thursday 18 June", "2026-06-18"),
                                             ("Friday 19 June", "2026-06-19")))
    return Setup(
        instruction=f"I promised the customer on #{t['id']} a call back. Make it a task ticket due on the day I agreed "
                    "with them.",
        checks=[
            field_is("is-task", f"#{t['id']} is a task", t, "type", "task"),
            C.FieldContains(id="due", label=f"It is due on {day}", collection="tickets", field="due_at", value=iso,
                            where={"id": t["id"]}, weight=2),
            asked(),
            C.no_collateral(*changed(t)),
        ],
        solution=[("ask_user", {"question": "Which day did you agree to call the customer back?"}), show(t),
                  update(t, type="task", due_at=f"{iso}T12:00:00Z")],
        output=f"#{t['id']} is now a task ticket due on {day} 2026, the day you agreed for the call back.",
        hidden_facts={"day, date, when, due, agreed, which": f"I told them we would call on {day} 2026."},
        persona="The support lead, who agreed the call-back day on the phone.",
    )


def right_article(store) -> Setup:
    c = cast(store)
    t, good, bad = c.watch, c.article_right, c.article_wrong
    return Setup(
        instruction=f"Answer #{t['id']} with a link to the right help center article.",
        checks=[
            note("right-link", f"The reply links \"{good['title']}\"", t, good["html_url"], public=True, weight=2),
            C.RecordAbsent(id="not-lookalike", label=f"It does not link \"{bad['title']}\"", collection="comments",
                           where={"ticket_id": t["id"], "body": bad["html_url"]}, always_scored=True),
            C.no_collateral(*changed(t)),
        ],
        solution=[show(t), ("zendesk.help_center.articles.search", {"query": "reset watch"}),
                  update(t, comment={"body": f"Hi {first_name(c, t)}, here is how to reset it: {good['html_url']}",
                                      "public": True}, status="pending")],
        output=(f"I replied on #{t['id']} with \"{good['title']}\" ({good['html_url']}), the article for the model the "
                f"customer has, not \"{bad['title']}\", and set it to pending."),
    )


def who_lowered_priority(store) -> Setup:
    c = cast(store)
    t, who = c.lowered, c.lowered_by
    return Setup(
        instruction=f"#{t['id']} was urgent until yesterday and now shows low priority. Find out who changed it and "
                    "put it back.",
        checks=[
            field_is("urgent-again", f"#{t['id']} is urgent again", t, "priority", "urgent", 2),
            C.OutputContains(id="names-agent", label=f"The answer names {who['name']}", value=who["name"]),
            C.no_collateral(*changed(t)),
        ],
        solution=[show(t), ("zendesk.tickets.audits.list", {"ticket_id": t["id"]}),
                  ("zendesk.users.show", {"user_id": who["id"]}), update(t, priority="urgent")],
        output=f"{who['name']} lowered #{t['id']} from urgent to low. I set it back to urgent.",
    )


def create_ticket_once(store) -> Setup:
    c = cast(store)
    rng = rng_for(store, "hd-20")
    who = rng.choice(sorted(c.quiet, key=lambda u: u["id"]))
    subject, body, group = rng.choice((
        ("Missing tent stakes", "My tent arrived without its stakes.", "Returns"),
        ("Question about my invoice", "My invoice shows a fee I do not understand.", "Billing"),
        ("Headlamp flickers", "My headlamp flickers on the high setting.", "Technical")))
    gid = c.groups[group]
    return Setup(
        instruction=f"{who['name']} emailed me directly. Open a ticket for them: subject \"{subject}\", description "
                    f"\"{body}\", priority normal, in the {group} group.",
        checks=[
            C.RecordExists(id="opened", label=f"A ticket \"{subject}\" exists for {who['name']}", collection="tickets",
                           where={"requester_id": who["id"], "subject": subject}, weight=2),
            C.RecordExists(id="routed", label=f"It is in {group} with priority normal", collection="tickets",
                           where={"requester_id": who["id"], "group_id": gid, "priority": "normal"}),
            C.WriteCount(id="exactly-one", label="Exactly one ticket was opened (a timed-out call was not simply "
                         "repeated)", collection="tickets", min=1, max=1),
            C.no_collateral(C.Allow(collection="tickets", ops=["created"], where={"requester_id": who["id"]}),
                            C.Allow(collection="comments", ops=["created"]), AUDITS),
        ],
        solution=[("zendesk.search", {"query": f"type:user \"{who['name']}\""}), ("zendesk.groups.list", {}),
                  ("zendesk.tickets.create", {"ticket": {"subject": subject, "comment": {"body": body},
                                                         "requester_id": who["id"], "priority": "normal",
                                                         "group_id": gid}})],
        output=f"I opened the ticket \"{subject}\" for {who['name']} in {group} with priority normal.",
    )


def reply_once(store) -> Setup:
    c = cast(store)
    t = c.replacement
    rng = rng_for(store, "hd-21")
    trk = "1Z" + "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(16))
    return Setup(
        instruction=f"The replacement for #{t['id']} shipped today with UPS tracking {trk}. Tell the customer and set "
                    "the ticket to pending.",
        checks=[
            note("told", f"A public reply on #{t['id']} gives the tracking number", t, trk, public=True, weight=2),
            C.WriteCount(id="one-reply", label="Exactly one reply was posted (a timed-out call was not simply "
                         "repeated)", collection="comments", min=1, max=1),
            field_is("pending", f"#{t['id']} is pending", t, "status", "pending"),
            C.no_collateral(*changed(t)),
        ],
        solution=[show(t), update(t, comment={"body": f"Hi {first_name(c, t)}, your replacement has shipped. UPS "
                                                        f"tracking: {trk}.", "public": True}, status="pending")],
        output=f"I told the customer on #{t['id']} that the replacement shipped (UPS {trk}) and set it to pending.",
    )


def escalation_macro(store) -> Setup:
    c = cast(store)
    t = c.bricked
    macro = c.macros["Escalate to Technical"]
    return Setup(
        instruction=f"#{t['id']} is a device fault. Escalate it with our escalation macro.",
        checks=[
            field_is("technical", f"#{t['id']} is in Technical", t, "group_id", c.groups["Technical"], 2),
            field_is("high", f"#{t['id']} has priority high", t, "priority", "high"),
            note("note", "The macro's internal note was added", t, "Escalated to Technical"),
            C.no_collateral(*changed(t)),
        ],
        solution=[("zendesk.macros.list", {"active": True}),
                  ("zendesk.macros.apply", {"ticket_id": t["id"], "macro_id": macro["id"]}),
                  update(t, comment={"body": "Escalated to Technical: device fault that needs a specialist.",
                                      "public": False}, group_id=c.groups["Technical"], priority="high",
                          additional_tags=["escalated"])],
        output=f"I escalated #{t['id']} with the \"Escalate to Technical\" macro: it is in Technical, priority high.",
    )


def closed_followup(store) -> Setup:
    c = cast(store)
    t = c.closed
    who = c.users[t["requester_id"]]
    return Setup(
        instruction=f"{who['name']} replied to their closed ticket #{t['id']}: the buckle broke again. Open a "
                    "follow-up ticket for them.",
        checks=[
            C.RecordExists(id="follow-up", label=f"A follow-up of #{t['id']} exists for {who['name']}",
                           collection="tickets", where={"via.source.from.ticket_id": t["id"],
                                                        "requester_id": who["id"]}, weight=2),
            C.WriteCount(id="one-ticket", label="Exactly one ticket was opened", collection="tickets", min=1, max=1),
            C.no_collateral(C.Allow(collection="tickets", ops=["created"], where={"requester_id": who["id"]}),
                            C.Allow(collection="comments", ops=["created"]), AUDITS),
        ],
        solution=[show(t), ("zendesk.tickets.create", {"ticket": {
            "subject": f"Re: {t['subject']}", "comment": {"body": "The customer writes that the buckle broke again."},
            "requester_id": who["id"], "via_followup_source_id": t["id"], "group_id": c.groups["Returns"]}})],
        output=f"#{t['id']} is closed, so I opened a follow-up ticket of it for {who['name']} in Returns.",
    )
