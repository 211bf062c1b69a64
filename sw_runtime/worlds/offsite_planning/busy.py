"""When people and rooms are busy: one rule, shared by the calendar tools,
the seeded generator and the tasks' reference solutions.

An event occupies a calendar when it lives there (``calendarId``) or lists
the calendar's owner as an attendee who has not declined. It makes them busy
unless it is cancelled or marked ``transparent`` ("show as free"). An all-day
event covers its days from midnight Oslo time; its ``end.date`` is exclusive,
as in Google Calendar.
"""

from __future__ import annotations

from . import clock


def span(event: dict) -> tuple:
    """``(start, end)`` of an event in seconds since 1970."""
    s, e = event["start"], event["end"]
    start = clock.day_start(s["date"]) if s.get("date") else clock.parse(s["dateTime"])
    end = clock.day_start(e["date"]) if e.get("date") else clock.parse(e["dateTime"])
    return start, end


def attends(event: dict, cal_id: str) -> bool:
    """Whether the event is on ``cal_id``'s calendar (any response)."""
    if event["calendarId"] == cal_id:
        return True
    return any(a["email"] == cal_id for a in event["attendees"])


def blocks(event: dict, cal_id: str) -> bool:
    """Whether the event makes ``cal_id`` busy."""
    if event["status"] == "cancelled" or event["transparency"] == "transparent":
        return False
    for a in event["attendees"]:
        if a["email"] == cal_id:
            return a["responseStatus"] != "declined"
    return event["calendarId"] == cal_id


def intervals(events, cal_id: str, lo: int | None = None, hi: int | None = None) -> list:
    """Busy intervals of ``cal_id``, merged and sorted, clipped to ``[lo, hi)``."""
    raw = []
    for ev in events:
        if blocks(ev, cal_id):
            s, e = span(ev)
            if lo is not None:
                s = max(s, lo)
            if hi is not None:
                e = min(e, hi)
            if s < e:
                raw.append((s, e))
    raw.sort()
    merged: list = []
    for s, e in raw:
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged


def free(busy: list, start: int, end: int) -> bool:
    return all(e <= start or s >= end for s, e in busy)


def slots(day: str, first: tuple, last_start: tuple, minutes: int) -> list:
    """Candidate meetings on ``day``: starts on the hour and half hour from
    ``first`` to ``last_start`` (``(hh, mm)``, Oslo), each ``minutes`` long."""
    out = []
    t, stop = clock.local(day, *first), clock.local(day, *last_start)
    while t <= stop:
        out.append((t, t + minutes * 60))
        t += 30 * 60
    return out


def earliest(busy_lists: list, candidates: list):
    """The first candidate ``(start, end)`` free for every busy list, or None."""
    for s, e in candidates:
        if all(free(b, s, e) for b in busy_lists):
            return s, e
    return None
