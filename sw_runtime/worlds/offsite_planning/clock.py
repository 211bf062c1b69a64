"""Time in the office: the simulated now, Oslo time, RFC 3339 and Slack ts.

Nordlys works in Oslo (Europe/Oslo: UTC+1, UTC+2 in summer). The rule for
summer time is computed here (last Sunday of March to last Sunday of October,
01:00 UTC) rather than read from the system's time zone database, so every
machine gives the same answers. Internally a moment is an integer number of
seconds since 1970 (UTC).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

EPOCH = "2026-10-26T08:00:00.000Z"  # Monday 26 October 2026, 08:00 UTC: step 0
_UNIX = datetime(1970, 1, 1, tzinfo=timezone.utc)
EPOCH_S = int((datetime(2026, 10, 26, 8, tzinfo=timezone.utc) - _UNIX).total_seconds())  # 1793001600
MINUTE, HOUR, DAY = 60, 3600, 86400
TZ = "Europe/Oslo"
# Names are spelled here, not by strftime, whose %A and %b follow the locale.
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def _last_sunday(year: int, month: int) -> date:
    d = date(year, month + 1, 1) - timedelta(days=1)
    return d - timedelta(days=(d.weekday() + 1) % 7)


def oslo_offset(utc_s: int) -> int:
    """Oslo's offset from UTC in seconds at the moment ``utc_s``."""
    t = _UNIX + timedelta(seconds=utc_s)
    start = datetime.combine(_last_sunday(t.year, 3), datetime.min.time(), timezone.utc) + timedelta(hours=1)
    end = datetime.combine(_last_sunday(t.year, 10), datetime.min.time(), timezone.utc) + timedelta(hours=1)
    return 2 * HOUR if start <= t < end else HOUR


def _fmt_offset(offset: int) -> str:
    sign = "+" if offset >= 0 else "-"
    offset = abs(offset)
    return f"{sign}{offset // HOUR:02d}:{offset % HOUR // MINUTE:02d}"


def oslo(utc_s: int) -> str:
    """RFC 3339 in Oslo time, as Google Calendar writes it: ``2026-11-17T11:30:00+01:00``."""
    off = oslo_offset(utc_s)
    t = _UNIX + timedelta(seconds=utc_s + off)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + _fmt_offset(off)


def utc(utc_s: int) -> str:
    """RFC 3339 in UTC: ``2026-11-17T10:30:00Z``."""
    return (_UNIX + timedelta(seconds=utc_s)).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_ms(utc_s: int) -> str:
    """``2026-10-26T08:00:00.000Z``: creation and update times."""
    return (_UNIX + timedelta(seconds=utc_s)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def parse(text: str) -> int:
    """Seconds since 1970 for an RFC 3339 date-time with an offset (``Z`` or
    ``+01:00``). Raises ``ValueError`` for anything else: like Google, a time
    without an offset is ambiguous and refused."""
    t = datetime.fromisoformat(text.strip().replace("z", "Z"))
    if t.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone offset; write it like 2026-11-13T09:00:00+01:00")
    return int((t - _UNIX).total_seconds())


def local(day: str, hh: int, mm: int = 0) -> int:
    """The moment of a wall-clock time in Oslo on ``day`` (``YYYY-MM-DD``)."""
    d = date.fromisoformat(day)
    naive = int((datetime(d.year, d.month, d.day, hh, mm, tzinfo=timezone.utc) - _UNIX).total_seconds())
    return naive - oslo_offset(naive - HOUR)


def day_start(day: str) -> int:
    """Midnight in Oslo at the start of ``day``: where an all-day event begins."""
    return local(day, 0)


def parse_date(text: str) -> str:
    """A ``YYYY-MM-DD`` date, checked; ``ValueError`` otherwise."""
    return date.fromisoformat(text.strip()).isoformat()


def next_day(day: str) -> str:
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def weekday(day: str) -> str:
    return WEEKDAYS[date.fromisoformat(day).weekday()]


def long_date(day: str) -> str:
    """``Friday 13 November``: how people in the office write a date."""
    d = date.fromisoformat(day)
    return f"{WEEKDAYS[d.weekday()]} {d.day} {MONTHS[d.month - 1]}"


def hhmm(utc_s: int) -> str:
    """Oslo wall-clock ``HH:MM``."""
    return oslo(utc_s)[11:16]


def oslo_day(utc_s: int) -> str:
    return oslo(utc_s)[:10]


def slack_ts(utc_ms: int) -> str:
    """A Slack message timestamp from a moment in milliseconds:
    ``1793001621.000000``. Also the message's id in ``slack_messages``."""
    return f"{utc_ms // 1000}.{utc_ms % 1000:03d}000"


def rfc2822(utc_s: int) -> str:
    """A mail ``Date`` header in Oslo time: ``Mon, 19 Oct 2026 09:14:00 +0200``."""
    off = oslo_offset(utc_s)
    t = _UNIX + timedelta(seconds=utc_s + off)
    head = f"{WEEKDAYS[t.weekday()][:3]}, {t.day:02d} {MONTHS[t.month - 1][:3]} {t.year} "
    return head + t.strftime("%H:%M:%S ") + _fmt_offset(off).replace(":", "")
