"""The engine: every live episode of one server, and the operations on them.

Create, step, batch, submit, and eviction of idle episodes so memory stays
bounded. Nothing here knows about HTTP; errors are ``ApiError``s.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from datetime import datetime, timezone

import msgspec
import orjson

from .. import errors, schemas
from ..config import Settings
from ..verify import custom
from ..verify.evaluate import Facts
from ..verify.judge import Judge
from ..verify.score import BUDGET_ID, RULES, baseline, evaluate
from ..worlds import get_world
from . import custom_seeds, faults, forks, sandbox, triggers
from .dry_run import preview
from .episode import OPEN, SUBMITTED, Episode
from .ids import Minter
from .read_cache import READS
from .seeds import SeedCache
from .signals import Signals
from .snapshots import Snapshots
from .tally import Tally
from .users import LlmUsers, ScriptedUser

log = logging.getLogger("sandworld.engine")

_FORGET_EVICTED = 100_000  # ids of evicted episodes remembered, to say why they are gone


_dumps = orjson.dumps
_loads = orjson.loads
_Raw = msgspec.Raw


def _args_json(arguments) -> bytes:
    """A call's arguments as JSON bytes, from the wire (Raw) or from Python
    (the trace keeps them: exact-size copies, see episode._dumps)."""
    if type(arguments) is _Raw:
        return bytes(arguments)
    try:
        return bytes(memoryview(_dumps(arguments)))
    except TypeError:
        return b"null"  # not JSON at all: the tool's schema refuses it


def _args_value(args_json: bytes):
    """Arguments as a Python value; None (which every tool's schema refuses)
    when they cannot be decoded."""
    try:
        return _loads(args_json)
    except (orjson.JSONDecodeError, RecursionError):
        return None


_second = [-1, ""]  # the last whole second formatted, and its text up to the "."


def _wall_now() -> str:
    """The wall-clock time in UTC, to the millisecond ("…T22:51:07.123Z").
    The seconds are formatted once per second: formatting a datetime per
    episode was a fifth of a batch create."""
    ns = time.time_ns()
    sec, ms = divmod(ns // 1_000_000, 1000)
    if sec != _second[0]:
        _second[1] = datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.")
        _second[0] = sec
    return f"{_second[1]}{ms:03d}Z"


class Engine:
    def __init__(self, settings: Settings | None = None):
        self.settings = settings or Settings()
        self.episodes: dict = {}
        self.seeds = SeedCache(self.settings.seed_cache)
        self._clocks: dict = {}
        self._evicted: OrderedDict = OrderedDict()
        self.ids = Minter(self.settings.shard)
        self.users = LlmUsers()
        self.judge = Judge()
        self.snapshots = Snapshots(self.settings.max_snapshots, self.ids)
        self.tally = Tally()
        # Called with (event, episode, evaluation-or-ending) as episodes start,
        # are scored and end (the service hands them to its listeners: webhooks).
        self.on_event = None
        READS.resize(self.settings.read_cache)
        self.reads = READS  # pure-read answers, shared by every engine of the process

    # -- lookup --------------------------------------------------------------

    def get(self, episode_id: str, project: str | None = None) -> Episode:
        """The live episode; with ``project``, only if it is that project's:
        another project's episode is 404 exactly like an unknown one."""
        ep = self.episodes.get(episode_id)
        if ep is None or (project is not None and ep.project != project):
            evicted = self._evicted.get(episode_id) if ep is None else None
            if evicted is not None and (project is None or evicted[1] == project):
                raise errors.NotFound(f"episode {episode_id} was evicted ({evicted[0]}); start a new one")
            why = self.ids.why_missing(episode_id)
            if why is not None:
                raise errors.NotFound(f"no episode {episode_id} here: {why}")
            raise errors.NotFound(f"no episode {episode_id!r}")
        return ep

    def new_episode_id(self) -> str:
        return self.ids.episode()

    def _clock(self, world) -> list:
        key = (world.name, world.version)
        clock = self._clocks.get(key)
        if clock is None:
            clock = self._clocks[key] = world.clock(self.settings.step_limit)
        return clock

    # -- lifecycle -----------------------------------------------------------

    def create(self, environment: str, req, start=None, project: str | None = None) -> Episode:
        """Start an episode from a decoded ``schemas.CreateEpisode``. ``start``:
        its custom state, already prepared (``custom_seeds.prepare``).
        ``project``: the caller's (None with keys off); the episode is its."""
        world = get_world(environment)
        if len(self.episodes) >= self.settings.max_episodes:
            self.sweep()
            if len(self.episodes) >= self.settings.max_episodes:
                raise errors.RateLimited(
                    f"this server holds its maximum of {self.settings.max_episodes} live episodes; "
                    "submit finished episodes or retry later",
                    retry_after=5,
                )
        task = None
        if req.task_id is not None:
            task = world.tasks_by_id.get(req.task_id)
            if task is None:
                raise errors.InvalidRequest(
                    f"no task {req.task_id!r} in {world.name}; its tasks are "
                    f"{', '.join(t.id for t in world.tasks)}"
                )
        if not (0 <= req.seed < 2**63):
            raise errors.InvalidRequest("seed must be an integer from 0 to 2^63-1")
        if req.fault_profile is not None and req.fault_profile not in faults.PROFILES:
            raise errors.InvalidRequest(
                f"unknown fault_profile {req.fault_profile!r}; the profiles are "
                f"{', '.join(faults.PROFILES)} (GET /api/v1/fault-profiles)"
            )
        if req.mode not in sandbox.MODES:
            raise errors.InvalidRequest(f"unknown mode {req.mode!r}; use \"live\" (the default) or \"sandbox\"")
        if req.scoring not in RULES:
            raise errors.InvalidRequest(
                f"unknown scoring {req.scoring!r}; use \"share\" (the default: every weighted check counts) or "
                "\"informative\" (checks already true at the start leave the denominator); see docs/VERIFY.md"
            )
        sim_model = self.users.chosen_model(req.user_simulator)  # raises on an unknown simulator
        if start is None:  # a custom state or a snapshot, else the seeded state
            start = custom_seeds.resolve(world, req, task, self.snapshots, project)
        seed = start if start is not None else self.seeds.get(world, req.seed)
        setup, start_passes, checks = None, [], []
        if task is not None:
            setup, start_passes = self.seeds.setup(world, task, seed)
            checks = setup.checks
        if req.checks or req.replace_template_checks:
            asks = ("ask_user",) if setup is not None and setup.hidden_facts else ()
            checks = custom.parse(req.checks or [], world, checks, req.replace_template_checks, asks)
            start_passes = baseline(checks, seed.store)
        trigger = None
        if req.trigger is not None:
            setup, trigger = triggers.apply(world, seed.store, req.trigger, setup)
        ep = Episode(
            id=self.ids.episode(),
            world=world,
            task=task,
            seed=req.seed,
            setup=setup,
            checks=checks,
            start_passes=start_passes,
            start=seed.store,
            seed_digest=seed.digest,
            agent_name=req.agent_name,
            created_at=_wall_now(),
            step_limit=self.settings.step_limit,
            clock=self._clock(world),
            signals=req.signals,
            fault_profile=req.fault_profile,
            scoring=req.scoring,
            mode=req.mode,
        )
        ep.trigger = trigger
        if setup is not None and setup.hidden_facts:
            ep.user = self.users.make(sim_model) if sim_model is not None else ScriptedUser()
        elif sim_model is not None:
            raise errors.InvalidRequest(
                "user_simulator: an llm user needs a task with details only the user knows; this one has none"
            )
        if req.signals:
            reference = self.seeds.reference(world, task, seed) if task is not None else None
            ep.tracker = Signals(ep, reference)
        if start is not None:
            ep.start_kind, ep.snapshot_id = start.kind, start.snapshot_id
        ep.project = project
        self.episodes[ep.id] = ep
        self.tally.creates[world.name] += 1
        if self.on_event is not None:
            self.on_event("created", ep, None)
        return ep

    def create_many(self, items: list, view, project: str | None = None, refused: dict | None = None) -> list:
        """Start one episode per item (a ``schemas.CreateItem`` as raw JSON), in
        order, for ``project``. Each slot is ``view(episode)``, or ``{"ok": false, "error"}``
        (``refused``: errors found beforehand, by index)."""
        out = []
        full = None
        for i, raw in enumerate(items):
            try:
                req = schemas.decode_item(schemas.CreateItem, raw)
                if refused and i in refused:
                    raise refused[i]
                if full is not None:
                    # The server is at its episode cap: nothing later in this
                    # request can free room, so don't sweep once per item.
                    raise full
                ep = self.create(req.environment, req, project=project)
            except errors.RateLimited as e:
                full = e
                out.append({"ok": False, "error": e.slot()})
            except errors.ApiError as e:
                out.append({"ok": False, "error": e.slot()})
            else:
                out.append(view(ep))
        return out

    def fork(self, episode_id: str, n: int, project: str | None = None) -> tuple:
        """``n`` forks of an open episode (one of ``project``'s, when given): ``(source, [forks])``."""
        if type(n) is not int or not 1 <= n <= forks.MAX_FORKS:
            raise errors.InvalidRequest(f"n is {n!r}; a fork makes 1 to {forks.MAX_FORKS} episodes at once")
        src = self.get(episode_id, project)
        if src.status != OPEN:
            raise errors.EpisodeClosed(
                f"episode {episode_id} was submitted; fork an open episode (or snapshot this one and start from it)"
            )
        limit = self.settings.max_episodes
        if len(self.episodes) + n > limit:
            self.sweep()
            if len(self.episodes) + n > limit:
                raise errors.RateLimited(
                    f"{n} more episodes would pass this server's maximum of {limit} live episodes "
                    f"({len(self.episodes)} live); submit finished episodes or retry later",
                    retry_after=5,
                )
        src.touched = time.monotonic()
        children = [forks.clone(src, self.new_episode_id(), inherited=True) for _ in range(n)]
        for child in children:
            self.episodes[child.id] = child
            self.tally.creates[child.world.name] += 1
            if self.on_event is not None:
                self.on_event("created", child, None)
        return src, children

    def step(self, episode_id: str, tool: str, arguments, dry_run: bool = False) -> dict:
        """One call, its arguments as a Python value; the answer as a dict."""
        return _loads(self.step_json(episode_id, tool, _args_json(arguments), dry_run))

    def step_json(self, episode_id: str, tool: str, args_json: bytes, dry_run: bool = False,
                  project: str | None = None) -> bytes:
        """One call, its arguments as JSON; the answer as JSON."""
        ep = self.get(episode_id, project)
        if dry_run:
            return _dumps(preview(ep, tool, _args_value(args_json)))
        pieces = ep.answer(tool, args_json)
        self._count(ep, pieces)
        return b"".join(pieces) + b"}"

    def _count(self, ep: Episode, pieces: list) -> None:
        self.tally.steps[ep.world.name] += 1
        if not ep.calls[-1][1]:
            self.tally.refused(pieces[2])  # the error payload (Episode.answer's layout)

    def batch(self, calls) -> list:
        """``batch_json`` with the results as dicts."""
        return _loads(self.batch_json(calls))["results"]

    def batch_json(self, calls, project: str | None = None) -> bytes:
        """Run calls in order and answer ``{"results": [...]}`` as JSON.

        Each call is a ``schemas.Call`` (or the ``ApiError`` that decoding it
        raised); one that cannot run fails in its own slot. Results are
        encoded once, by the episode, and joined here.
        """
        parts = [b'{"results":[']
        episodes = self.episodes
        steps = self.tally.steps
        for call in calls:
            if len(parts) > 1:
                parts.append(b",")
            if isinstance(call, errors.ApiError):
                slot = call.slot()
                parts.append(_dumps({"episode_id": slot.pop("episode_id", None), "ok": False, "error": slot}))
                continue
            ep = episodes.get(call.episode_id)
            try:
                if ep is None or (project is not None and ep.project != project):
                    ep = self.get(call.episode_id, project)  # raises not_found, saying why
                if call.dry_run:
                    res = preview(ep, call.tool, _args_value(_args_json(call.arguments)))
                    res["episode_id"] = ep.id
                    parts.append(_dumps(res))
                else:
                    # The pieces of every answer are joined once, at the end:
                    # results of a few KB each are copied one time only.
                    pieces = ep.answer(call.tool, _args_json(call.arguments))
                    parts += pieces
                    parts.append(ep.id_tail)
                    steps[ep.world.name] += 1
                    if not ep.calls[-1][1]:
                        self.tally.refused(pieces[2])
            except errors.ApiError as e:
                parts.append(_dumps({"episode_id": call.episode_id, "ok": False, "error": e.slot()}))
        parts.append(b"]}")
        return b"".join(parts)

    def submit(self, episode_id: str, output: str = "", verdicts: dict | None = None,
               project: str | None = None) -> dict:
        """Score and close an episode. ``verdicts`` holds the judge's answers to
        its rubric checks (by check id), fetched beforehand by ``Judge.decide``."""
        ep = self.get(episode_id, project)
        if ep.status != OPEN:
            raise errors.EpisodeClosed(f"episode {episode_id} was already submitted; read it with GET")
        ep.touched = time.monotonic()
        try:
            ev = self._evaluate(ep, output, verdicts)
        except Exception as e:  # the verifier failed: the sample is not the agent's fault
            log.exception("verifier failed for episode %s", episode_id)
            raise errors.VerifierUnavailable(
                f"the verifier could not score episode {episode_id} ({type(e).__name__}); "
                "the episode stays open: retry the submit"
            ) from None
        ep.status = SUBMITTED
        ep.evaluation = ev
        self.tally.submits[ep.world.name] += 1
        if self.on_event is not None:
            self.on_event("submitted", ep, ev)
        return ev

    def _evaluate(self, ep: Episode, output: str, verdicts: dict | None) -> dict:
        judge = None
        if verdicts is not None:
            def judge(check, _facts):
                return verdicts[check.id]
        facts = Facts(start=ep.start, end=ep.store, calls=ep.calls, output=output, judge=judge, trace=ep.trace)
        # The task's step budget gates pass, unless the client replaced the
        # task's checks with its own (then only those decide).
        budget = None
        if ep.task is not None and any(c.source == "template" for c in ep.checks):
            budget = ep.task.step_budget
        if ep.checks:
            scored = evaluate(ep.checks, facts, ep.start_passes, ep.scoring, ep.steps, budget)
        else:  # free play: nothing to score
            scored = {"pass": None, "score": None, "scoring": ep.scoring, "denominators": None, "scores": None,
                      "checks": []}
        failure_kind = None
        if scored["pass"] is False and ep.steps >= ep.step_limit:
            failure_kind = "step_limit"
        elif scored["pass"] is False and all(c["pass"] is True for c in scored["checks"] if c["id"] != BUDGET_ID):
            failure_kind = "over_budget"  # every check passed, in more steps than the task allows
        return {
            "episode_id": ep.id,
            "pass": scored["pass"],
            "score": scored["score"],
            "scoring": scored["scoring"],
            "denominators": scored["denominators"],
            "scores": scored["scores"],
            "step_budget": budget,
            "steps": ep.steps,
            "write_steps": sum(1 for _t, _ok, m in ep.calls if m),
            "tool_errors": sum(1 for _t, ok, _m in ep.calls if not ok),
            "checks": scored["checks"],
            "failure_kind": failure_kind,
            "mask_sample": False,
            "training": ep.training,
            "state_diff": facts.diff,
            "digest": ep.digest,
            "seed_digest": ep.seed_digest,
        }

    # -- memory --------------------------------------------------------------

    def sweep(self, now: float | None = None) -> int:
        """Evict episodes idle past the timeout or older than the hard cap."""
        now = time.monotonic() if now is None else now
        idle = now - self.settings.idle_timeout
        old = now - self.settings.max_age
        gone = []
        for eid, ep in self.episodes.items():
            if ep.idle_timeout is not None or ep.max_age is not None:  # its own limits (a run)
                ep_idle = now - (ep.idle_timeout or self.settings.idle_timeout)
                ep_old = now - (ep.max_age or self.settings.max_age)
            else:
                ep_idle, ep_old = idle, old
            if ep.touched < ep_idle:
                gone.append((eid, f"idle for more than {now - ep_idle:g} s", "idle"))
            elif ep.born < ep_old:
                gone.append((eid, f"older than the {now - ep_old:g} s limit", "max_age"))
        for eid, why, ending in gone:
            ep = self.episodes.pop(eid)
            self._evicted[eid] = (why, ep.project)
            if self.on_event is not None and ep.status == OPEN:  # a submitted one has had its ended event
                self.on_event("evicted", ep, ending)
        while len(self._evicted) > _FORGET_EVICTED:
            self._evicted.popitem(last=False)
        if gone:
            log.info("evicted %d idle episodes", len(gone))
        return len(gone)
