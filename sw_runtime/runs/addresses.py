"""The real APIs' methods and paths, and the tool each one is.

``route(method, path)`` maps a request under ``tools_url`` (``path`` is what
follows it, ``gmail.googleapis.com/gmail/v1/users/me/messages``) to the
world's tool and the arguments found in the path. Query and body arguments
are added by the gateway (``gateway.py``): path, query and body merge into the
one object the tool takes, as in the trace of reference 001.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GMAIL = r"gmail\.googleapis\.com/gmail/v1/users/(?P<userId>[^/]+)"
CALENDAR = r"www\.googleapis\.com/calendar/v3"
SLACK = r"slack\.com/api/(?P<method>[A-Za-z][A-Za-z0-9_.]*)"


@dataclass(frozen=True)
class Address:
    provider: str
    surface: str
    methods: tuple
    pattern: re.Pattern
    tool: str | None  # None: named by the path (Slack's method)


def _a(provider, surface, methods, pattern, tool=None) -> Address:
    return Address(provider, surface, tuple(methods.split()), re.compile(pattern + r"/?\Z"), tool)


ADDRESSES = [
    _a("google.gmail", "rest", "GET", GMAIL + "/messages", "gmail.messages.list"),
    _a("google.gmail", "rest", "POST", GMAIL + "/messages/send", "gmail.messages.send"),
    _a("google.gmail", "rest", "GET", GMAIL + "/messages/(?P<id>[^/]+)", "gmail.messages.get"),
    _a("google.gmail", "rest", "POST", GMAIL + "/messages/(?P<id>[^/]+)/modify", "gmail.messages.modify"),
    _a("google.gmail", "rest", "GET", GMAIL + "/threads/(?P<id>[^/]+)", "gmail.threads.get"),
    _a("google.gmail", "rest", "GET", GMAIL + "/labels", "gmail.labels.list"),
    _a("google.gmail", "rest", "GET", GMAIL + "/drafts", "gmail.drafts.list"),
    _a("google.gmail", "rest", "POST", GMAIL + "/drafts", "gmail.drafts.create"),
    _a("google.gmail", "rest", "GET", GMAIL + "/drafts/(?P<id>[^/]+)", "gmail.drafts.get"),
    _a("google.calendar", "rest", "GET", CALENDAR + "/users/me/calendarList", "calendar.calendarList.list"),
    _a("google.calendar", "rest", "GET", CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events", "calendar.events.list"),
    _a("google.calendar", "rest", "POST", CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events",
       "calendar.events.insert"),
    _a("google.calendar", "rest", "GET", CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)",
       "calendar.events.get"),
    _a("google.calendar", "rest", "PATCH PUT",
       CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)", "calendar.events.patch"),
    _a("google.calendar", "rest", "DELETE",
       CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)", "calendar.events.delete"),
    _a("google.calendar", "rest", "POST", CALENDAR + "/freeBusy", "calendar.freebusy.query"),
    _a("slack", "web-api", "GET POST", SLACK),
]

GOOGLE_HOSTS = ("gmail.googleapis.com/", "www.googleapis.com/")


@dataclass(frozen=True)
class Routed:
    address: Address
    tool: str
    path_args: dict


def route(method: str, path: str) -> Routed | None:
    """The tool a real method and path name, or None when none does."""
    for a in ADDRESSES:
        m = a.pattern.match(path)
        if m is None or method not in a.methods:
            continue
        args = {k: v for k, v in m.groupdict().items() if k != "method"}
        tool = a.tool if a.tool is not None else "slack." + m.group("method")
        return Routed(a, tool, args)
    return None


def provider_of_path(path: str) -> str:
    """Which API's error shape a path under tools_url answers in."""
    return "slack" if path.startswith("slack.com/") else "google"
