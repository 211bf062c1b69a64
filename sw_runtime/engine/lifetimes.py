"""When episodes run out of time, found without scanning them all.

Open episodes sit in a heap ordered by their deadline (the earlier of
*last use + idle timeout* and *birth + hard age limit*). A step only writes
the episode's ``touched`` time; the heap is not touched on the hot path.
When a deadline comes up, the episode's real deadline is recomputed: if it
was used since, it goes back into the heap with its new deadline, otherwise
it is due. So a sweep costs what it ends plus one heap move per episode that
was used since its last deadline: never a pass over every episode.

Ended episodes kept in memory (so a GET right after a submit still shows
the trace and state) sit in an LRU, oldest ending first; past ``keep`` of
them, or ``keep_for`` seconds after their end, they are freed (their result
stays in the results store).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import heapq
import time
from collections import OrderedDict
from datetime import datetime, timezone

from .. import errors

from .episode import OPEN, SUBMITTING


# Monotonic time -> wall-clock seconds, fixed once per process so that an
# episode's ``expires_at`` reads the same every time it is asked (reads do
# not move it; only a step, a fork or a heartbeat does).
_WALL_OFFSET = time.time() - time.monotonic()


def wall_of(mono: float) -> str:
    """A monotonic instant as RFC 3339 UTC text with milliseconds."""
    t = datetime.fromtimestamp(mono + _WALL_OFFSET, timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def windows(req, settings) -> tuple:
    """A create request's own (idle window, hard life) in seconds, checked
    against the server's limits; None for each one it leaves to the server."""
    out = []
    for name, given, most, setting in (("idle_timeout_seconds", req.idle_timeout_seconds, settings.idle_timeout,
                                        "SW_IDLE_TIMEOUT"),
                                       ("timeout_seconds", req.timeout_seconds, settings.max_age, "SW_MAX_AGE")):
        if given is not None and not (1 <= given <= most):
            raise errors.InvalidRequest(f"{name} must be from 1 to {most:g} seconds (this server's {setting}); "
                                        "a long model turn keeps an episode alive with POST .../heartbeat")
        out.append(given)
    return tuple(out)


class Lifetimes:
    def __init__(self, idle: float, max_age: float, keep: int, keep_for: float):
        self.idle = idle
        self.max_age = max_age
        self.keep = keep
        self.keep_for = keep_for
        self._heap: list = []  # (deadline, episode id)
        self.ended: OrderedDict = OrderedDict()  # episode id -> monotonic time of its end

    def deadline(self, ep) -> float:
        # A run of reference 001 carries its own windows; others use the server's.
        return min(ep.touched + (ep.idle_timeout or self.idle), ep.born + (ep.max_age or self.max_age))

    def expires_at(self, ep) -> str:
        """When ``ep`` ends if nothing touches it (its deadline, as wall-clock text)."""
        return wall_of(self.deadline(ep))

    def windows_of(self, ep) -> tuple:
        """``ep``'s (idle window, hard life) in seconds, its own or the server's."""
        return ep.idle_timeout or self.idle, ep.max_age or self.max_age

    def next_due(self) -> float | None:
        """The earliest deadline watched (monotonic; it may have moved later since)."""
        return self._heap[0][0] if self._heap else None

    def watch(self, ep) -> None:
        heapq.heappush(self._heap, (self.deadline(ep), ep.id))

    def due(self, episodes: dict, now: float, most: int) -> list:
        """Up to ``most`` open episodes past their deadline, as (episode, why)."""
        heap, out = self._heap, []
        while heap and heap[0][0] <= now and len(out) < most:
            _, eid = heapq.heappop(heap)
            ep = episodes.get(eid)
            if ep is None or (ep.status != OPEN and ep.status != SUBMITTING):
                continue  # ended meanwhile: its ending dropped it
            real = self.deadline(ep)
            if real > now or ep.status == SUBMITTING:
                heapq.heappush(heap, (max(real, now + 1.0), eid))
                continue
            if ep.born + (ep.max_age or self.max_age) <= now:
                why = "timeout"
            elif ep.steps >= ep.step_limit:
                why = "step_limit"
            else:
                why = "idle"
            out.append((ep, why))
        return out

    def ended_now(self, eid: str, now: float) -> None:
        self.ended[eid] = now

    def to_free(self, now: float, most: int) -> list:
        """Ids of ended episodes to free from memory, oldest first."""
        out = []
        ended = self.ended
        cutoff = now - self.keep_for
        while ended and len(out) < most:
            eid, at = next(iter(ended.items()))
            if len(ended) <= self.keep and at > cutoff:
                break
            ended.popitem(last=False)
            out.append(eid)
        return out

    def forget(self, eid: str) -> None:
        self.ended.pop(eid, None)

    def __len__(self) -> int:
        return len(self._heap)


def _malloc_trim():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to call
        return None


_TRIM = _malloc_trim()


def return_memory() -> bool:
    """Hand the C heap's free pages back to the operating system (glibc's
    ``malloc_trim``): after many episodes are freed, Python's allocator has
    released its arenas but glibc keeps the pages mapped. False where there
    is no such call."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
