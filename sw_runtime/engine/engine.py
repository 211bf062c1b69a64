"""The engine: every live episode of one server, and the operations on them.

Create, step, batch, submit and the other endings, and freeing memory so it
stays bounded. Nothing here knows about HTTP; errors are ``ApiError``s.

What changes is also written to ``journal`` (when the server keeps an action
log): the service flushes it once per request, before answering
(``sw_runtime.store``), and replays it on start through these same methods.
Ended episodes wait in ``pending_results`` (by id) for the results store;
until they are stored, a read of one freed from memory is answered from there.
"""

from __future__ import annotations

import heapq
import logging
import time
from datetime import datetime, timezone
from operator import attrgetter

import msgspec
import orjson
from sw_core_ext import calls as _calls

from .. import errors, schemas
from ..config import Settings
from ..pagination import PageRequest, paginate
from ..verify import custom
from ..verify.evaluate import Facts
from ..verify.judge import Judge
from ..verify.checks import served_actions
from ..verify.score import BUDGET_ID, RULES, baseline, evaluate
from ..worlds import world_of
from . import custom_seeds, ended_state, endings, faults, forks, lifetimes, restore, sandbox, triggers, views
from .dry_run import preview
from .episode import OPEN, SUBMITTED, SUBMITTING, Episode
from .ids import Minter, parse
from .lifetimes import Lifetimes
from .plans import Plan
from .read_cache import READS
from .seeds import SeedCache
from .signals import Signals
from .snapshots import Snapshots
from .tally import Tally
from .users import LlmUsers, ScriptedUser

log = logging.getLogger("sandworld.engine")

_encode = msgspec.json.encode
_asdict = msgspec.structs.asdict


_dumps = orjson.dumps
_loads = orjson.loads
_Raw = msgspec.Raw


# A call's arguments as JSON bytes, from the wire (Raw) or from Python (the
# trace keeps them: exact-size copies, see episode._dumps).
_args_json = _calls.args_json


def _args_value(args_json: bytes):
    """Arguments as a Python value; None (which every tool's schema refuses)
    when they cannot be decoded."""
    try:
        return _loads(args_json)
    except (orjson.JSONDecodeError, RecursionError):
        return None


_SOURCE = attrgetter("source")


_second = [-1, ""]  # the last whole second formatted, and its text up to the "."
_milli = [-1, ""]  # the last millisecond formatted, and its text
_time_ns = time.time_ns


def _wall_now() -> str:
    """The wall-clock time in UTC, to the millisecond ("…T22:51:07.123Z").
    The seconds are formatted once per second and the text once per
    millisecond (a batch create starts dozens of episodes in one):
    formatting a datetime per episode was a fifth of a batch create."""
    now = _time_ns() // 1_000_000
    if now == _milli[0]:
        return _milli[1]
    sec, ms = divmod(now, 1000)
    if sec != _second[0]:
        _second[1] = datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.")
        _second[0] = sec
    _milli[1] = text = f"{_second[1]}{ms:03d}Z"
    _milli[0] = now
    return text


class Engine:
    def __init__(self, settings: Settings | None = None):
        self.settings = settings or Settings()
        self.episodes: dict = {}
        self.seeds = SeedCache(self.settings.seed_cache)
        self._clocks: dict = {}
        self.ids = Minter(self.settings.shard)
        self.users = LlmUsers()
        self.judge = Judge()
        self.snapshots = Snapshots(self.settings.max_snapshots, self.ids,
                                   self.settings.snapshot_ttl, self.settings.max_snapshot_bytes)
        s = self.settings
        self.live = 0  # open (and submitting) episodes: what the cap counts
        self.meter = [0]  # bytes the live episodes' traces hold (each episode adds to it)
        self.lifetimes = Lifetimes(s.idle_timeout, s.max_age, s.keep_ended, s.keep_ended_for)
        self.journal: list | None = None  # records of what changed, when an action log is kept
        self.results = None  # store.results.Results: ended episodes, once they leave memory
        self.pending_results: dict = {}  # ended episodes not yet in the results store, by id
        self.freed = 0  # episodes freed from memory so far (the sweeper returns memory after many)
        self.tally = Tally()
        # Called with (event, episode, evaluation-or-ending) as episodes start,
        # are scored and end (the service hands them to its listeners: webhooks).
        self.on_event = None
        self.draining = False  # a draining shard takes no new episodes (cluster drain)
        READS.resize(self.settings.read_cache)
        self.reads = READS  # pure-read answers, shared by every engine of the process

    # -- lookup --------------------------------------------------------------

    def get(self, episode_id: str, project: str | None = None) -> Episode:
        """The live episode; with ``project``, only if it is that project's:
        another project's episode is 404 exactly like an unknown one."""
        ep = self.episodes.get(episode_id)
        if ep is None or (project is not None and ep.project != project):
            if ep is None:
                waiting = self.pending_results.get(episode_id)
                if waiting is not None:
                    ended_by = waiting.ended_by if project is None or waiting.project == project else None
                elif self.results is not None:
                    ended_by = self.results.ended_by(episode_id, project)
                else:
                    ended_by = None
                if ended_by is not None:
                    raise errors.EpisodeClosed(
                        f"episode {episode_id} has ended ({ended_by}); read its result with "
                        f"GET /api/v1/episodes/{episode_id}, or start a new episode", ended_by=ended_by
                    )
            why = self.ids.why_missing(episode_id)
            if why is not None and self.journal is not None:
                parts = parse(episode_id)
                if parts.shard == self.ids.shard:  # an earlier boot, and this server keeps a log
                    why = ("it was made before this server restarted and is not in its action log "
                           "(it was never acknowledged); start a new one")
            if why is not None:
                raise errors.NotFound(f"no episode {episode_id} here: {why}")
            raise errors.NotFound(f"no episode {episode_id!r}")
        return ep

    def describe(self, episode_id: str, project: str | None = None) -> dict:
        """``GET /episodes/{id}``: from memory, else from the results store
        (``status: "ended"``); with ``project``, only that project's."""
        ep = self.episodes.get(episode_id)
        waiting = self.pending_results.get(episode_id) if ep is None else None
        if waiting is not None and (project is None or waiting.project == project):
            # ended and freed, its result not stored yet
            return endings.summary(waiting) | {"trace": waiting.trace.entries(), "evaluation": waiting.evaluation}
        if ep is None and self.results is not None:
            kept = self.results.get(episode_id, project=project)
            if kept is not None:
                return kept
        return views.full(self.get(episode_id, project))

    def state_of(self, episode_id: str, project: str | None = None):
        """What a state dump reads: the live episode, or an ended one's end state
        (held in memory, else rebuilt from the results store: ``ended_state.py``)."""
        try:
            return self.get(episode_id, project)
        except errors.EpisodeClosed:
            held = self.pending_results.get(episode_id)
            if held is not None and (project is None or held.project == project):
                return held
            kept = None
            if self.results is not None:
                kept = self.results.get(episode_id, trace=False, end_state=True, project=project)
            if kept is None:
                raise
            return ended_state.rebuild(self, kept)

    def new_episode_id(self) -> str:
        return self.ids.episode()

    def _clock(self, world) -> list:
        key = (world.name, world.version)
        clock = self._clocks.get(key)
        if clock is None:
            clock = self._clocks[key] = world.clock(self.settings.step_limit)
        return clock

    # -- lifecycle -----------------------------------------------------------

    def create(self, environment: str, req, start=None, episode_id: str | None = None,
               project: str | None = None) -> Episode:
        """Start an episode from a decoded ``schemas.CreateEpisode``. ``start``:
        its custom state, already prepared (``custom_seeds.prepare``);
        ``episode_id``: the id it had (a replay), else a new one. ``project``:
        the caller's (None with keys off); the episode is its."""
        world = world_of(environment, req.environments)
        self.make_room(1)
        return self.start_from(self.plan(world.name, world, req, start, project), episode_id, project)

    def plan(self, environment: str, world, req, start=None, project: str | None = None) -> Plan:
        """Validate a create request and make what its episodes start from
        (``plans.py``); ``start`` and ``project`` as for ``create``."""
        lifetimes.windows(req, self.settings)  # 400 past the server's limits
        if req.checks:
            schemas.refuse_big_ints(req.checks, "checks")
        if req.state is not None:
            schemas.refuse_big_ints(req.state, "state")
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
        if req.replace_template_checks and not req.checks:
            raise errors.EmptyCriteria(
                "replace_template_checks drops the task's checks and no checks replace them: an episode with "
                "nothing to check is never graded (reference 003); send checks, or leave the template's")
        if req.checks or req.replace_template_checks:
            asks = ("ask_user",) if setup is not None and setup.hidden_facts else ()
            checks = custom.parse(req.checks or [], world, checks, req.replace_template_checks, asks)
            start_passes = baseline(checks, seed.store)
        checks = served_actions(checks, world)
        trigger = None
        if req.trigger is not None:
            setup, trigger = triggers.apply(world, seed.store, req.trigger, setup)
        if sim_model is not None and (setup is None or not setup.hidden_facts):
            raise errors.InvalidRequest(
                "user_simulator: an llm user needs a task with details only the user knows; this one has none"
            )
        reference = None
        if req.signals and task is not None:
            reference = self.seeds.reference(world, task, seed)
        return Plan(
            environment=environment, world=world, req=req, task=task, setup=setup, checks=checks,
            start_passes=start_passes, store=seed.store, seed_digest=seed.digest, clock=self._clock(world),
            trigger=trigger, sim_model=sim_model, reference=reference,
            start_kind=start.kind if start is not None else "seed",
            snapshot_id=start.snapshot_id if start is not None else None, logged=None,
        )

    def start_from(self, plan: Plan, episode_id: str | None = None, project: str | None = None,
                   announce: bool = True) -> Episode:
        """Start one episode from ``plan`` (``create``, or a batch create's
        items that share one), once ``make_room`` made room for it;
        ``announce`` as for ``register``."""
        req = plan.req
        ep = Episode(
            id=episode_id or self.new_episode_id(),
            world=plan.world,
            task=plan.task,
            seed=req.seed,
            setup=plan.setup,
            checks=plan.checks,
            start_passes=plan.start_passes,
            start=plan.store,
            seed_digest=plan.seed_digest,
            agent_name=req.agent_name,
            created_at=_wall_now(),
            step_limit=self.settings.step_limit,
            clock=plan.clock,
            signals=req.signals,
            fault_profile=req.fault_profile,
            scoring=req.scoring,
            mode=req.mode,
        )
        # Its own windows, or the server's: what expires_at is read from (views.py).
        ep.idle_timeout = req.idle_timeout_seconds or self.settings.idle_timeout
        ep.max_age = req.timeout_seconds or self.settings.max_age
        if plan.trigger is not None:
            ep.trigger = dict(plan.trigger)
        setup = plan.setup
        if setup is not None and setup.hidden_facts:
            ep.user = self.users.make(plan.sim_model) if plan.sim_model is not None else ScriptedUser()
        if req.signals:
            ep.tracker = Signals(ep, plan.reference)
        if plan.start_kind != "seed":
            ep.start_kind, ep.snapshot_id = plan.start_kind, plan.snapshot_id
        if self.journal is not None:
            logged = plan.logged
            if logged is None:
                body = _asdict(req)  # the create body: CreateEpisode's fields (a CreateItem's less its world)
                body.pop("environment", None)
                body.pop("environments", None)  # the record names the world
                logged = plan.logged = _Raw(_encode(body))
            self.journal.append(("c", ep.id, plan.environment, logged, ep.created_at, project))
        ep.project = project
        self.register(ep, announce)
        # The strings the episode keeps from its request count toward the live budget too.
        if plan.checks_bytes is None:
            plan.checks_bytes = len(_encode(req.checks)) if req.checks else 0
        held = len(req.agent_name or "") + plan.checks_bytes
        if held:
            ep.nbytes += held
            self.meter[0] += held
        return ep

    def limit(self, ep: Episode, step_limit: int, idle_timeout: float, max_age: float,
              clock: list | None = None) -> None:
        """Give an episode limits of its own (a 001 run's ``max_calls`` and
        timeouts). Logged, so a replay gives them again: without them a
        replayed run would stop at the server's step limit. ``clock``: the
        world's step times that far, when the caller has them cached."""
        ep.step_limit, ep.idle_timeout, ep.max_age = step_limit, idle_timeout, max_age
        if len(ep.clock) <= step_limit:  # the clock must reach the last step
            ep.clock = clock if clock is not None else ep.world.clock(step_limit)
        if self.journal is not None:
            self.journal.append(("l", ep.id, step_limit, idle_timeout, max_age))

    def register(self, ep: Episode, announce: bool = True) -> None:
        """Make a new open episode live: counted, metered, watched for its
        deadline; and told to ``on_event`` unless ``announce`` is False (no
        one hears of it: a batch create asks once per slice)."""
        ep.meter = self.meter
        ep.args_cap = self.settings.max_trace_arguments
        self.episodes[ep.id] = ep
        self.live += 1
        self.lifetimes.watch(ep)
        self.tally.creates[ep.world.name] += 1
        if announce and self.on_event is not None:
            self.on_event("created", ep, None)

    def make_room(self, n: int) -> None:
        """Refuse ``n`` more open episodes past the caps. O(1): the sweeper,
        not a refused create, is what frees room."""
        s = self.settings
        if self.draining:
            raise errors.ShardDraining(f"shard {s.shard} is draining and takes no new episodes; start them on "
                                       "another shard (GET /api/v1/cluster lists the shards that serve)")
        if self.live + n > s.max_episodes:
            raise errors.RateLimited(
                f"{n} more episodes would pass this server's maximum of {s.max_episodes} open episodes "
                f"({self.live} open; ended ones do not count): submit or DELETE the episodes you are done "
                f"with, or retry later (idle episodes end after {s.idle_timeout:g} s)",
                retry_after=5,
            )
        if self.meter[0] > s.max_live_bytes:
            raise self._over_budget()

    def _over_budget(self) -> errors.RateLimited:
        """What a create, fork or step answers while the open episodes hold more than the live budget."""
        return errors.RateLimited(
            f"the open episodes' traces hold {self.meter[0]} bytes, past this server's budget of "
            f"{self.settings.max_live_bytes} (SW_MAX_LIVE_BYTES): submit or DELETE the episodes you are done "
            "with, or retry later",
            retry_after=5,
        )

    def create_many(self, items: list, project: str | None = None, refused: dict | None = None,
                    announce: bool = True) -> list:
        """Start one episode per item (a ``schemas.CreateItem`` as raw JSON), in
        order, for ``project``. Each slot is ``(episode, plan)``, or the
        ``ApiError`` that refused the item (``refused``: errors found
        beforehand, by index). Items of the same bytes share one plan: the
        episodes of a GRPO group are one item repeated. ``announce``: False
        when nobody hears of created episodes (``on_event`` is not called)."""
        out = []
        full = None
        plans: dict = {}  # an item's bytes -> its plan
        make_room, start = self.make_room, self.start_from
        # One request, one birth: the episodes of a group share their deadline,
        # and so the bytes of their create answers (service/created.py).
        born = time.monotonic()
        for i, raw in enumerate(items):
            key = bytes(raw)
            try:
                plan = plans.get(key)
                if plan is None:
                    req = schemas.decode_item(schemas.CreateItem, raw)
                if refused and i in refused:
                    raise refused[i]
                if full is not None:
                    raise full  # at the cap: nothing later in this request can free room
                if plan is None:
                    world = world_of(req.environment, req.environments)
                    make_room(1)
                    plan = plans[key] = self.plan(world.name, world, req, project=project)
                else:
                    make_room(1)
                ep = start(plan, project=project, announce=announce)
                ep.born = ep.touched = born
                out.append((ep, plan))
            except errors.RateLimited as e:
                full = e
                out.append(e)
            except errors.ApiError as e:
                out.append(e)
        return out

    def fork(self, episode_id: str, n: int, ids: list | None = None, project: str | None = None) -> tuple:
        """``n`` forks of an open episode (one of ``project``'s, when given):
        ``(source, [forks])``; ``ids``: the ids they had (a replay), else new ones."""
        if type(n) is not int or not 1 <= n <= forks.MAX_FORKS:
            raise errors.InvalidRequest(f"n is {n!r}; a fork makes 1 to {forks.MAX_FORKS} episodes at once")
        src = self.get(episode_id, project)
        if src.status != OPEN:
            src.check_open()  # says submitting or ended
        self.make_room(n)
        src.touched = time.monotonic()
        ids = ids or [self.new_episode_id() for _ in range(n)]
        children = [forks.clone(src, eid, inherited=True) for eid in ids]
        for child in children:
            self.register(child)
        if self.journal is not None:
            self.journal.append(("f", src.id, ids, children[0].created_at))
        return src, children

    def heartbeat(self, episode_id: str, project: str | None = None) -> Episode:
        """Keep an open episode alive as a step would, without a step: its idle
        window starts again now (its hard life does not move). Not logged: a
        restart starts every replayed episode's idle window afresh anyway."""
        ep = self.get(episode_id, project)
        if ep.status != OPEN:
            ended_by = ep.ended_by or ("finished" if ep.status == SUBMITTED else None)
            raise errors.EpisodeClosed(f"episode {episode_id} has ended ({ended_by or ep.status}); a heartbeat "
                                       "keeps only an open episode alive", ended_by=ended_by)
        ep.touched = time.monotonic()
        return ep

    def step(self, episode_id: str, tool: str, arguments, dry_run: bool = False) -> dict:
        """One call, its arguments as a Python value; the answer as a dict."""
        return _loads(self.step_json(episode_id, tool, _args_json(arguments), dry_run))

    def step_json(self, episode_id: str, tool: str, args_json: bytes, dry_run: bool = False,
                  project: str | None = None) -> bytes:
        """One call, its arguments as JSON; the answer as JSON."""
        ep = self.get(episode_id, project)
        if dry_run:
            return _dumps(preview(ep, tool, _args_value(args_json)))
        # The live budget, the call, the tally and the log record (the core's: sw_core_ext.calls).
        return b"".join(_calls.step(self, ep, tool, args_json)) + b"}"

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
        self.batch_parts(calls, parts, project)
        parts.append(b"]}")
        return b"".join(parts)

    def batch_parts(self, calls, parts: list, project: str | None = None) -> None:
        """Run calls in order, adding their results' pieces to ``parts``
        (comma-separated; a comma first when ``parts`` holds a result
        already, so a large batch can run in slices: ``batch_json``); with
        ``project``, only to that project's episodes."""
        # The loop, each call's tally and its log record are the core's
        # (sw_core_ext.calls): the log record is ("s", episode id, tool, the
        # arguments as sent, the step, the digest), flushed before the request
        # is answered (service._commit); a dry run is ``_dry_run``.
        _calls.batch(self, calls, parts, project)

    def _dry_run(self, ep: Episode, call) -> bytes:
        """A batch's dry-run call: its preview, in the call's slot."""
        res = preview(ep, call.tool, _args_value(_args_json(call.arguments)))
        res["episode_id"] = ep.id
        return _dumps(res)

    def submit(self, episode_id: str, output: str = "", verdicts: dict | None = None,
               project: str | None = None) -> dict:
        """Score and close an episode. ``verdicts`` holds the judge's answers to
        its rubric checks (by check id), fetched beforehand by ``Judge.decide``."""
        ep = self.get(episode_id, project)
        if ep.status == SUBMITTED:
            raise errors.EpisodeClosed(f"episode {episode_id} was already submitted; read it with GET")
        ep.touched = time.monotonic()
        try:
            ev = self._evaluate(ep, output, verdicts)
        except Exception as e:  # the verifier failed: the sample is not the agent's fault
            log.exception("verifier failed for episode %s", episode_id)
            ep.status = OPEN
            raise errors.VerifierUnavailable(
                f"the verifier could not score episode {episode_id} ({type(e).__name__}); "
                "the episode stays open: retry the submit"
            ) from None
        self._ended(ep, "finished", ev, output, verdicts)
        return ev

    def begin_submit(self, episode_id: str, project: str | None = None) -> Episode:
        """Mark an open episode ``submitting`` while its judge is asked: steps,
        forks and another submit answer 409 until ``submit`` or ``abort_submit``."""
        ep = self.get(episode_id, project)
        if ep.status == SUBMITTING:
            raise errors.EpisodeSubmitting(f"episode {episode_id} is already being scored; read it with GET")
        if ep.status != OPEN:
            raise errors.EpisodeClosed(f"episode {episode_id} has ended ({ep.ended_by}); read it with GET",
                                       ended_by=ep.ended_by)
        ep.status = SUBMITTING
        return ep

    def finished_evaluation(self, episode_id: str, project: str | None = None) -> dict | None:
        """The evaluation of an episode that was submitted (in memory or in the
        results store), for ``project`` when given; None for any other."""
        ep = self.episodes.get(episode_id) or self.pending_results.get(episode_id)
        if ep is not None:
            if project is not None and ep.project != project:
                return None
            return ep.evaluation if ep.ended_by == "finished" else None
        kept = self.results.get(episode_id, project=project) if self.results is not None else None
        return kept["evaluation"] if kept is not None and kept.get("ended_by") == "finished" else None

    def abort_submit(self, ep: Episode) -> None:
        if ep.status == SUBMITTING:
            ep.status = OPEN

    def end(self, ep: Episode, ended_by: str) -> dict:
        """End an open episode without an output (idle, timeout, step_limit,
        deleted), scored as a submit would be; it leaves memory."""
        try:
            ev = self._evaluate(ep, "", None)
        except Exception as e:  # scored as an infrastructure failure: masked, never lost
            log.exception("verifier failed for episode %s", ep.id)
            ev = {"episode_id": ep.id, "pass": None, "score": None, "steps": ep.steps, "checks": [],
                  "failure_kind": "infra", "mask_sample": True, "error": type(e).__name__,
                  "state_diff": ep.world.by_world(ep.store.diff(ep.start)), "digest": ep.digest, "seed_digest": ep.seed_digest}
        self._ended(ep, ended_by, ev, "", None)
        self.free(ep.id)
        if self.on_event is not None:
            self.on_event("ended", ep, ev)
        return ev

    def _ended(self, ep: Episode, ended_by: str, ev: dict, output: str, verdicts) -> None:
        ev["ended_by"] = ended_by
        endings.close(ep, ended_by, ev, _wall_now())  # the clock text made once per millisecond
        self.live -= 1
        if self.journal is not None:
            self.journal.append(("e", ep.id, ended_by, output, verdicts, ev.get("score")))
        self.pending_results[ep.id] = ep
        self.lifetimes.ended_now(ep.id, time.monotonic())
        if ended_by == "finished":
            self.tally.submits[ep.world.name] += 1
            if self.on_event is not None:
                self.on_event("submitted", ep, ev)

    def free(self, episode_id: str) -> None:
        """Drop an ended episode from memory (its result is in the store)."""
        ep = self.episodes.pop(episode_id, None)
        self.lifetimes.forget(episode_id)
        if ep is not None:
            # Signals hold their episode: break the cycle, so the episode is
            # freed by reference counting now, not at a rare full collection.
            ep.tracker = None
            self.freed += 1

    def discard(self, episode_id: str) -> None:
        """Forget an episode as if it had never been (the action log could not
        take the line that made it: ``store/undo.py``); no ending, no event."""
        ep = self.episodes.pop(episode_id, None)
        self.pending_results.pop(episode_id, None)
        self.lifetimes.forget(episode_id)
        if ep is not None and ep.status != SUBMITTED:  # open or being scored: counted live and metered
            self.live -= 1
            ep.meter[0] -= ep.nbytes
            ep.nbytes = 0
        if ep is not None:
            ep.tracker = None

    def adopt(self, ep: Episode) -> None:
        """Put ``ep``, rebuilt from the action log in another engine, in the
        place of the episode of its id (``store/undo.py``)."""
        self.discard(ep.id)
        size, ep.nbytes = ep.nbytes, 0
        if ep.status == SUBMITTED:
            ep.meter = self.meter
            self.episodes[ep.id] = ep
            self.lifetimes.ended_now(ep.id, time.monotonic())
            return
        self.register(ep, announce=False)
        self.tally.creates[ep.world.name] -= 1  # register counts a create; this is the same episode
        ep.nbytes = size
        self.meter[0] += size

    def delete(self, episode_id: str, project: str | None = None) -> dict:
        """``DELETE /episodes/{id}``: end an open episode (``deleted``) and free it."""
        ep = self.get(episode_id, project)
        if ep.status == SUBMITTING:
            raise errors.EpisodeSubmitting(f"episode {episode_id} is being scored; delete it once it is")
        if ep.status == OPEN:
            self.end(ep, "deleted")
        else:
            self.free(episode_id)
        return {"episode_id": episode_id, "status": endings.ENDED, "ended_by": ep.ended_by,
                "evaluation": ep.evaluation}

    def page(self, status: str | None = None, environment: str | None = None, task_id: str | None = None,
             page: PageRequest = PageRequest(), project: str | None = None) -> dict:
        """``GET /episodes``: summaries in episode id order (a stable order),
        live ones from memory and ended ones from the results store, only
        ``project``'s when given; one page (``pagination.paginate``)."""
        if status not in (None, "open", "submitting", "submitted", endings.ENDED):
            raise errors.InvalidRequest(f"status {status!r}: use open, submitting, submitted or ended")
        after = page.after[0] if page.after else ""
        if not isinstance(after, str):
            raise errors.InvalidRequest("cursor belongs to another list; pass this list's next_cursor")
        limit = page.limit

        def wanted(eid, ep) -> bool:
            return (eid > after and (environment is None or ep.world.name == environment)
                    and (task_id is None or (ep.task is not None and ep.task.id == task_id))
                    and (project is None or ep.project == project))

        found = {}
        if status != endings.ENDED:
            mine = [ep for eid, ep in self.episodes.items()
                    if (status is None or ep.status == status) and wanted(eid, ep)]
            for ep in heapq.nsmallest(limit + 1, mine, key=lambda e: e.id):
                found[ep.id] = ep.summary()
        if status in (None, endings.ENDED):
            for eid, ep in self.pending_results.items():  # ended, result not stored yet
                if wanted(eid, ep) and (status == endings.ENDED or eid not in self.episodes):
                    found.setdefault(eid, endings.summary(ep))
        if status in (None, endings.ENDED) and self.results is not None:
            for summary in self.results.page(after, limit + 1 + len(found), environment, task_id, project):
                if status == endings.ENDED or summary["episode_id"] not in self.episodes:
                    found.setdefault(summary["episode_id"], summary)
        return paginate(found.values(), key=lambda e: (e["episode_id"],), page=page)

    def take_snapshot(self, episode_id: str, snapshot_id: str | None = None, project: str | None = None,
                      name: str | None = None):
        """Snapshot an episode (open or ended, still in memory) of ``project``'s, when given."""
        ep = self.episodes.get(episode_id)
        if ep is None or (project is not None and ep.project != project):
            ep = self.get(episode_id, project)  # raises, saying why
        snap = self.snapshots.take(ep, snapshot_id, name)
        if self.journal is not None:
            self.journal.append(("p", ep.id, snap.id, snap.created_at, name))
        return snap

    def restore(self, episode_id: str, snapshot_id: str, project: str | None = None) -> Episode:
        """Put an open episode back to a snapshot of itself (``restore.py``)."""
        ep = self.get(episode_id, project)
        snap = self.snapshots.get(snapshot_id, project)
        restore.check(ep, snap)
        restore.restore(ep, snap)
        if self.journal is not None:
            self.journal.append(("r", ep.id, snap.id, ep.steps, ep.digest))
        return ep

    def delete_snapshot(self, snapshot_id: str, project: str | None = None):
        snap = self.snapshots.delete(snapshot_id, project)
        if self.journal is not None:
            self.journal.append(("pd", snapshot_id))
        return snap

    def take_results(self, most: int | None = None) -> list:
        """Rows of up to ``most`` episodes ended and not yet stored, oldest
        first, for the results store (they leave ``pending_results``)."""
        pending = self.pending_results
        ids = list(pending) if most is None else [eid for eid, _ in zip(pending, range(most))]
        return [endings.row(ep, ep.evaluation.get("state_diff") or {}) for ep in map(pending.pop, ids)]

    def take_journal(self) -> list:
        records, self.journal = self.journal, []
        return records

    def _evaluate(self, ep: Episode, output: str, verdicts: dict | None) -> dict:
        judge = None
        if verdicts is not None:
            def judge(check, _facts):
                return verdicts[check.id]
        facts = Facts(start=ep.start, end=ep.store, calls=ep.calls, output=output, judge=judge, trace=ep.trace)
        # The task's step budget gates pass, unless the client replaced the
        # task's checks with its own (then only those decide).
        budget = None
        if ep.task is not None and "template" in map(_SOURCE, ep.checks):
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
            "write_steps": ep.write_steps,
            "tool_errors": ep.tool_errors,
            "checks": scored["checks"],
            "failure_kind": failure_kind,
            "mask_sample": False,
            "training": ep.training,
            "state_diff": ep.world.by_world(facts.diff),
            "digest": ep.digest,
            "seed_digest": ep.seed_digest,
        }

    # -- memory --------------------------------------------------------------

    def sweep(self, now: float | None = None, most: int = 1000) -> int:
        """End up to ``most`` episodes past their deadline (idle, timeout,
        step_limit) and free ended ones kept long enough. Cost: what it ends
        and frees (``lifetimes.py``), never a pass over every episode."""
        now = time.monotonic() if now is None else now
        due = self.lifetimes.due(self.episodes, now, most)
        for ep, why in due:
            self.end(ep, why)
        for eid in self.lifetimes.to_free(now, most):
            self.free(eid)
        for sid in self.snapshots.expire(now):
            if self.journal is not None:
                self.journal.append(("pd", sid))
        if due:
            log.info("ended %d episodes past their deadline", len(due))
        return len(due)
