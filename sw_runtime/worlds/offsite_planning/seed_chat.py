"""The seeded Slack workspace: fifteen users, four channels, about thirty
messages of office chatter from the week before now.

Fixed on every seed: the users and channels; the assistant has never posted
in #leadership and has never mentioned the offsite in #general; Erik's
message in #general owning last week's outage (with a reply in its thread);
the lunch reminder the assistant posted several times in #random by mistake,
and Thea's joke quoting it.

Varied by the seed: which chatter lines are posted and when, how many copies
of the lunch reminder there are (three to five), and everyone's mobile number.
"""

from __future__ import annotations

import random

from . import clock
from .office import ASSISTANT, CHANNELS, ENGINEERING, ERIK, GENERAL, INGRID, LARS, LEADERSHIP, PEOPLE, RANDOM, \
    SILJE, THEA

LUNCH_REMINDERS = (
    "Friday lunch is in the kitchen at 11:30: pizza from Bislett Pizzeria today!",
    "Friday lunch is in the kitchen at 11:30: tacos from Hola Oslo today!",
    "Friday lunch is in the kitchen at 11:30: sushi from Alex today!",
)
OUTAGE = ("Heads-up from me: Tuesday's 40-minute API outage was my fault, a config change I pushed without a "
          "review. Customers were told. Post-mortem and the fix are in #engineering.")

GENERAL_POOL = (
    (SILJE.uid, "Fire drill on Wednesday at 10:00. Please leave by the nearest stairs and meet by the fountain."),
    (INGRID.uid, "Great October everyone: two new customers signed and churn at zero. Thank you!"),
    ("U_THEA", "Havbris just told me our new dashboard saved their planners a full day a week."),
    (SILJE.uid, "The coffee machine on the 3rd floor is fixed. Please descale it on Fridays, the rota is on the fridge."),
    ("U_OLA", "Anyone have a spare HDMI adapter? Mine walked off after the sales training."),
    ("U_NORA", "New brand colours are in Figma, please stop using the old orange."),
    ("U_MARI", "Reminder: the office is closed on Friday 18 December from 13:00 for the Christmas lunch."),
)
LEADERSHIP_POOL = (
    (INGRID.uid, "Budget draft v2 is in the drive. Comments by Thursday please."),
    ("U_ANDERS", "Q3 is closed: revenue 8% over plan, costs on plan."),
    ("U_MARI", "Hiring plan for Q1: I'd like two backend engineers and one CSM. Let's discuss Monday."),
    ("U_SOFIE", "Havbris wants a second demo before year end, I'll sort it with Jonas."),
    ("U_JONAS", "Roadmap for H1 is drafted, I'll walk you through it at the sync."),
    ("U_ANDERS", "Reminder: expense reports for October by 5 November."),
)
ENGINEERING_POOL = (
    (LARS.uid, "Deployed 4.12 to production: faster exports and the new audit log."),
    ("U_KARI", "Flaky test in the billing suite is fixed, CI should be green again."),
    (ERIK.uid, "Post-mortem for Tuesday's outage: config changes now need a second reviewer. Thanks all."),
    ("U_HENRIK", "The forecasting model retrain finished, accuracy up 3 points on the holdout."),
    ("U_MAGNUS", "VPN certificates renew tonight at 22:00, you may need to reconnect."),
    (LARS.uid, "Who owns the old cron box? It's been at 95% disk for a week."),
    ("U_KARI", "Reviewing PRs this afternoon, ping me if yours is urgent."),
    ("U_NORA", "Design for the export dialog is ready for review."),
)
RANDOM_POOL = (
    ("U_HENRIK", "My dog graduated from puppy school today."),
    ("U_OLA", "Cake in the kitchen, it's my birthday!"),
    ("U_NORA", "Anyone up for climbing after work on Thursday?"),
    ("U_KARI", "Found a blue water bottle in Fjorden, it's on the shelf by the door."),
    (SILJE.uid, "The plants are being watered on Monday, please don't move them."),
    ("U_MAGNUS", "Board games night next Friday? I'll bring Catan."),
    (LARS.uid, "The new ramen place on Torggata is excellent."),
    ("U_SOFIE", "Who left a bike helmet in the meeting room? Collect it from reception."),
)


def _phone(rng: random.Random) -> str:
    digits = f"{rng.randrange(4, 10)}{rng.randrange(0, 10_000_000):07d}"
    return f"+47 {digits[:3]} {digits[3:5]} {digits[5:]}"


def users(rng: random.Random) -> dict:
    out = {}
    for p in PEOPLE + (ASSISTANT,):
        bot = p is ASSISTANT
        out[p.uid] = {
            "id": p.uid,
            "team_id": "T_NORDLYS",
            "name": "assistant" if bot else p.handle,
            "real_name": p.name,
            "deleted": False,
            "is_bot": bot,
            "is_admin": p.uid in (INGRID.uid, SILJE.uid, ASSISTANT.uid),
            "tz": clock.TZ,
            "tz_offset": 3600,
            "profile": {
                "title": p.title,
                "real_name": p.name,
                "display_name": "Assistant" if bot else p.first,
                "email": "assistant@nordlys.no" if bot else p.email,
                "phone": "" if bot else _phone(rng),
            },
        }
    return out


def channels() -> dict:
    out = {}
    for i, c in enumerate(CHANNELS):
        created = 1_609_459_200 + i * 86_400 * 3  # January 2021, when the workspace was made
        out[c.id] = {
            "id": c.id,
            "name": c.name,
            "is_channel": True,
            "is_private": c.private,
            "is_archived": False,
            "created": created,
            "creator": INGRID.uid,
            "topic": {"value": c.topic, "creator": INGRID.uid, "last_set": created},
            "purpose": {"value": c.purpose, "creator": INGRID.uid, "last_set": created},
            "members": list(c.members),
        }
    return out


def messages(rng: random.Random) -> tuple:
    """``(slack_messages, facts)``: the records by ts, and the facts tasks use
    (``reminder``: its text and the ts of every copy; ``outage``: the ts of
    Erik's message)."""
    out: dict = {}
    days = ("2026-10-19", "2026-10-20", "2026-10-21", "2026-10-22", "2026-10-23")

    def post(channel: str, user: str, text: str, at_s: int, thread_ts: str | None = None) -> str:
        ms = at_s * 1000 + rng.randrange(1, 1000)
        while clock.slack_ts(ms) in out:
            ms += 1
        ts = clock.slack_ts(ms)
        out[ts] = {"ts": ts, "type": "message", "channelId": channel, "user": user, "text": text,
                   "thread_ts": thread_ts}
        return ts

    def at(day: str) -> int:
        return clock.local(day, rng.randrange(8, 17), rng.randrange(0, 60)) + rng.randrange(0, 60)

    for channel, pool, n in ((GENERAL.id, GENERAL_POOL, 5), (LEADERSHIP.id, LEADERSHIP_POOL, 4),
                             (ENGINEERING.id, ENGINEERING_POOL, 6), (RANDOM.id, RANDOM_POOL, 5)):
        for user, text in rng.sample(pool, n):
            post(channel, user, text, at(rng.choice(days)))

    post(LEADERSHIP.id, ERIK.uid, "Reminder that I'm in Stockholm for the partner day on Thursday 12 November.",
         at("2026-10-20"))
    post(GENERAL.id, ASSISTANT.uid, "Reminder: October timesheets are due on Friday 30 October.", at("2026-10-22"))
    outage_at = clock.local("2026-10-22", 9, rng.randrange(0, 60))
    outage = post(GENERAL.id, ERIK.uid, OUTAGE, outage_at)
    post(GENERAL.id, LARS.uid, "Thanks for owning it, Erik.", outage_at + rng.randrange(300, 3000), thread_ts=outage)

    text = rng.choice(LUNCH_REMINDERS)
    t = clock.local("2026-10-23", 10, 30)
    copies = []
    for _ in range(rng.randrange(3, 6)):
        copies.append(post(RANDOM.id, ASSISTANT.uid, text, t))
        t += rng.randrange(40, 180)
    post(RANDOM.id, THEA.uid, f'lol the lunch bot is stuck: "{text}"', t + rng.randrange(60, 400))
    return out, {"reminder": (text, copies), "outage": outage}
