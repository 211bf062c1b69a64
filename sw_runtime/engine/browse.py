"""The viewer's episode list: newest first, with the filters a person asks for.

``GET /episodes`` pages in id order, which is stable but says nothing about
time (ids are random within a boot). A person looking for the run that just
failed wants the newest first and filters the API does not have: how it
ended, whether it passed, the agent's name. This listing reads the same
places as ``Engine.page`` (episodes in memory, ended ones waiting for the
results store, the results store), keyed by ``(created_at, episode_id)``,
which never changes and never repeats, so a cursor holds across pages as the
API's does (``pagination.py``). Each row is the episode's summary plus its
``score`` and ``pass`` once it has been scored.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from .. import errors
from ..pagination import PageRequest, encode_cursor
from . import endings

STATUSES = ("open", "submitting", "submitted", endings.ENDED)


@dataclass(frozen=True, slots=True)
class Filters:
    """What to list; None leaves a field unfiltered. ``passed`` True or False
    lists only scored episodes that passed or failed."""

    status: str | None = None
    environment: str | None = None
    task_id: str | None = None
    ended_by: str | None = None
    passed: bool | None = None
    agent_name: str | None = None
    forked_from: str | None = None  # the forks of this episode

    def check(self) -> "Filters":
        if self.status not in (None, *STATUSES):
            raise errors.InvalidRequest(f"status {self.status!r}: use {', '.join(STATUSES)}")
        return self


def _scored(evaluation) -> tuple:
    if not evaluation:
        return None, None
    return evaluation.get("score"), evaluation.get("pass")


def browse(engine, filters: Filters, page: PageRequest = PageRequest(), project: str | None = None) -> dict:
    """One page of episodes, newest first: ``{"items": [...], "next_cursor"}``."""
    f = filters.check()
    before = page.after
    if before is not None and (len(before) != 2 or not all(isinstance(k, str) for k in before)):
        raise errors.InvalidRequest("cursor belongs to another list; pass this list's next_cursor")
    limit = page.limit

    def wanted(ep, status: str, score, passed) -> bool:
        return ((before is None or (ep.created_at, ep.id) < before)
                and (f.status is None or status == f.status)
                and (f.environment is None or ep.world.name == f.environment)
                and (f.task_id is None or (ep.task is not None and ep.task.id == f.task_id))
                and (f.ended_by is None or ep.ended_by == f.ended_by)
                and (f.passed is None or passed is f.passed)
                and (f.agent_name is None or ep.agent_name == f.agent_name)
                and (f.forked_from is None or ep.forked_from == f.forked_from)
                and (project is None or ep.project == project))

    held = []
    for ep in engine.episodes.values():
        score, passed = _scored(ep.evaluation)
        if wanted(ep, ep.status, score, passed):
            held.append((ep, False, score, passed))
    for eid, ep in engine.pending_results.items():  # ended, result not stored yet
        if eid not in engine.episodes:
            score, passed = _scored(ep.evaluation)
            if wanted(ep, endings.ENDED, score, passed):
                held.append((ep, True, score, passed))
    found = {}
    for ep, ended, score, passed in heapq.nlargest(limit + 1, held, key=lambda h: (h[0].created_at, h[0].id)):
        row = endings.summary(ep) if ended else ep.summary()
        found[ep.id] = {**row, "score": score, "pass": passed}
    if f.status in (None, endings.ENDED) and engine.results is not None:
        stored = engine.results.recent(before, limit + 1 + len(found), environment=f.environment,
                                       task_id=f.task_id, ended_by=f.ended_by, passed=f.passed,
                                       agent_name=f.agent_name, forked_from=f.forked_from,
                                       project=project)
        for summary, score, passed in stored:
            if summary["episode_id"] not in engine.episodes:  # memory is the newer word on it
                found.setdefault(summary["episode_id"], {**summary, "score": score, "pass": passed})
    rows = sorted(found.values(), key=_key, reverse=True)
    more = len(rows) > limit
    rows = rows[:limit]
    return {"items": rows, "next_cursor": encode_cursor(_key(rows[-1])) if more else None}


def _key(row: dict) -> tuple:
    return (row.get("created_at") or "", row["episode_id"])
