"""Google Calendar: the calendars the assistant can see, on the Calendar
API's methods, parameter names and answer shapes (``events.insert`` is
``calendar.events.insert``; path, query and body parameters are merged into
one object, as in the trace of reference 001).

Calendar ids are emails; ``primary`` is the assistant's own calendar. The
assistant may write to its own calendar and the six leaders' (``writer``);
the meeting rooms are read-only resource calendars that are booked by
inviting them, and they answer at once: accepted if free, declined if busy.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from ..tool import Refused, tool
from . import busy, clock
from .office import ASSISTANT_EMAIL, ROOMS

ROOM_EMAILS = {r.email for r in ROOMS}
_B32HEX = "0123456789abcdefghijklmnopqrstuv"

CalendarId = Annotated[str, Meta(description="A calendar id (an email, from calendar.calendarList.list) or "
                                             "\"primary\" for the assistant's own.")]
EventId = Annotated[str, Meta(description="The event's id (from calendar.events.list).")]
Time = Annotated[str, Meta(description="RFC 3339 with an offset, e.g. 2026-11-13T00:00:00+01:00 or "
                                       "2026-11-12T23:00:00Z.")]


class EventDateTime(msgspec.Struct, forbid_unknown_fields=True):
    """When an event starts or ends: {date} for an all-day event (the end date is exclusive), {dateTime} for a
    timed one."""

    date: Annotated[str | None, Meta(description="For an all-day event: YYYY-MM-DD. The end date is exclusive: "
                                                 "a one-day event on 13 November ends on 2026-11-14.")] = None
    dateTime: Annotated[str | None, Meta(description="For a timed event: RFC 3339, e.g. "
                                                     "2026-11-17T10:00:00+01:00.")] = None
    timeZone: Annotated[str | None, Meta(description="IANA zone, e.g. Europe/Oslo; lets dateTime omit the "
                                                     "offset.")] = None


class Attendee(msgspec.Struct, forbid_unknown_fields=True):
    """A guest: a person's email, or a meeting room's calendar id to book the room."""

    email: Annotated[str, Meta(description="The guest's email, or a meeting room's calendar id to book it.")]
    displayName: Annotated[str | None, Meta(description="Optional name.")] = None
    optional: Annotated[bool, Meta(description="Optional guest.")] = False


Summary = Annotated[str, Meta(max_length=1024, description="The event's title.")]
Location = Annotated[str, Meta(max_length=8192, description="Where, e.g. a room name, an address or Google Meet.")]
Details = Annotated[str, Meta(max_length=8192, description="The event's description: agenda, notes.")]
Transparency = Annotated[Literal["opaque", "transparent"],
                         Meta(description="opaque (default): busy; transparent: shown as free.")]
SendUpdates = Annotated[Literal["all", "externalOnly", "none"],
                        Meta(description="Whether guests get an email about it (default all, as Google).")]


class ListArgs(msgspec.Struct, forbid_unknown_fields=True):
    pass


class EventsListArgs(msgspec.Struct, forbid_unknown_fields=True):
    calendarId: CalendarId
    timeMin: Annotated[str | None, Meta(description="Only events ending after this time (RFC 3339 with offset).")] = None
    timeMax: Annotated[str | None, Meta(description="Only events starting before this time (RFC 3339 with "
                                                    "offset).")] = None
    q: Annotated[str | None, Meta(description="Only events whose summary, description or location contains "
                                              "these words.")] = None
    maxResults: Annotated[int, Meta(ge=1, le=2500, description="At most this many (default 250).")] = 250
    singleEvents: Annotated[bool, Meta(description="Accepted for compatibility; there are no recurring "
                                                   "series here.")] = True
    orderBy: Annotated[Literal["startTime", "updated"] | None, Meta(description="startTime (default) or "
                                                                                "updated.")] = None
    pageToken: Annotated[str | None, Meta(description="nextPageToken of the previous page.")] = None


class EventRef(msgspec.Struct, forbid_unknown_fields=True):
    calendarId: CalendarId
    eventId: EventId
    sendUpdates: SendUpdates = "all"


class GetArgs(msgspec.Struct, forbid_unknown_fields=True):
    calendarId: CalendarId
    eventId: EventId


class InsertArgs(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    calendarId: CalendarId
    summary: Summary
    start: Annotated[EventDateTime, Meta(description="{date} for all-day, {dateTime} for a timed event.")]
    end: Annotated[EventDateTime, Meta(description="Same kind as start; after it.")]
    attendees: Annotated[list[Attendee], Meta(description="Guests: [{email}]. Invite a room to book it.")] = []
    location: Location = ""
    description: Details = ""
    transparency: Transparency = "opaque"
    sendUpdates: SendUpdates = "all"


class PatchArgs(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    calendarId: CalendarId
    eventId: EventId
    summary: Summary | UnsetType = UNSET
    start: Annotated[EventDateTime, Meta(description="New start (same kind as end).")] | UnsetType = UNSET
    end: Annotated[EventDateTime, Meta(description="New end.")] | UnsetType = UNSET
    attendees: Annotated[list[Attendee], Meta(description="The whole new guest list.")] | UnsetType = UNSET
    location: Location | UnsetType = UNSET
    description: Details | UnsetType = UNSET
    transparency: Transparency | UnsetType = UNSET
    sendUpdates: SendUpdates = "all"


class FreeBusyItem(msgspec.Struct, forbid_unknown_fields=True):
    """One calendar to query."""

    id: Annotated[str, Meta(description="A calendar id (email).")]


class FreeBusyArgs(msgspec.Struct, forbid_unknown_fields=True):
    timeMin: Time
    timeMax: Time
    items: Annotated[list[FreeBusyItem], Meta(min_length=1, max_length=50,
                                              description="The calendars to query: [{id}].")]
    timeZone: Annotated[str | None, Meta(description="Zone of the answer's times: UTC (default) or "
                                                     "Europe/Oslo.")] = None


# -- helpers -------------------------------------------------------------------------------------------------


def _time(text: str, what: str) -> int:
    try:
        return clock.parse(text)
    except ValueError:
        raise Refused("bad_request", f"Bad Request: {what} {text!r} must be RFC 3339 with an offset, e.g. "
                                     "2026-11-13T09:00:00+01:00.") from None


def _calendar(ctx, cal_id: str, write: bool = False) -> dict:
    cid = ASSISTANT_EMAIL if cal_id == "primary" else cal_id.strip().lower()
    cal = ctx.store.get("calendars", cid)
    if cal is None:
        raise Refused("not_found", f"Not Found: no calendar {cal_id!r} in the assistant's calendar list.")
    if write and cal["accessRole"] not in ("owner", "writer"):
        raise Refused("forbidden", f"Forbidden: the assistant can only read {cid}. A meeting room is booked by "
                                   "inviting its calendar id to an event on another calendar.")
    return cal


def render(ev: dict) -> dict:
    out = {k: v for k, v in ev.items() if k != "calendarId"}
    out["iCalUID"] = f"{ev['id']}@google.com"
    if ev["organizer"]["email"] == ASSISTANT_EMAIL:
        out["organizer"] = {"email": ASSISTANT_EMAIL, "self": True}
    return out


def _when(d: EventDateTime, what: str) -> dict:
    if (d.date is None) == (d.dateTime is None):
        raise Refused("bad_request", f"Bad Request: {what} needs exactly one of date (all-day) or dateTime.")
    if d.date is not None:
        try:
            return {"date": clock.parse_date(d.date)}
        except ValueError:
            raise Refused("bad_request", f"Bad Request: {what}.date {d.date!r} is not YYYY-MM-DD.") from None
    text = d.dateTime.strip()
    try:
        t = clock.parse(text)
    except ValueError:
        zone = (d.timeZone or "").strip()
        if zone not in ("Europe/Oslo", "UTC", "Etc/UTC"):
            raise Refused("bad_request", f"Bad Request: {what}.dateTime {text!r} needs an offset "
                                         "(2026-11-17T10:00:00+01:00) or timeZone Europe/Oslo.") from None
        t = _time(text + "+00:00", what)
        if zone == "Europe/Oslo":
            t -= clock.oslo_offset(t)
    return {"dateTime": clock.oslo(t), "timeZone": d.timeZone or clock.TZ}


def _check_span(start: dict, end: dict) -> None:
    if ("date" in start) != ("date" in end):
        raise Refused("bad_request", "Bad Request: start and end must both be dates (all-day) or both dateTimes.")
    s, e = busy.span({"start": start, "end": end})
    if e <= s:
        raise Refused("bad_request", "Bad Request: the end must be after the start (an all-day event's end.date "
                                     "is the day after its last day).")


def _attendees(ctx, given: list, start: dict, end: dict, skip_id: str | None = None) -> list:
    s, e = busy.span({"start": start, "end": end})
    events = [ev for _, ev in ctx.store.scan("events") if ev["id"] != skip_id]
    out, seen = [], set()
    for a in given:
        email = a.email.strip().lower()
        if "@" not in email:
            raise Refused("bad_request", f"Bad Request: invalid attendee email {a.email!r}.")
        if email in seen:
            continue
        seen.add(email)
        status = "needsAction"
        if email in ROOM_EMAILS:  # rooms answer at once
            status = "accepted" if busy.free(busy.intervals(events, email), s, e) else "declined"
        out.append({"email": email, "responseStatus": status})
    return out


def _new_event_id(ctx) -> str:
    n = 0
    while True:
        h = int(hashlib.sha256(f"event/{ctx.seed}/{ctx.step}/{n}".encode()).hexdigest(), 16)
        eid = "".join(_B32HEX[(h >> (5 * i)) & 31] for i in range(13))
        if ctx.store.get("events", eid) is None:
            return eid
        n += 1


def _event_on(ctx, cal_id: str, event_id: str, write: bool) -> dict:
    cal = _calendar(ctx, cal_id, write=write)
    ev = ctx.store.get("events", event_id)
    if ev is None or not busy.attends(ev, cal["id"]) or ev["status"] == "cancelled":
        raise Refused("not_found", f"Not Found: no event {event_id!r} on {cal['id']}.")
    if write and ev["calendarId"] != cal["id"]:
        raise Refused("forbidden", f"Forbidden: {cal['id']} is a guest of this event; only its organizer's "
                                   f"calendar ({ev['calendarId']}) can change it.")
    return ev


# -- tools ---------------------------------------------------------------------------------------------------


@tool(writes=False, params=ListArgs, name="calendar.calendarList.list", pure=True,
      reads=("calendars",))
def calendar_list(ctx, args):
    """The calendars the assistant can see (Calendar calendarList.list): {kind, items: [{id, summary,
    description, timeZone, accessRole, primary}]}. Ids are emails: the assistant's own (primary, owner), the six
    leaders' (writer: the assistant manages them) and the two meeting rooms (reader)."""
    return {"kind": "calendar#calendarList", "items": [c for _, c in ctx.store.scan("calendars")]}


@tool(writes=False, params=EventsListArgs, name="calendar.events.list", pure=True,
      reads=("calendars", "events"))
def events_list(ctx, args):
    """Events on one calendar (Calendar events.list), sorted by start: {kind, summary, timeZone, items:
    [{id, summary, description, location, start: {date | dateTime}, end, attendees: [{email,
    responseStatus}], organizer, transparency, status}]}. An event shows on its organizer's calendar and on
    every guest's. transparency "transparent" means it does not make anyone busy; calendar.freebusy.query
    gives busy time directly."""
    cal = _calendar(ctx, args.calendarId)
    lo = _time(args.timeMin, "timeMin") if args.timeMin else None
    hi = _time(args.timeMax, "timeMax") if args.timeMax else None
    words = (args.q or "").casefold().split()
    items = []
    for _, ev in ctx.store.scan("events"):
        if ev["status"] == "cancelled" or not busy.attends(ev, cal["id"]):
            continue
        s, e = busy.span(ev)
        if (lo is not None and e <= lo) or (hi is not None and s >= hi):
            continue
        text = " ".join((ev["summary"], ev["description"], ev["location"])).casefold()
        if all(w in text for w in words):
            items.append(ev)
    if args.orderBy == "updated":
        items.sort(key=lambda ev: (ev["updated"], ev["id"]))
    else:
        items.sort(key=lambda ev: (busy.span(ev)[0], ev["id"]))
    try:
        start = int(args.pageToken) if args.pageToken else 0
    except ValueError:
        raise Refused("bad_request", f"Bad Request: invalid pageToken {args.pageToken!r}.") from None
    page = items[start:start + args.maxResults]
    out = {"kind": "calendar#events", "summary": cal["summary"], "timeZone": cal["timeZone"],
           "accessRole": cal["accessRole"], "items": [render(ev) for ev in page]}
    if start + args.maxResults < len(items):
        out["nextPageToken"] = str(start + args.maxResults)
    return out


@tool(writes=False, params=GetArgs, name="calendar.events.get", pure=True,
      reads=("calendars", "events"))
def events_get(ctx, args):
    """One event (Calendar events.get), by calendarId and eventId."""
    return render(_event_on(ctx, args.calendarId, args.eventId, write=False))


@tool(writes=True, params=InsertArgs, name="calendar.events.insert")
def events_insert(ctx, args):
    """Create an event on a calendar the assistant can write (Calendar events.insert): summary, start and end
    ({date} for all-day, end exclusive; or {dateTime}), attendees [{email}], location, description. Guests are
    invited at once (their responseStatus starts as needsAction); a meeting room invited as a guest accepts if
    free and declines if busy. Answers the new event with its id."""
    cal = _calendar(ctx, args.calendarId, write=True)
    start, end = _when(args.start, "start"), _when(args.end, "end")
    _check_span(start, end)
    ev = {
        "id": _new_event_id(ctx), "kind": "calendar#event", "calendarId": cal["id"], "status": "confirmed",
        "summary": args.summary, "description": args.description, "location": args.location,
        "start": start, "end": end, "attendees": _attendees(ctx, args.attendees, start, end),
        "organizer": {"email": cal["id"]}, "creator": {"email": ASSISTANT_EMAIL},
        "transparency": args.transparency, "created": ctx.at, "updated": ctx.at,
    }
    ctx.store.insert("events", ev["id"], ev)
    return render(ev)


@tool(writes=True, params=PatchArgs, name="calendar.events.patch")
def events_patch(ctx, args):
    """Change some fields of an event (Calendar events.patch), on its organizer's calendar: only the fields
    given change; attendees, if given, replaces the whole guest list. Moving an event keeps its id, its guests
    and their answers' history, so prefer it to deleting and re-creating. Answers the updated event."""
    ev = _event_on(ctx, args.calendarId, args.eventId, write=True)
    changes: dict = {}
    for name in ("summary", "location", "description", "transparency"):
        value = getattr(args, name)
        if value is not UNSET:
            changes[name] = value
    start = _when(args.start, "start") if args.start is not UNSET else ev["start"]
    end = _when(args.end, "end") if args.end is not UNSET else ev["end"]
    if args.start is not UNSET or args.end is not UNSET:
        _check_span(start, end)
        changes["start"], changes["end"] = start, end
    if args.attendees is not UNSET:
        changes["attendees"] = _attendees(ctx, args.attendees, start, end, skip_id=ev["id"])
    elif "start" in changes and any(a["email"] in ROOM_EMAILS for a in ev["attendees"]):
        # A booked room answers the new time again.
        changes["attendees"] = [a if a["email"] not in ROOM_EMAILS else _attendees(
            ctx, [Attendee(email=a["email"])], start, end, skip_id=ev["id"])[0] for a in ev["attendees"]]
    if not changes:
        return render(ev)
    changes["updated"] = ctx.at
    return render(ctx.store.update("events", ev["id"], changes))


@tool(writes=True, params=EventRef, name="calendar.events.delete")
def events_delete(ctx, args):
    """Delete an event (Calendar events.delete), on its organizer's calendar; its guests are told it is
    cancelled. Cannot be undone. Answers {}."""
    ev = _event_on(ctx, args.calendarId, args.eventId, write=True)
    ctx.store.remove("events", ev["id"])
    return {}


@tool(writes=False, params=FreeBusyArgs, name="calendar.freebusy.query", pure=True,
      reads=("calendars", "events"))
def freebusy_query(ctx, args):
    """Busy time of several calendars between timeMin and timeMax (Calendar freebusy.query): {kind, timeMin,
    timeMax, calendars: {id: {busy: [{start, end}]}}}; a calendar the assistant cannot see answers
    {errors: [{domain, reason: notFound}], busy: []}. Free means no busy interval overlaps; events marked
    transparent and events a guest declined do not count."""
    lo, hi = _time(args.timeMin, "timeMin"), _time(args.timeMax, "timeMax")
    if hi <= lo:
        raise Refused("bad_request", "Bad Request: timeMax must be after timeMin.")
    fmt = clock.oslo if (args.timeZone or "").strip() == "Europe/Oslo" else clock.utc
    events = [ev for _, ev in ctx.store.scan("events")]
    out = {}
    for item in args.items:
        cid = ASSISTANT_EMAIL if item.id == "primary" else item.id.strip().lower()
        if ctx.store.get("calendars", cid) is None:
            out[item.id] = {"errors": [{"domain": "global", "reason": "notFound"}], "busy": []}
            continue
        out[item.id] = {"busy": [{"start": fmt(s), "end": fmt(e)} for s, e in busy.intervals(events, cid, lo, hi)]}
    return {"kind": "calendar#freeBusy", "timeMin": clock.utc(lo), "timeMax": clock.utc(hi), "calendars": out}


TOOLS = [calendar_list, events_list, events_get, events_insert, events_patch, events_delete, freebusy_query]
