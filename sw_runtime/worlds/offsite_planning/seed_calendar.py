"""The seeded calendars: the six leaders, the assistant and two meeting rooms,
9 to 24 November 2026.

Fixed on every seed (the tasks and the quickstart rely on them):
- the leadership sync (Mondays 09:00), the all-hands (Wednesdays 15:00);
- Erik's all-day partner day in Stockholm on Thursday 12 November, and no
  event at all for any leader on Friday 13 November, so the 13th is the only
  working day between the 12th and the 14th when all six are free;
- the customer demo on Thursday 12 November 13:00 (Sofie and Jonas), Jonas's
  sprint review that appears twice on Wednesday 18 November (the later copy
  has no attendees);
- exactly one weekday of 16 to 20 November when Anders has no busy time
  between 12:00 and 17:00 (a "show as free" reminder sits in it).

Varied by the seed: the customer, the day they ask to move the demo to, which
afternoon Anders keeps free, and every other meeting (who, when, how long,
which room). A repair pass then makes sure each task's slot exists.
"""

from __future__ import annotations

import random

from . import busy, clock
from .office import ANDERS, ASSISTANT_EMAIL, ENGINEERS, ERIK, FJELLET, FJORDEN, INGRID, JONAS, LEADERS, MARI, \
    NORA, PEOPLE, ROOMS, SOFIE, STAFF, Person

WORK_DAYS = ("2026-11-09", "2026-11-10", "2026-11-11", "2026-11-12", "2026-11-13", "2026-11-16", "2026-11-17",
             "2026-11-18", "2026-11-19", "2026-11-20", "2026-11-23", "2026-11-24")
OFFSITE_DAY = "2026-11-13"
PARTNER_DAY = "2026-11-12"
DEMO_DAY = "2026-11-12"
DEMO_MOVE_DAYS = ("2026-11-17", "2026-11-18")  # the customer asks for one of them
INTERVIEW_DAYS = ("2026-11-10", "2026-11-11")
BOARD_WEEK = ("2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20")
ANDERS_FREE_CHOICES = ("2026-11-16", "2026-11-17", "2026-11-19", "2026-11-20")  # Wednesday has the all-hands
SPRINT_REVIEW_DAY = "2026-11-18"

CUSTOMERS = (
    ("Havbris Seafood AS", "Kristin Vik", "kristin.vik@havbris.no"),
    ("Polarlys Energi AS", "Tobias Rønning", "tobias.ronning@polarlys-energi.no"),
    ("Fjellsport AS", "Amalie Berge", "amalie.berge@fjellsport.no"),
    ("Brødrene Hagen AS", "Sindre Hagen", "sindre@brodrenehagen.no"),
)

SOLO = {
    INGRID.uid: ("Investor update call", "Strategy session", "Press interview: Finansavisen",
                 "Coffee with Innovation Norway", "1:1 with Mari", "Board deck review"),
    ERIK.uid: ("Architecture review", "1:1 with Lars", "1:1 with Kari", "Security audit follow-up",
               "Incident review", "Vendor call: cloud credits"),
    MARI.uid: ("Hiring pipeline review", "1:1 with Silje", "Office lease meeting", "Ops weekly",
               "Supplier negotiation", "Insurance renewal call"),
    ANDERS.uid: ("Month-end close", "Budget review", "Call with the auditor", "Payroll check",
                 "Bank meeting: DNB", "Cash-flow forecast"),
    SOFIE.uid: ("Pipeline review", "Customer call: Vestland Kraft", "Sales weekly", "Proposal workshop",
                "Call with Nordic Retail Group", "1:1 with Ola"),
    JONAS.uid: ("Roadmap review", "Design review with Nora", "User interview", "Product sync",
                "Backlog grooming", "1:1 with Henrik"),
}
JOINT = (
    ("Pricing workshop", (SOFIE, JONAS, ANDERS)),
    ("Hiring committee", (ERIK, MARI, JONAS)),
    ("Budget 2027: engineering", (ANDERS, ERIK)),
    ("Customer escalation: Vestland Kraft", (SOFIE, ERIK)),
    ("Data platform roadmap", (ERIK, JONAS)),
    ("Partner programme", (INGRID, SOFIE)),
    ("Office move planning", (MARI, INGRID, ANDERS)),
    ("Quarterly forecast", (ANDERS, INGRID, SOFIE)),
)
STAFF_ROOM = (
    ("Sprint planning", "lars", FJORDEN),
    ("Design critique", "nora", FJELLET),
    ("Data team sync", "henrik", FJELLET),
    ("Customer onboarding call", "thea", FJELLET),
    ("Sales training", "ola", FJORDEN),
    ("Interview: frontend engineer", "silje", FJELLET),
    ("Platform maintenance planning", "magnus", FJELLET),
)
AGENDAS = ("Agenda in the doc linked in the invite.", "Bring your numbers.", "", "", "Notes: shared drive / 2026 /",
           "")

_B32HEX = "0123456789abcdefghijklmnopqrstuv"


class Builder:
    """Events as they are placed, with each person's and room's busy time
    kept alongside so placement can avoid double-booking."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.events: list = []
        self.fixed: set = set()  # ids the repair pass must not remove
        self.protected: dict = {}  # email -> [(start, end)] where no random event may go
        self._ids: set = set()
        self._busy: dict = {}  # email -> busy intervals, until the next change

    def new_id(self) -> str:
        while True:
            eid = "".join(self.rng.choice(_B32HEX) for _ in range(13))
            if eid not in self._ids:
                self._ids.add(eid)
                return eid

    def created(self) -> str:
        # Made some time in the six weeks before now.
        return clock.iso_ms(clock.EPOCH_S - self.rng.randrange(2 * 86400, 42 * 86400) // 60 * 60)

    def add(self, cal: str, summary: str, start: int, end: int, people=(), *, all_day: str | None = None,
            room=None, location: str = "", description: str = "", transparent: bool = False,
            fixed: bool = False, created: str | None = None, extra=()) -> dict:
        attendees = []
        for email in list(dict.fromkeys([p.email if isinstance(p, Person) else p for p in people])):
            status = "accepted" if email == cal else self.rng.choice(("accepted", "accepted", "accepted",
                                                                      "needsAction", "tentative"))
            attendees.append({"email": email, "responseStatus": status})
        for email in extra:  # guests outside the company: they have not answered yet
            attendees.append({"email": email, "responseStatus": "needsAction"})
        if room is not None:
            attendees.append({"email": room.email, "responseStatus": "accepted"})
            location = location or room.name
        made = created or self.created()
        if all_day:
            start_f, end_f = {"date": all_day}, {"date": clock.next_day(all_day)}
        else:
            start_f = {"dateTime": clock.oslo(start), "timeZone": clock.TZ}
            end_f = {"dateTime": clock.oslo(end), "timeZone": clock.TZ}
        ev = {
            "id": self.new_id(),
            "kind": "calendar#event",
            "calendarId": cal,
            "status": "confirmed",
            "summary": summary,
            "description": description,
            "location": location,
            "start": start_f,
            "end": end_f,
            "attendees": attendees,
            "organizer": {"email": cal},
            "creator": {"email": cal},
            "transparency": "transparent" if transparent else "opaque",
            "created": made,
            "updated": made,
        }
        self.events.append(ev)
        self._busy.clear()
        if fixed:
            self.fixed.add(ev["id"])
        return ev

    def busy(self, email: str) -> list:
        got = self._busy.get(email)
        if got is None:
            got = self._busy[email] = busy.intervals(self.events, email)
        return got

    def can_place(self, emails, start: int, end: int) -> bool:
        for email in emails:
            if not busy.free(self.busy(email), start, end):
                return False
            if not busy.free(self.protected.get(email, []), start, end):
                return False
        return True

    def protect(self, email: str, start: int, end: int) -> None:
        self.protected.setdefault(email, []).append((start, end))

    def place(self, cal, summary, people, day, minutes, *, room_chance=0.0, first=(8, 0), last_end=(17, 0),
              tries=12, **kw):
        """Put a meeting at a random free half hour of ``day``; None if none was found."""
        emails = [p.email for p in people]
        for _ in range(tries):
            latest = clock.local(day, *last_end) - minutes * 60
            starts = list(range(clock.local(day, *first), latest + 1, 1800))
            if not starts:
                return None
            start = self.rng.choice(starts)
            end = start + minutes * 60
            if not self.can_place(emails, start, end):
                continue
            room = None
            if self.rng.random() < room_chance:
                fits = [r for r in ROOMS if r.capacity >= len(people) and busy.free(self.busy(r.email), start, end)]
                room = self.rng.choice(fits) if fits else None
            return self.add(cal, summary, start, end, people, room=room, **kw)
        return None

    def remove_one(self, emails, lo: int, hi: int) -> bool:
        """Drop one random non-fixed event that makes one of ``emails`` busy in [lo, hi)."""
        found = []
        for ev in self.events:
            if ev["id"] in self.fixed:
                continue
            s, e = busy.span(ev)
            if s < hi and e > lo and any(busy.blocks(ev, m) for m in emails):
                found.append(ev)
        if not found:
            return False
        self.events.remove(self.rng.choice(found))
        self._busy.clear()
        return True


def build(rng: random.Random) -> dict:
    """The calendar facts of one seed: ``events`` (list of records) and the
    choices the mails must agree with (``customer``, ``demo_move_day``,
    ``anders_free_day``)."""
    b = Builder(rng)
    leaders = list(LEADERS)
    everyone = list(PEOPLE)

    # -- fixed anchors ------------------------------------------------------------------
    for day in ("2026-11-09", "2026-11-16", "2026-11-23"):
        b.add(INGRID.email, "Leadership sync", clock.local(day, 9), clock.local(day, 10), leaders, room=FJORDEN,
              description="Weekly: numbers, hiring, anything blocking.", fixed=True, created="2026-08-14T10:02:00.000Z")
    for day in ("2026-11-11", "2026-11-18"):
        b.add(INGRID.email, "All hands", clock.local(day, 15), clock.local(day, 15, 30), everyone, room=FJORDEN,
              description="Company update and demos.", fixed=True, created="2026-08-14T10:05:00.000Z")
    b.add(ERIK.email, "Partner day Stockholm", 0, 0, [ERIK], all_day=PARTNER_DAY, location="Stockholm",
          description="Cloud partner summit, all day. Flight 07:05 from OSL.", fixed=True)
    for p in leaders:
        b.protect(p.email, clock.day_start(OFFSITE_DAY), clock.day_start(clock.next_day(OFFSITE_DAY)))

    customer = rng.choice(CUSTOMERS)
    b.add(SOFIE.email, f"Product demo: {customer[0]}", clock.local(DEMO_DAY, 13), clock.local(DEMO_DAY, 14),
          [SOFIE, JONAS], location="Google Meet", description=f"Demo of Nordlys Insights for {customer[1]}.",
          fixed=True, extra=[customer[2]])

    review_hour = rng.choice((10, 13, 14))
    team = [JONAS, ERIK, NORA] + list(ENGINEERS)
    rs, re_ = clock.local(SPRINT_REVIEW_DAY, review_hour), clock.local(SPRINT_REVIEW_DAY, review_hour + 1)
    b.add(JONAS.email, "Sprint review", rs, re_, team, room=FJORDEN, description="Sprint 23 demo and review.",
          fixed=True, created="2026-10-01T09:30:00.000Z")
    # The copy: same title and time, made later by a calendar sync, nobody invited.
    b.add(JONAS.email, "Sprint review", rs, re_, [], fixed=True,
          created=clock.iso_ms(clock.EPOCH_S - rng.randrange(2, 4) * 86400 + rng.randrange(0, 600) * 60))

    anders_free = rng.choice(ANDERS_FREE_CHOICES)
    b.protect(ANDERS.email, clock.local(anders_free, 12), clock.local(anders_free, 17))
    vat = rng.choice((13, 14))
    b.add(ANDERS.email, "Reminder: VAT return due", clock.local(anders_free, vat), clock.local(anders_free, vat, 30),
          [ANDERS], transparent=True, fixed=True)
    demo_move = rng.choice(DEMO_MOVE_DAYS)

    # -- background meetings ---------------------------------------------------------------------------
    days = [d for d in WORK_DAYS if d != OFFSITE_DAY]
    for day in days:
        for p in leaders:
            if p is ERIK and day == PARTNER_DAY:
                continue
            for _ in range(rng.choice((1, 2, 2, 3))):
                b.place(p.email, rng.choice(SOLO[p.uid]), [p], day, rng.choice((30, 60, 60, 90)), room_chance=0.25,
                        description=rng.choice(AGENDAS))
    for _ in range(10):
        summary, who = rng.choice(JOINT)
        b.place(who[0].email, summary, list(who), rng.choice(days), rng.choice((60, 60, 90)), room_chance=0.6,
                description=rng.choice(AGENDAS))
    by_first = {p.first.lower(): p for p in STAFF}
    for _ in range(12):
        summary, who, room = rng.choice(STAFF_ROOM)
        organizer = by_first[who]
        day = rng.choice(days)
        for _ in range(8):
            start = clock.local(day, rng.choice(range(8, 16)), rng.choice((0, 30)))
            end = start + rng.choice((60, 90)) * 60
            if busy.free(b.busy(room.email), start, end):
                b.add(organizer.email, summary, start, end, [organizer], room=room)
                break
    for summary in ("Vendor call: Kontorland", "Monthly supplier review", "Travel bookings: December"):
        b.place(ASSISTANT_EMAIL, summary, [], rng.choice(days), 30)

    # -- make sure every task's slot exists --------------------------------------------------------------
    def ensure(emails, candidates, rooms=None):
        for _ in range(200):
            lists = [b.busy(m) for m in emails]
            for s, e in candidates:
                if all(busy.free(x, s, e) for x in lists) and (
                        rooms is None or any(busy.free(b.busy(r.email), s, e) for r in rooms)):
                    return
            lo, hi = candidates[0][0], candidates[-1][1]
            if not b.remove_one(emails + [r.email for r in rooms or ()], lo, hi):
                raise AssertionError("offsite-planning generator: cannot free a slot")

    ensure([SOFIE.email, JONAS.email], busy.slots(demo_move, (10, 0), (14, 0), 60))
    for day in INTERVIEW_DAYS:
        ensure([ERIK.email, JONAS.email], busy.slots(day, (9, 0), (15, 0), 45))
    # Anders is busy some time every other afternoon of the board week, and the
    # board prep still has a slot: adding the one may take the other, so loop.
    board = [c for d in BOARD_WEEK for c in busy.slots(d, (9, 0), (15, 0), 60)]
    for _ in range(20):
        ensure([INGRID.email, ANDERS.email], board, ROOMS)
        added = False
        for day in BOARD_WEEK:
            lo, hi = clock.local(day, 12), clock.local(day, 17)
            if day == anders_free or not busy.free(b.busy(ANDERS.email), lo, hi):
                continue
            placed = b.place(ANDERS.email, rng.choice(SOLO[ANDERS.uid]), [ANDERS], day, 60, first=(12, 0),
                             last_end=(17, 0), tries=40)
            assert placed is not None, "offsite-planning generator: no room for an afternoon meeting"
            added = True
        if not added:
            break
    else:
        raise AssertionError("offsite-planning generator: the board week did not settle")

    b.events.sort(key=lambda ev: (busy.span(ev)[0], ev["id"]))
    return {"events": b.events, "customer": customer, "demo_move_day": demo_move, "anders_free_day": anders_free}
