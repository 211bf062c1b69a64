"""Planted for helpdesk's queue-wide tasks: the new tickets to triage, an SLA breach, a departed
agent's tickets, a recalled stove, VIP tickets in Support, bad ratings, stale pending tickets, a customer
with several open tickets and an outage's reports."""

from __future__ import annotations

from .content import BACKGROUND, STOVES
from .plant_parts import DAY, TRIAGE, agent_reply, lookalike_pair, product, vip_member


def triage(b) -> None:
    """hd-01: five new tickets, unrouted; one from a VIP organisation."""
    rng = b.rng
    topics = ["Billing", "Returns", "Technical", rng.choice(("Billing", "Returns")), rng.choice(sorted(TRIAGE))]
    for k, topic in enumerate(topics):
        template = rng.choice(TRIAGE[topic])
        line = "electronics" if topic == "Technical" else None
        _, p = product(b, line)
        o = b.order_number()
        subject = template.format(o=o, p=p)
        who = vip_member(b, rng.randrange(3)) if k == 4 else b.customer()
        b.ticket(who, subject, f"{subject}. Order {o}. Please help.", status="new", minutes_ago=5 + 17 * k,
                 order=o, via="web")


def sla_breach(b) -> None:
    """hd-04: two high-priority tickets without a first reply; only one is past its target."""
    rng = b.rng
    for ago, text in ((rng.randrange(300, 420), "arrived with a torn seam"), (rng.randrange(60, 150),
                                                                              "is missing its stuff sack")):
        _, p = product(b, "tents")
        b.ticket(b.customer(), f"My {p} {text}", f"My new {p} {text}. What can you do?", status="open",
                 minutes_ago=ago, group="Support", assignee=b.agents["Support"][0], priority="high")


def departed_agent(b) -> None:
    """hd-07: the agent who left still holds four unsolved tickets (and two solved ones)."""
    rng = b.rng
    gone = b.departed
    for status in ("open", "pending", "hold", "open", "solved", "closed"):
        who = rng.choice(b.background)
        _, p = product(b)
        ago = rng.randrange(6 * DAY, 14 * DAY) if status not in ("closed",) else rng.randrange(32 * DAY, 50 * DAY)
        last = rng.randrange(int(3.2 * DAY), int(3.9 * DAY)) if status == "pending" else ago - 120
        b.ticket(who, f"Exchange my {p}", f"I would like to exchange the {p} for another model.", status=status,
                 minutes_ago=ago, group="Returns", assignee=gone, priority="normal",
                 comments=[(gone, "Thanks, I have started the exchange.", True, last)])


def bulk_recall(b) -> None:
    """hd-09: four unsolved tickets mention the recalled stove, one solved one did before."""
    rng = b.rng
    stove = rng.choice(STOVES)
    texts = ("{s} stove leaking fuel", "Fuel smell from my {s} stove", "{s} stove valve sticks",
             "Is the {s} stove safe to use?")
    for text, status in zip(texts, ("open", "pending", "open", "hold")):
        ago = rng.randrange(2 * DAY, 6 * DAY)
        agent, reply = agent_reply(b, "Technical", rng.randrange(200, 2 * DAY))
        subject = text.format(s=stove)
        b.ticket(rng.choice(b.background), subject, f"{subject}. I bought it in May.", status=status,
                 minutes_ago=ago, group="Technical", assignee=agent, comments=[reply])
    old = rng.randrange(20 * DAY, 25 * DAY)
    agent, reply = agent_reply(b, "Technical", old - 300)
    b.ticket(rng.choice(b.background), f"{stove} stove igniter clicks", f"The igniter on my {stove} stove clicks "
             "but does not light.", status="solved", minutes_ago=old, group="Technical", assignee=agent,
             comments=[reply])


def vip_routing(b) -> None:
    """hd-10: two VIP customers' tickets sit in Support; a look-alike organisation's ticket too."""
    rng = b.rng
    lookalike = b.orgs[-1]
    people = [vip_member(b, 0), vip_member(b, rng.choice((1, 2))), rng.choice(b.members[lookalike["key"]])]
    for who in people:
        _, p = product(b)
        ago = rng.randrange(DAY, 3 * DAY)
        agent, reply = agent_reply(b, "Support", ago - 60)
        b.ticket(who, f"Bulk order of {p}s for our team", f"We need 12 of the {p} for our staff. Can you quote?",
                 status="open", minutes_ago=ago, group="Support", assignee=agent, priority="normal",
                 comments=[reply])


def bad_csat(b) -> None:
    """hd-18: three bad ratings this week, one older."""
    rng = b.rng
    for rated, remark in ((rng.randrange(DAY, 6 * DAY), "Took far too long."),
                          (rng.randrange(DAY, 6 * DAY), "Nobody answered my actual question."),
                          (rng.randrange(DAY, 6 * DAY), "Still broken."),
                          (rng.randrange(11 * DAY, 14 * DAY), "Slow reply.")):
        group = rng.choice(("Support", "Returns"))
        subject, text = rng.choice((("Package left at the wrong door", "UPS left my {p} at the neighbours'."),
                                    ("Scratched on arrival", "My {p} arrived scratched."),
                                    ("Loose stitching", "The stitching on my {p} is coming apart.")))
        _, p = product(b)
        ago = rated + rng.randrange(DAY, 3 * DAY)
        agent, reply = agent_reply(b, group, ago - 100)
        spec = b.ticket(rng.choice(b.background), subject, text.format(p=p), status="solved", minutes_ago=ago,
                        group=group, assignee=agent, priority="normal",
                        comments=[reply, (agent, "Marking this solved.", True, rated + 60)])
        b.ratings.append((spec, "bad", remark, rated))


def stale_pending(b) -> None:
    """hd-19: three pending tickets unanswered for over 7 days, and one for 6."""
    rng = b.rng
    for waited in (rng.randrange(8 * DAY, 10 * DAY), rng.randrange(10 * DAY, 12 * DAY),
                   rng.randrange(12 * DAY, 14 * DAY), rng.randrange(int(5.5 * DAY), int(6.5 * DAY))):
        _, p = product(b)
        ago = waited + rng.randrange(DAY, 3 * DAY)
        agent, reply = agent_reply(b, "Support", ago - 60)
        b.ticket(rng.choice(b.background), f"Question about the {p}", f"Does the {p} come with a carry bag?",
                 status="pending", minutes_ago=ago, group="Support", assignee=agent, priority="normal",
                 comments=[reply, (agent, "Which colour did you order? Then I can check.", True, waited)])


def customer_tickets(b) -> None:
    """hd-22: a customer with three unsolved tickets and two solved, and a look-alike with two unsolved."""
    rng = b.rng
    me, twin = lookalike_pair(b)
    for who, statuses in ((me, ("open", "pending", "hold", "solved", "solved")), (twin, ("open", "pending"))):
        for status in statuses:
            group = rng.choice(("Support", "Billing", "Returns"))
            subject, text = rng.choice(BACKGROUND[group])
            _, p = product(b)
            ago = rng.randrange(4 * DAY, 9 * DAY)
            agent, reply = agent_reply(b, group, rng.randrange(DAY, int(2.5 * DAY)))
            b.ticket(who, subject, text.format(p=p), status=status, minutes_ago=ago, group=group, assignee=agent,
                     comments=[reply])


def checkout_outage(b) -> None:
    """hd-23: a problem ticket, four unsolved reports of its error, an old solved one and a look-alike."""
    rng = b.rng
    tech = b.agents["Technical"][0]
    ago = rng.randrange(400, 600)
    problem = b.ticket(tech, "Checkout fails with error 502",
                       "Since this morning customers get error 502 at checkout: the payment provider times out.",
                       status="open", minutes_ago=ago, group="Technical", assignee=tech, type="problem",
                       priority="high", via="web",
                       comments=[(b.agents["Technical"][1], "We are working with the payment provider.", True,
                                  ago - 30)])
    b.outage = problem
    for subject in ("Error 502 when paying", "Can't check out, error 502", "Checkout error 502 again",
                    "Website shows error 502 at checkout"):
        b.ticket(b.customer(), subject, f"{subject}. I tried three times.", status="open",
                 minutes_ago=rng.randrange(30, ago - 40), group="Support", via="web")
    old = rng.randrange(30 * DAY, 40 * DAY)
    agent, reply = agent_reply(b, "Technical", old - 200)
    b.ticket(b.customer(), "Error 502 at checkout last night", "I got error 502 when paying last night.",
             status="solved", minutes_ago=old, group="Technical", assignee=agent, comments=[reply])
    b.ticket(b.customer(), "Discount code rejected at checkout", "My SUMMER10 code is rejected at checkout.",
             status="open", minutes_ago=rng.randrange(60, 300), group="Support", via="web")
