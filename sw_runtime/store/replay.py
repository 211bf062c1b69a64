"""Rebuilding a server's episodes from its action log.

Each record is applied through the engine's own methods, the ones the
requests used: ``Engine.create`` with the episode's id, ``Episode.answer``
for every step, ``forks.fork``, ``Engine.take_snapshot``, ``Engine.submit``
with the judge's logged verdicts, ``Engine.end``. Worlds are deterministic
(same seed, same calls, same answers), so every replayed step must land on
the digest the log holds. One that does not is a **mismatch**: it is logged
as an error with the episode, the step and both digests, counted in the
report (``/healthz`` shows it) and never silently passed over.

Records (each a JSON array; see ``Engine`` for where they are written):
``c`` create, ``s`` step, ``f`` fork, ``p``/``pd`` snapshot taken/deleted,
``e`` ended, ``r`` an episode restored to a snapshot of itself, ``k`` idempotency key, ``kb`` how many
calls of a keyed ``/batch`` ran so far, ``u`` the reply an llm user gave the step
after it (so a replay does not ask the model again), ``l`` an episode's own limits
(a 001 run's ``max_calls`` and timeouts).
"""

from __future__ import annotations

import base64
import logging
import time
from dataclasses import dataclass, field

import msgspec

from .. import errors, schemas

log = logging.getLogger("sandworld.store")

_dec = msgspec.json.decode


@dataclass
class Report:
    """What a replay did."""

    lines: int = 0
    episodes: int = 0
    steps: int = 0
    ended: int = 0
    keys: int = 0
    replies: int = 0
    mismatches: list = field(default_factory=list)
    seconds: float = 0.0
    dropped: dict | None = None  # where a damaged line stopped the replay, and what it left out (log.read)

    def mismatch(self, text: str) -> None:
        if len(self.mismatches) < 100:
            log.error("REPLAY MISMATCH: %s", text)
        self.mismatches.append(text)

    def as_dict(self) -> dict:
        return {"lines": self.lines, "episodes": self.episodes, "steps": self.steps, "ended": self.ended,
                "keys": self.keys, "replies": self.replies, "mismatches": len(self.mismatches),
                "seconds": round(self.seconds, 3), "dropped": self.dropped}


def replay(engine, keys, lines) -> Report:
    """Apply every record of ``lines`` (each a list of raw records) to
    ``engine`` and the idempotency ``keys``."""
    report = Report()
    t0 = time.perf_counter()
    journal, engine.journal = engine.journal, None  # what is replayed is already in the log
    on_event, engine.on_event = engine.on_event, None  # its events were announced before the restart
    on_finish, keys.on_finish = keys.on_finish, None
    try:
        for records in lines:
            report.lines += 1
            for raw in records:
                rec = _dec(raw, type=list[msgspec.Raw])
                kind = _dec(rec[0])
                try:
                    if kind == "k":
                        _key(keys, rec, report)
                    elif kind == "kb":  # how far a keyed batch got (its "k" follows if it finished)
                        keys.mark_partial(*(_dec(r) for r in rec[1:7]))
                    else:
                        _APPLY[kind](engine, rec, report)
                except errors.ApiError as e:
                    report.mismatch(f"record {kind} {bytes(rec[1])[:60].decode(errors='replace')}: "
                                    f"the engine refused it on replay: {e.code}: {e.message}")
    finally:
        engine.journal = journal
        engine.on_event = on_event
        keys.on_finish = on_finish
    report.seconds = time.perf_counter() - t0
    if report.mismatches:
        log.error("replay of the action log found %d mismatches: the episodes named above differ from what "
                  "was acknowledged (a world that is not deterministic, or a changed world version)",
                  len(report.mismatches))
    return report


def _create(engine, rec, report) -> None:
    eid, env, body, created_at = _dec(rec[1]), _dec(rec[2]), _dec(rec[3]), _dec(rec[4])
    project = _dec(rec[5]) if len(rec) > 5 else None  # the caller's project (private-network mode)
    req = msgspec.convert(body, schemas.CreateEpisode)
    ep = engine.create(env, req, episode_id=eid, project=project)
    ep.created_at = created_at
    report.episodes += 1


def _step(engine, rec, report) -> None:
    eid, tool, n, digest = _dec(rec[1]), _dec(rec[2]), _dec(rec[4]), _dec(rec[5])
    ep = engine.episodes.get(eid)
    if ep is None:
        report.mismatch(f"episode {eid} step {n}: the episode is not there to replay it on")
        return
    ep.answer(tool, bytes(rec[3]))
    report.steps += 1
    if ep.steps != n or ep.digest != digest:
        report.mismatch(f"episode {eid} step {n} ({tool}): logged digest {digest}, replayed step {ep.steps} "
                        f"digest {ep.digest}")


def _fork(engine, rec, report) -> None:
    src, ids, created_at = _dec(rec[1]), _dec(rec[2]), _dec(rec[3])
    for child in engine.fork(src, len(ids), ids)[1]:
        child.created_at = created_at
    report.episodes += len(ids)


def _snapshot(engine, rec, report) -> None:
    name = _dec(rec[4]) if len(rec) > 4 else None  # logs before snapshots had names have none
    snap = engine.take_snapshot(_dec(rec[1]), _dec(rec[2]), name=name)
    snap.created_at = _dec(rec[3])


def _restore(engine, rec, report) -> None:
    eid, sid, n, digest = (_dec(r) for r in rec[1:5])
    ep = engine.restore(eid, sid)
    if ep.steps != n or ep.digest != digest:
        report.mismatch(f"episode {eid} restored to {sid}: logged step {n} digest {digest}, replayed step "
                        f"{ep.steps} digest {ep.digest}")


def _snapshot_gone(engine, rec, report) -> None:
    try:
        engine.delete_snapshot(_dec(rec[1]))
    except errors.NotFound:
        pass  # expired again on its own, or never replayed (reported already)


def _ended(engine, rec, report) -> None:
    eid, ended_by, output, verdicts, score = (_dec(r) for r in rec[1:6])
    ep = engine.episodes.get(eid)
    if ep is None:
        report.mismatch(f"episode {eid} ended ({ended_by}): the episode is not there to end")
        return
    if ended_by == "finished":
        ev = engine.submit(eid, output, verdicts)
    else:
        ev = engine.end(ep, ended_by)
    report.ended += 1
    if ev.get("score") != score:
        report.mismatch(f"episode {eid} ended ({ended_by}): logged score {score}, replayed {ev.get('score')}")


def _key(keys, rec, report) -> None:
    scope, key, fingerprint, canonical, created, body, _, expires = (_dec(r) for r in rec[1:9])
    keys.restore(scope, key, fingerprint, canonical, base64.b64decode(body), created, expires)
    report.keys += 1


def _user_reply(engine, rec, report) -> None:
    engine.users.remember(_dec(rec[2]), _dec(rec[3]))  # an llm user's reply, for the step that follows
    report.replies += 1


def _limits(engine, rec, report) -> None:
    eid = _dec(rec[1])
    ep = engine.episodes.get(eid)
    if ep is None:
        report.mismatch(f"episode {eid}: not there to give its own limits (a run's max_calls and timeouts)")
        return
    engine.limit(ep, _dec(rec[2]), _dec(rec[3]), _dec(rec[4]))


_APPLY = {"c": _create, "s": _step, "f": _fork, "p": _snapshot, "pd": _snapshot_gone, "e": _ended,
          "u": _user_reply, "l": _limits, "r": _restore}
