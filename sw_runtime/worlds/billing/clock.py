"""Billing's time and money: Stripe counts seconds since 1970 and minor units.

Every timestamp in the state is an integer of Unix seconds, as Stripe's are;
every amount an integer of cents with a lowercase currency (``usd``). People
read them as ``$1234.56`` and ``16 March 2026``, written out here rather than
with ``strftime`` (locale) so an output check and an agent agree.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from ..money import dollars  # noqa: F401  (the account writes money so)
from ..money import dollars_bare as bare  # noqa: F401

EPOCH = "2026-03-16T15:00:00.000Z"  # step 0: a Monday afternoon
_UNIX = datetime(1970, 1, 1, tzinfo=timezone.utc)
NOW = int((datetime(2026, 3, 16, 15, tzinfo=timezone.utc) - _UNIX).total_seconds())
MINUTE, HOUR, DAY = 60, 3_600, 86_400
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def when(ts: int) -> datetime:
    return _UNIX + timedelta(seconds=ts)


def day(ts: int) -> str:
    """``16 March 2026``."""
    t = when(ts)
    return f"{t.day} {MONTHS[t.month - 1]} {t.year}"


def ymd(ts: int) -> str:
    """``2026-03-16``."""
    t = when(ts)
    return f"{t.year:04d}-{t.month:02d}-{t.day:02d}"


def ts_of(year: int, month: int, d: int, hour: int = 0) -> int:
    return int((datetime(year, month, d, hour, tzinfo=timezone.utc) - _UNIX).total_seconds())


def add_months(ts: int, n: int) -> int:
    """The same day and time ``n`` calendar months later (the day clamped to the month's end), as
    Stripe moves a billing period."""
    t = when(ts)
    month = t.month - 1 + n
    year, month = t.year + month // 12, month % 12 + 1
    last = [31, 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30,
            31, 30, 31][month - 1]
    return ts_of(year, month, min(t.day, last), t.hour) + t.minute * 60 + t.second


def period_end(start: int, interval: str) -> int:
    return add_months(start, 12 if interval == "year" else 1)
