"""How an episode ends, and what is kept of it.

Every ending is scored the same way: a submit (``finished``, with the
agent's output), the server ending an episode that sat idle (``idle``), that
passed the hard age limit (``timeout``) or that used all its steps and was
left (``step_limit``), or a ``DELETE`` (``deleted``). The last four score
with an empty output. The result row (summary, evaluation, trace, end state)
is handed to the results store; the episode then leaves the live cap.
"""

from __future__ import annotations

from datetime import datetime, timezone

from .episode import OPEN, SUBMITTED, SUBMITTING

# What a GET answers for an ended episode whose memory was freed.
ENDED = "ended"


def wall_now() -> str:
    t = datetime.now(timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def close(ep, ended_by: str, evaluation: dict, ended_at: str | None = None) -> None:
    """Mark ``ep`` ended and take it off its byte meter."""
    ep.status = SUBMITTED
    ep.evaluation = evaluation
    ep.ended_by = ended_by
    ep.ended_at = ended_at or wall_now()
    ep.meter[0] -= ep.nbytes
    ep.nbytes = 0


def is_live(ep) -> bool:
    """Open, or being scored: counted toward the live cap."""
    return ep.status == OPEN or ep.status == SUBMITTING


def end_state(ep, diff: dict) -> dict:
    """The records of ``ep``'s end state that differ from its start
    (``None`` for a removed one): with the start, the whole end state."""
    out = {}
    for name, change in diff.items():
        col = out[name] = {}
        for rid in change.get("created", ()):
            col[rid] = ep.store.get(name, rid)
        for rid in change.get("updated", ()):
            col[rid] = ep.store.get(name, rid)
        for rid in change.get("removed", ()):
            col[rid] = None
    return out


def summary(ep) -> dict:
    """An ended episode's summary as the results store answers it."""
    out = ep.summary()
    out["status"] = ENDED
    out["ended_by"] = ep.ended_by
    out["ended_at"] = ep.ended_at
    return out


def row(ep, diff: dict) -> tuple:
    """What the results store keeps of an ended episode (the last: its
    project, which only filters reads). The trace's results are the JSON the
    server answered (``orjson.Fragment``s): the store encodes them as they are."""
    return summary(ep), ep.evaluation, ep.trace.entries(raw=True), end_state(ep, diff), ep.project
