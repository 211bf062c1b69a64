"""What the office's tasks are about, found in a start state by content.

``cast(store)`` reads the records a seed made (the customer's mail, the
lunch-reminder copies, the duplicate sprint review, who is free when) and
returns them, so a task's instruction, checks and reference solution follow
whatever the seed chose. Nothing in the state is an answer key.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial

from ..task import only
from . import busy, clock
from .office import ANDERS, ASSISTANT, ERIK, FJELLET, FJORDEN, GENERAL, INGRID, JONAS, RANDOM, SOFIE
from .seed_calendar import BOARD_WEEK, INTERVIEW_DAYS

_NOVEMBER = {clock.long_date(d.isoformat()): d.isoformat()
             for d in (date(2026, 11, 1) + timedelta(days=i) for i in range(30))}


@dataclass(frozen=True)
class Cast:
    demo: dict  # the customer demo event on Sofie's calendar
    customer: tuple  # (contact name, email, company)
    demo_slot: tuple  # (start, end): where the demo moves to
    board_slot: tuple  # (start, end, room email) for Ingrid's board prep
    interview: dict  # day -> (start, end): the earliest slot per day the candidate offered
    candidate: tuple  # (name, email)
    headhunter: tuple  # (name, email, agency line)
    it_day: str
    it_time: str
    reminder_text: str
    reminder_first: str  # ts of the copy to keep
    reminder_extra: list  # ts of the copies to delete
    outage: dict  # Erik's message in #general
    review: dict  # the real sprint review ...
    review_copy: dict  # ... and its copy
    anders_free: str  # the only weekday of 16-20 November Anders has a free afternoon


_one = partial(only, world="offsite-planning")


def _name_email(header: str) -> tuple:
    m = re.match(r"\s*(.*?)\s*<([^>]+)>", header)
    return (m.group(1), m.group(2)) if m else (header, header)


_CACHE: OrderedDict = OrderedDict()  # state digest -> Cast: the tasks of one seed share one cast


def cast(store) -> Cast:
    """Every role in a start state (see the generator's ``seed_*`` modules)."""
    key = store.digest()
    got = _CACHE.get(key)
    if got is None:
        got = _CACHE[key] = _cast(store)
        if len(_CACHE) > 64:
            _CACHE.popitem(last=False)
    return got


def _cast(store) -> Cast:
    events = [ev for _, ev in store.scan("events")]
    mails = {mid: m for mid, m in store.scan("messages")}

    def busy_of(email):
        return busy.intervals(events, email)

    demo = _one([ev for ev in events if ev["summary"].startswith("Product demo: ")], "customer demo")
    ask = mails["m_demo_move"]
    contact, contact_email = _name_email(ask["from"])
    company = ask["body"].rstrip().splitlines()[-1]
    move = _NOVEMBER[re.search(r"to (\w+day \d+ \w+) instead", ask["body"]).group(1)]
    demo_slot = busy.earliest([busy_of(SOFIE.email), busy_of(JONAS.email)],
                              busy.slots(move, (10, 0), (14, 0), 60))

    board = None
    rooms = (FJELLET, FJORDEN)
    for day in BOARD_WEEK:
        for s, e in busy.slots(day, (9, 0), (15, 0), 60):
            if not (busy.free(busy_of(INGRID.email), s, e) and busy.free(busy_of(ANDERS.email), s, e)):
                continue
            room = next((r for r in rooms if busy.free(busy_of(r.email), s, e)), None)
            if room is not None:
                board = (s, e, room.email)
                break
        if board:
            break

    interview = {day: busy.earliest([busy_of(ERIK.email), busy_of(JONAS.email)], busy.slots(day, (9, 0), (15, 0), 45))
                 for day in INTERVIEW_DAYS}

    it = re.search(r"On (\w+day \d+ \w+) at (\d\d:\d\d)", mails["m_it_notice"]["body"])
    hunter_name, hunter_email = _name_email(mails["m_headhunt"]["from"])
    agency = re.search(r"from ([^.]+)\.", mails["m_headhunt"]["body"]).group(1)

    slack = [m for _, m in store.scan("slack_messages")]
    mine = [m for m in slack if m["channelId"] == RANDOM.id and m["user"] == ASSISTANT.uid and not m["thread_ts"]]
    texts: dict = {}
    for m in mine:
        texts.setdefault(m["text"], []).append(m)
    copies = _one([g for g in texts.values() if len(g) > 1], "repeated reminder")
    copies.sort(key=lambda m: (int(m["ts"].split(".")[0]), m["ts"]))
    outage = _one([m for m in slack if m["channelId"] == GENERAL.id and m["user"] == ERIK.uid
                   and "outage" in m["text"] and not m["thread_ts"]], "outage message")

    reviews = sorted([ev for ev in events if ev["summary"] == "Sprint review" and ev["calendarId"] == JONAS.email],
                     key=lambda ev: (ev["created"], ev["id"]))
    if len(reviews) != 2 or busy.span(reviews[0]) != busy.span(reviews[1]):
        raise ValueError("offsite-planning state: expected the sprint review and one copy of it")

    free_days = [d for d in BOARD_WEEK if not busy.intervals(events, ANDERS.email, clock.local(d, 12),
                                                              clock.local(d, 17))]
    return Cast(
        demo=demo,
        customer=(contact, contact_email, company),
        demo_slot=demo_slot,
        board_slot=board,
        interview=interview,
        candidate=_name_email(mails["m_candidate"]["from"]),
        headhunter=(hunter_name, hunter_email, agency),
        it_day=_NOVEMBER[it.group(1)],
        it_time=it.group(2),
        reminder_text=copies[0]["text"],
        reminder_first=copies[0]["ts"],
        reminder_extra=[m["ts"] for m in copies[1:]],
        outage=outage,
        review=reviews[0],
        review_copy=reviews[1],
        anders_free=_one(free_days, "free afternoon for Anders"),
    )
