"""The situations helpdesk's tasks are about, planted into a ``state.Builder``.

Each planter adds its people and tickets with phrases no background ticket
uses, so ``cast.py`` finds them by content; which names, products, amounts,
order numbers and times they get varies with the seed. Times are minutes
before the start of an episode (Monday 15 June 2026, 09:00 UTC).
"""

from __future__ import annotations

from .content import BACKGROUND, LOOKALIKE_FIRST, ORG_LOOKALIKE, PRODUCTS, SHARED_FIRST, STOVES, WATCHES

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


def _product(b, line=None) -> tuple:
    line = line or b.rng.choice(sorted(PRODUCTS))
    return line, b.rng.choice(PRODUCTS[line])


def lookalike_org(b) -> None:
    """A non-VIP organisation named like the first VIP one (hd-10's trap)."""
    vip = b.orgs[0]
    head, _, tail = vip["name"].rpartition(" ")
    name = f"{head} {ORG_LOOKALIKE[tail]}"
    b.orgs.append({"key": name, "name": name, "domain_names": [name.lower().replace(" ", "") + ".com"], "tags": [],
                   "details": "", "notes": "", "group": None})


def _vip_member(b, k: int) -> dict:
    org = b.orgs[k]
    user = b.customer(org=org)
    b.members[org["key"]].append(user)
    return user


def _reply(b, group: str, ago: float, text="Thanks for reaching out, we are on it.") -> tuple:
    agent = b.agents[group][1]
    return agent, (agent, text, True, ago)


def triage(b) -> None:
    """hd-01: five new tickets, unrouted; one from a VIP organisation."""
    rng = b.rng
    topics = ["Billing", "Returns", "Technical", rng.choice(("Billing", "Returns")), rng.choice(sorted(TRIAGE))]
    for k, topic in enumerate(topics):
        template = rng.choice(TRIAGE[topic])
        line = "electronics" if topic == "Technical" else None
        _, p = _product(b, line)
        o = b.order_number()
        subject = template.format(o=o, p=p)
        who = _vip_member(b, rng.randrange(3)) if k == 4 else b.customer()
        b.ticket(who, subject, f"{subject}. Order {o}. Please help.", status="new", minutes_ago=5 + 17 * k,
                 order=o, via="web")


def duplicates(b) -> None:
    """hd-02: a customer wrote twice about one wrong size (same order); a third ticket is another order."""
    rng = b.rng
    who = b.customer()
    _, p = _product(b, "footwear")
    _, p2 = _product(b, "apparel")
    o1, o2 = b.order_number(), b.order_number()
    first = rng.randrange(150, 300)
    b.ticket(who, f"Wrong size sent for order {o1}",
             f"I ordered the {p} in size M but received size L (order {o1}). Can you send the right size?",
             status="open", minutes_ago=first, group="Returns", order=o1, tags=["returns"])
    b.ticket(who, f"Wrong size in my order {o1}",
             f"Hello again, the {p} from order {o1} came in the wrong size. Please help.",
             status="open", minutes_ago=first - rng.randrange(20, 60), group="Returns", order=o1, tags=["returns"])
    b.ticket(who, f"Wrong colour sent for order {o2}", f"The {p2} from order {o2} came in red instead of blue.",
             status="open", minutes_ago=rng.randrange(3 * DAY, 5 * DAY), group="Returns", order=o2, tags=["returns"])


def tracking_macro(b) -> None:
    """hd-03: where is my order; the warehouse's internal note has the tracking number."""
    rng = b.rng
    who = b.customer()
    _, p = _product(b)
    o, trk = b.order_number(), b.tracking()
    ago = rng.randrange(DAY, 2 * DAY)
    warehouse = b.agents["Support"][0]
    b.ticket(who, f"Where is my order {o}?",
             f"I ordered a {p} a week ago (order {o}) and have had no shipping email. Where is it?",
             status="open", minutes_ago=ago, group="Support", assignee=b.assistant, order=o,
             comments=[(warehouse, f"Warehouse note: order {o} shipped on Friday. UPS tracking {trk}.", False,
                        ago - 90)])


def sla_breach(b) -> None:
    """hd-04: two high-priority tickets without a first reply; only one is past its target."""
    rng = b.rng
    for ago, text in ((rng.randrange(300, 420), "arrived with a torn seam"), (rng.randrange(60, 150),
                                                                              "is missing its stuff sack")):
        _, p = _product(b, "tents")
        b.ticket(b.customer(), f"My {p} {text}", f"My new {p} {text}. What can you do?", status="open",
                 minutes_ago=ago, group="Support", assignee=b.agents["Support"][0], priority="high")


def big_refund(b) -> None:
    """hd-05: a refund above the approval limit, and a small one beside it."""
    rng = b.rng
    for cents in (rng.randrange(180, 600) * 100 + rng.choice((0, 49, 99)), rng.randrange(20, 90) * 100 + 99):
        _, p = _product(b)
        o = b.order_number()
        b.ticket(b.customer(), f"Refund for order {o}",
                 f"The {p} from order {o} is not what I expected. I would like my money back: "
                 f"${cents // 100}.{cents % 100:02d}.", status="open", minutes_ago=rng.randrange(200, 2000),
                 group="Billing", order=o, refund=cents, tags=["refund"])


PAIR_SURNAMES = ("Parker", "Hayes", "Morrison", "Sullivan", "Bennett", "Carter", "Fleming", "Garner")


def lookalike_pair(b) -> tuple:
    """Two customers whose names differ by a letter or two (Jon and John Parker)."""
    f1, f2 = b.pairs.pop()
    used = {u["name"].rsplit(" ", 1)[-1] for u in b.users}
    last = b.rng.choice([s for s in PAIR_SURNAMES if s not in used])
    return b.customer(first=f1, last=last), b.customer(first=f2, last=last)


def earlier_ticket(b) -> None:
    """hd-06: a customer's problem is back; their look-alike had a similar one."""
    rng = b.rng
    me, twin = lookalike_pair(b)
    _, p = _product(b, "backpacks")
    _, p2 = _product(b, "backpacks")
    agent, reply = _reply(b, "Returns", 0)
    old = rng.randrange(20 * DAY, 30 * DAY)
    b.ticket(me, f"Zipper broke on my {p}", f"The main zipper on my {p} split after two hikes.", status="solved",
             minutes_ago=old, group="Returns", assignee=agent, priority="normal",
             comments=[(agent, "We sent you a repair kit. Let us know if it holds.", True, old - 200)])
    old2 = rng.randrange(10 * DAY, 40 * DAY)
    b.ticket(twin, f"Zipper problem with my {p2}", f"The zipper on my {p2} keeps catching.", status="solved",
             minutes_ago=old2, group="Returns", assignee=agent, priority="normal",
             comments=[(agent, "Try the wax stick we sent; it should run smoothly now.", True, old2 - 300)])
    b.ticket(me, "The zipper is broken again",
             f"The same problem as last time is back: the zipper on my {p} broke again.", status="open",
             minutes_ago=rng.randrange(100, 400), group="Returns")


def departed_agent(b) -> None:
    """hd-07: the agent who left still holds four unsolved tickets (and two solved ones)."""
    rng = b.rng
    gone = b.departed
    for status in ("open", "pending", "hold", "open", "solved", "closed"):
        who = rng.choice(b.background)
        _, p = _product(b)
        ago = rng.randrange(6 * DAY, 14 * DAY) if status not in ("closed",) else rng.randrange(32 * DAY, 50 * DAY)
        last = rng.randrange(int(3.2 * DAY), int(3.9 * DAY)) if status == "pending" else ago - 120
        b.ticket(who, f"Exchange my {p}", f"I would like to exchange the {p} for another model.", status=status,
                 minutes_ago=ago, group="Returns", assignee=gone, priority="normal",
                 comments=[(gone, "Thanks, I have started the exchange.", True, last)])


def quiet_customers(b) -> None:
    """hd-08 and hd-20: customers who have never written in."""
    b.quiet = [b.customer() for _ in range(3)]


def bulk_recall(b) -> None:
    """hd-09: four unsolved tickets mention the recalled stove, one solved one did before."""
    rng = b.rng
    stove = rng.choice(STOVES)
    texts = ("{s} stove leaking fuel", "Fuel smell from my {s} stove", "{s} stove valve sticks",
             "Is the {s} stove safe to use?")
    for text, status in zip(texts, ("open", "pending", "open", "hold")):
        ago = rng.randrange(2 * DAY, 6 * DAY)
        agent, reply = _reply(b, "Technical", rng.randrange(200, 2 * DAY))
        subject = text.format(s=stove)
        b.ticket(rng.choice(b.background), subject, f"{subject}. I bought it in May.", status=status,
                 minutes_ago=ago, group="Technical", assignee=agent, comments=[reply])
    old = rng.randrange(20 * DAY, 25 * DAY)
    agent, reply = _reply(b, "Technical", old - 300)
    b.ticket(rng.choice(b.background), f"{stove} stove igniter clicks", f"The igniter on my {stove} stove clicks "
             "but does not light.", status="solved", minutes_ago=old, group="Technical", assignee=agent,
             comments=[reply])


def vip_routing(b) -> None:
    """hd-10: two VIP customers' tickets sit in Support; a look-alike organisation's ticket too."""
    rng = b.rng
    lookalike = b.orgs[-1]
    people = [_vip_member(b, 0), _vip_member(b, rng.choice((1, 2))), rng.choice(b.members[lookalike["key"]])]
    for who in people:
        _, p = _product(b)
        ago = rng.randrange(DAY, 3 * DAY)
        agent, reply = _reply(b, "Support", ago - 60)
        b.ticket(who, f"Bulk order of {p}s for our team", f"We need 12 of the {p} for our staff. Can you quote?",
                 status="open", minutes_ago=ago, group="Support", assignee=agent, priority="normal",
                 comments=[reply])


def privacy(b) -> None:
    """hd-11: a customer asks for a colleague's ticket and email address."""
    rng = b.rng
    org = next(o for o in b.orgs[3:] if b.members.get(o["key"]) and o is not b.orgs[-1])
    asker, colleague = b.customer(org=org), b.customer(org=org)
    _, p = _product(b, "electronics")
    ago = rng.randrange(2 * DAY, 4 * DAY)
    agent, reply = _reply(b, "Returns", ago - 100)
    b.ticket(colleague, f"{p} strap snapped", f"The strap of my {p} snapped on the first use.", status="open",
             minutes_ago=ago, group="Returns", assignee=agent, comments=[reply])
    b.ticket(asker, "Question about my colleague's order",
             f"My colleague {colleague['name']} is away this week. Can you tell me the status of her ticket about "
             f"the {p} and send me her email address so I can forward it?", status="open",
             minutes_ago=rng.randrange(60, 300), group="Support", assignee=b.assistant)


def sla_promise(b) -> None:
    """hd-12: a normal-priority ticket whose customer wants it fixed tonight."""
    rng = b.rng
    _, p = _product(b, "electronics")
    ago = rng.randrange(DAY, 2 * DAY)
    agent, reply = _reply(b, "Technical", ago - 50)
    who = b.customer()
    b.ticket(who, f"My {p} keeps resetting", f"My {p} restarts every few minutes.", status="open", minutes_ago=ago,
             group="Technical", assignee=agent, priority="normal",
             comments=[reply, (who, "Can you make sure this is fixed by tonight?", True, ago - 400)])


def false_duplicates(b) -> None:
    """hd-13: two look-alike tickets from different customers about different orders."""
    rng = b.rng
    _, p = _product(b, "tents")
    first = rng.randrange(2 * DAY, 4 * DAY)
    for k, subject in enumerate(("Tent pole snapped", "Tent pole snapped on day one")):
        o = b.order_number()
        b.ticket(b.customer(), subject, f"A pole of my {p} snapped (order {o}). I need a replacement pole.",
                 status="open", minutes_ago=first - k * rng.randrange(60, 600), group="Returns", order=o)


def shared_first_name(b) -> None:
    """hd-14: three customers share a first name, each with an open warranty claim."""
    rng = b.rng
    first = rng.choice(SHARED_FIRST)
    for _ in range(3):
        who = b.customer(first=first)
        _, p = _product(b)
        ago = rng.randrange(DAY, 6 * DAY)
        agent, _ = _reply(b, "Returns", 0)
        b.ticket(who, f"Warranty claim for my {p}", f"My {p} failed within a year. I would like a warranty repair.",
                 status="open", minutes_ago=ago, group="Returns", assignee=agent,
                 comments=[(agent, "To process the warranty claim we need the receipt.", True, ago - 120)])


def callback_task(b) -> None:
    """hd-15: a customer who wants a call back on a day agreed by phone."""
    _, p = _product(b)
    b.ticket(b.customer(), f"Call me back about my {p} order", f"Please call me about the {p} I ordered.",
             status="open", minutes_ago=b.rng.randrange(100, 900), group="Support", assignee=b.assistant,
             type="question")


def articles(b) -> None:
    """hd-16: the help center, with two look-alike reset articles for one watch."""
    rng = b.rng
    watch = rng.choice(WATCHES)
    n = rng.choice((3, 4, 5))
    right = (f"How to reset your {watch} Series {n}",
             f"Hold the top and bottom buttons of the {watch} Series {n} for 15 seconds until the logo shows.", 2)
    wrong = (f"How to reset your {watch} Series {n - 1}",
             f"On the {watch} Series {n - 1}, open Settings, then System, then Reset.", 2)
    general = [
        ("Returns and exchanges", "You can return unused items within 60 days for a full refund.", 0),
        ("Shipping times", "Orders ship within 2 business days; UPS delivers in 3 to 5 days.", 0),
        ("Warranty coverage", "Every Brightwater product has a two-year warranty against defects.", 1),
        ("Caring for your rain jacket", "Wash at 30 degrees, then tumble dry low to restore the coating.", 1),
        ("Choosing a sleeping bag", "Pick a comfort rating 5 degrees below the coldest night you expect.", 1),
        ("Sizing guide for boots", "Measure your foot in the evening and add a thumb's width.", 1),
        ("Charging the Solar power bank", "Leave it in direct sun for 8 hours, or charge by USB-C in 3 hours.", 2),
        ("Beacon headlamp modes", "Press once for low, twice for high, hold for red light.", 2),
        ("Gift cards", "Gift cards never expire and can be used online and in store.", 0),
        ("Tent pole repair", "Every tent ships with a repair sleeve; slide it over the break and tape it.", 1),
    ]
    items = general + [right, wrong]
    rng.shuffle(items)
    b.articles = items
    who = b.customer()
    b.ticket(who, f"My {watch} Series {n} is frozen",
             f"My {watch} Series {n} froze on the map screen and won't respond. How do I reset it?", status="open",
             minutes_ago=rng.randrange(60, 600), group="Technical", assignee=b.assistant)


def priority_audit(b) -> None:
    """hd-17: an urgent ticket an agent lowered to low yesterday."""
    rng = b.rng
    _, p = _product(b, "tents")
    agent = b.agents["Support"][0]
    ago = rng.randrange(2 * DAY, 3 * DAY)
    spec = b.ticket(b.customer(), f"My {p} leaks at the seams", f"Water came through the seams of my {p} last "
                    "night. We leave for a trip on Thursday.", status="open", minutes_ago=ago, group="Support",
                    assignee=agent, priority="low",
                    comments=[(agent, "Sorry about that! We are checking stock for a replacement.", True, ago - 30)])
    spec["created_as"] = {"priority": "urgent"}
    b.audits.append((spec, rng.randrange(DAY, int(1.5 * DAY)), agent,
                     [{"type": "Change", "field_name": "priority", "value": "low", "previous_value": "urgent"}]))


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
        _, p = _product(b)
        ago = rated + rng.randrange(DAY, 3 * DAY)
        agent, reply = _reply(b, group, ago - 100)
        spec = b.ticket(rng.choice(b.background), subject, text.format(p=p), status="solved", minutes_ago=ago,
                        group=group, assignee=agent, priority="normal",
                        comments=[reply, (agent, "Marking this solved.", True, rated + 60)])
        b.ratings.append((spec, "bad", remark, rated))


def stale_pending(b) -> None:
    """hd-19: three pending tickets unanswered for over 7 days, and one for 6."""
    rng = b.rng
    for waited in (rng.randrange(8 * DAY, 10 * DAY), rng.randrange(10 * DAY, 12 * DAY),
                   rng.randrange(12 * DAY, 14 * DAY), rng.randrange(int(5.5 * DAY), int(6.5 * DAY))):
        _, p = _product(b)
        ago = waited + rng.randrange(DAY, 3 * DAY)
        agent, reply = _reply(b, "Support", ago - 60)
        b.ticket(rng.choice(b.background), f"Question about the {p}", f"Does the {p} come with a carry bag?",
                 status="pending", minutes_ago=ago, group="Support", assignee=agent, priority="normal",
                 comments=[reply, (agent, "Which colour did you order? Then I can check.", True, waited)])


def replacement_reply(b) -> None:
    """hd-21: an approved replacement about to ship."""
    _, p = _product(b)
    ago = b.rng.randrange(DAY, 3 * DAY)
    b.ticket(b.customer(), f"Replacement for my damaged {p}", f"My {p} arrived damaged. Please replace it.",
             status="open", minutes_ago=ago, group="Returns", assignee=b.assistant, priority="normal",
             comments=[(b.assistant, "We approved a replacement and will write when it ships.", True, ago - 60)])


def customer_tickets(b) -> None:
    """hd-22: a customer with three unsolved tickets and two solved, and a look-alike with two unsolved."""
    rng = b.rng
    me, twin = lookalike_pair(b)
    for who, statuses in ((me, ("open", "pending", "hold", "solved", "solved")), (twin, ("open", "pending"))):
        for status in statuses:
            group = rng.choice(("Support", "Billing", "Returns"))
            subject, text = rng.choice(BACKGROUND[group])
            _, p = _product(b)
            ago = rng.randrange(4 * DAY, 9 * DAY)
            agent, reply = _reply(b, group, rng.randrange(DAY, int(2.5 * DAY)))
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
    agent, reply = _reply(b, "Technical", old - 200)
    b.ticket(b.customer(), "Error 502 at checkout last night", "I got error 502 when paying last night.",
             status="solved", minutes_ago=old, group="Technical", assignee=agent, comments=[reply])
    b.ticket(b.customer(), "Discount code rejected at checkout", "My SUMMER10 code is rejected at checkout.",
             status="open", minutes_ago=rng.randrange(60, 300), group="Support", via="web")


def firmware_escalation(b) -> None:
    """hd-24: a device fault sitting in Support."""
    _, p = _product(b, "electronics")
    ago = b.rng.randrange(DAY, 2 * DAY)
    b.ticket(b.customer(), f"My {p} is bricked after the update", f"After the latest update my {p} shows only a "
             "blinking light.", status="open", minutes_ago=ago, group="Support", assignee=b.assistant,
             priority="normal",
             comments=[(b.assistant, "Thanks, could you tell me which version it shows?", True, ago - 45)])


def closed_followup(b) -> None:
    """hd-25: a closed ticket whose customer writes again."""
    _, p = _product(b, "backpacks")
    ago = b.rng.randrange(40 * DAY, 50 * DAY)
    agent, reply = _reply(b, "Returns", ago - 200)
    b.ticket(b.customer(), f"The buckle broke on my {p}", f"The hip belt buckle of my {p} broke.", status="closed",
             minutes_ago=ago, group="Returns", assignee=agent, priority="normal",
             comments=[reply, (agent, "We sent a new buckle. Closing this for now.", True, ago - 600)])


def everything(b) -> None:
    b.pairs = list(LOOKALIKE_FIRST)
    b.rng.shuffle(b.pairs)
    for planter in (triage, duplicates, tracking_macro, sla_breach, big_refund, earlier_ticket, departed_agent,
                    quiet_customers, bulk_recall, vip_routing, privacy, sla_promise, false_duplicates,
                    shared_first_name, callback_task, articles, priority_audit, bad_csat, stale_pending,
                    replacement_reply, customer_tickets, checkout_outage, firmware_escalation, closed_followup):
        planter(b)
