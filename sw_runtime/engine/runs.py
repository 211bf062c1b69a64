"""Runs (reference 001): an episode with a run's limits, a tools token and an ending.

A run is an ordinary episode of the engine plus what reference 001 adds to
it: ``max_calls`` (the episode's step limit), an idle window and a hard
timeout of its own, metadata, the agent's name and revision, wall-clock
timestamps, and one ending recorded in ``ended_by`` (``finish``,
``idle_timeout``, ``timeout`` or ``max_calls``). Every ending is scored by the
engine's own submit. A run's token opens its tools and nothing else; every
episode gets a token too, so the tools at the real APIs' addresses and MCP
serve ``/api/v1`` episodes the same way.

Nothing here knows about HTTP or MCP: doors hand in typed values and read
``Run.facts()``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from .. import errors
from .episode import OPEN

TOKEN_PREFIX = "tw_run_"
RUN_PREFIX = "run_"
ENDINGS = ("finish", "idle_timeout", "timeout", "max_calls")


def wall(t: datetime) -> str:
    """RFC 3339 in UTC with milliseconds, as reference 001 writes times."""
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def run_id_of(episode_id: str) -> str:
    """A run's id is its episode's, ``ep_`` replaced by ``run_`` (the shard stays in it)."""
    return RUN_PREFIX + episode_id[3:]


def episode_id_of(run_id: str) -> str | None:
    return "ep_" + run_id[len(RUN_PREFIX):] if run_id.startswith(RUN_PREFIX) else None


@dataclass(slots=True)
class RunOptions:
    """What creating a run asks for, already decoded and range-checked."""

    max_calls: int = 500
    idle_timeout_seconds: int = 600
    timeout_seconds: int = 3600
    agent_name: str | None = None
    agent_revision: str | None = None
    metadata: dict = field(default_factory=dict)
    task_text: str = ""  # the template's instruction, or the free text as given
    group_id: str | None = None  # reference 003's trial group


@dataclass(slots=True)
class Run:
    ep: object  # the Episode (held, so a run stays readable after the engine forgets it)
    token: str
    options: RunOptions
    created: datetime
    created_mono: float
    last_call_mono: float
    started_at: str | None = None
    finished_at: str | None = None
    scored_at: str | None = None
    ended_by: str | None = None
    output: str = ""
    error: dict | None = None  # {type, message} when scoring failed
    finish_key: str | None = None
    surfaces: list = field(default_factory=list)  # the surface of each call, by seq - 1
    seq: int = 0  # creation order on this server: the list's order (newest first)

    @property
    def id(self) -> str:
        return run_id_of(self.ep.id)

    @property
    def status(self) -> str:
        if self.ended_by is None:
            return "running" if self.ep.steps else "created"
        if self.error is not None:
            return "failed"
        return "done" if self.ep.evaluation is not None else "evaluating"

    @property
    def expires_at(self) -> str:
        return wall(self.created + timedelta(seconds=self.options.timeout_seconds))

    @property
    def idle_expires_at(self) -> str | None:
        """When the run ends idle unless a call or a heartbeat comes first (None once ended)."""
        if self.ended_by is not None:
            return None
        idle = self.created + timedelta(seconds=self.last_call_mono - self.created_mono
                                        + self.options.idle_timeout_seconds)
        return wall(min(idle, self.created + timedelta(seconds=self.options.timeout_seconds)))

    def due(self, now: float) -> str | None:
        """The ending that is due at monotonic time ``now``, if any."""
        if self.ended_by is not None:
            return None
        if now - self.created_mono >= self.options.timeout_seconds:
            return "timeout"
        if now - self.last_call_mono >= self.options.idle_timeout_seconds:
            return "idle_timeout"
        return None

    def facts(self) -> dict:
        """Everything a door shows of the run, as plain values (see runs/shapes.py)."""
        ep = self.ep
        ended = self.ended_by is not None
        o = self.options
        return {
            "id": self.id,
            "episode_id": ep.id,
            "status": self.status,
            "ended_by": self.ended_by,
            "error": self.error,
            "environment": ep.world.name,
            "environment_version": ep.world.version,
            "task_id": ep.task.id if ep.task is not None else None,
            "task_text": o.task_text,
            "agent": {"name": o.agent_name, "revision": o.agent_revision},
            "seed": ep.seed,
            "now": ep.clock[min(ep.steps, len(ep.clock) - 1)],
            "calls": ep.steps,
            "max_calls": o.max_calls,
            "idle_timeout_seconds": o.idle_timeout_seconds,
            "timeout_seconds": o.timeout_seconds,
            "created_at": wall(self.created),
            "started_at": self.started_at,
            "expires_at": self.expires_at,
            "idle_expires_at": self.idle_expires_at,
            "finished_at": self.finished_at,
            "scored_at": self.scored_at,
            "metadata": o.metadata,
            "group_id": o.group_id,
            "trace": self.trace() if ended else None,
            "evaluation": ep.evaluation if ended else None,
            "checks": {c.id: {"kind": c.__struct_config__.tag, "label": c.label, "source": c.source}
                       for c in ep.checks},
            "token": self.token,
        }

    def trace(self) -> list:
        """The episode's trace, each entry with the surface it came through."""
        # 001's trace is calls only: a restore's own row is not one (docs/RUNS.md).
        entries = [e for e in self.ep.trace.entries() if "restored" not in e]
        for e in entries:
            i = e["seq"] - 1
            e["surface"] = self.surfaces[i] if i < len(self.surfaces) else "step"
        return entries


def _now() -> datetime:
    return datetime.now(timezone.utc)


class RunBook:
    """Every run of one server, and the tools token of every episode.

    A token is an HMAC of the episode id under a secret made when the server
    starts: nothing is stored per episode (a trainer creates millions), a
    token names exactly one episode, and it cannot be guessed from the id.
    """

    def __init__(self, clock=time.monotonic, max_runs: int = 100_000):
        self._clock = clock
        self.max_runs = max_runs  # past it, the oldest ended runs are forgotten
        self._secret = secrets.token_bytes(32)
        pad = self._secret.ljust(64, b"\0")  # a 32-byte key fills SHA-256's 64-byte block as it is
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in pad))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in pad))
        self.runs: dict = {}  # episode id -> Run
        self.open: dict = {}  # episode id -> Run, the runs not ended yet (what a sweep looks at)
        self.create_keys: dict = {}  # idempotency_key -> (sha256 of the canonical body, run id)
        self._seq = 0

    # -- tokens --------------------------------------------------------------

    def issue(self, episode_id: str) -> str:
        """The episode's tools token."""
        # HMAC-SHA256 (RFC 2104) from the keyed inner and outer states, made
        # once: hmac.new per token was a tenth of a batch create.
        inner, outer = self._inner.copy(), self._outer.copy()
        inner.update(episode_id.encode())
        outer.update(inner.digest())
        return TOKEN_PREFIX + outer.hexdigest()[:32]

    def opens(self, token: str | None, episode_id: str) -> bool:
        """Whether ``token`` is the tools token of ``episode_id`` (compared in constant time)."""
        return bool(token) and hmac.compare_digest(token.encode(), self.issue(episode_id).encode())

    # -- runs ----------------------------------------------------------------

    def add(self, ep, options: RunOptions) -> Run:
        if len(self.runs) >= self.max_runs:
            self._forget_ended()
        now = self._clock()
        self._seq += 1
        run = Run(ep=ep, token=self.issue(ep.id), options=options, created=_now(), created_mono=now,
                  last_call_mono=now, seq=self._seq)
        self.runs[ep.id] = self.open[ep.id] = run
        return run

    def _forget_ended(self) -> None:
        """Forget the oldest tenth of the ended runs (their records are what grows)."""
        ended = [eid for eid, r in self.runs.items() if r.ended_by is not None]
        for eid in ended[:max(1, len(ended) // 10)]:
            del self.runs[eid]

    def get(self, run_id: str) -> Run:
        eid = episode_id_of(run_id)
        run = self.runs.get(eid) if eid else None
        if run is None:
            raise errors.NotFound(f"no run {run_id!r}")
        return run

    def of_episode(self, episode_id: str) -> Run | None:
        return self.runs.get(episode_id)

    def due(self) -> list:
        """Runs whose idle window or timeout has passed."""
        now = self._clock()
        return [(r, why) for r in self.open.values() if (why := r.due(now)) is not None]

    def before_call(self, run: Run) -> str | None:
        """The ending due now (the caller ends the run and refuses the call), else None."""
        return run.due(self._clock())

    def heartbeat(self, run: Run) -> None:
        """Keep a run alive without a call: its idle window starts again now."""
        run.last_call_mono = self._clock()

    def after_call(self, run: Run, surface: str) -> bool:
        """Record a counted call; True when it reached ``max_calls`` (the run ends)."""
        run.last_call_mono = self._clock()
        while len(run.surfaces) < run.ep.steps - 1:
            run.surfaces.append("step")  # calls made through /step, if any
        run.surfaces.append(surface)
        if run.started_at is None:
            run.started_at = wall(_now())
        return run.ep.steps >= run.options.max_calls

    def ended(self, run: Run, ended_by: str, output: str = "") -> None:
        """Seal the run (scoring follows: ``scored``/``failed``)."""
        run.ended_by = ended_by
        self.open.pop(run.ep.id, None)
        run.output = output
        run.finished_at = wall(_now())

    def scored(self, run: Run) -> None:
        run.scored_at = wall(_now())

    def failed(self, run: Run, message: str) -> None:
        run.error = {"type": "evaluation_failed", "message": message}

    @staticmethod
    def is_open(run: Run) -> bool:
        return run.ended_by is None and run.ep.status == OPEN
