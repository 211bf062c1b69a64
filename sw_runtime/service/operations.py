"""``Service``: every operation a door can ask for, transport-free.

Bodies come in as the request's JSON bytes and are decoded here, once, into
``sw_runtime.schemas`` structs; answers go out as ``Reply``s (or, on the hot
path, bare JSON bytes; reads answer dicts). Errors are ``ApiError``s, which
each door turns into its own envelope.

``project`` is the caller's project, as the door authenticated it (None when
keys are off: the caller sees everything). Who may see what is decided here:
an episode or snapshot belongs to the project that made it, and another
project's id answers 404 exactly like an unknown one. Idempotency keys are
per project too. ``on_count``, on the batched operations, is called with the
number of calls or items once they are decoded and before any runs (a door's
rate limit counts calls, not requests; it may raise ``rate_limited``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import time

import msgspec
import orjson
from sw_core_ext import IMPLEMENTATION

from .. import __version__, errors, schemas
from ..config import Settings
from ..pagination import PageRequest
from ..engine import browse, custom_seeds, faults, views
from ..engine.engine import Engine
from ..engine.episode import OPEN, SUBMITTING
from ..engine.users import ASK_USER
from ..store import DataFolder
from ..verify import bind, custom, vocabulary
from ..worlds import composites, get_world, registry, world_of
from . import events, reads, shards
from .created import CreatedAnswers
from .idempotent import check_key, fingerprint, run_keyed
from .keys import IdempotencyKeys
from .reply import Reply
from .runs import RunOps
from .sweeper import sweep_forever, sweep_runs_forever

_dumps = orjson.dumps
_batch_decode = msgspec.json.Decoder(schemas.Batch).decode
_call_decoder = msgspec.json.Decoder(schemas.Call)


class Service(RunOps):
    """The one way in to one server's engine.

    Every operation that changes something is logged before it answers: the
    engine writes what it did to its journal and ``_logged`` hands the
    journal to the data folder (``sw_runtime.store``) as one line, after the
    idempotency key (if any) is bound, so the key and what it answered land
    together. ``start`` replays the folder's log first. The runs of reference
    001 and tool calls by token are ``RunOps``, in ``runs.py``.
    """

    def __init__(self, settings: Settings | None = None):
        self.settings = settings = (settings or Settings.from_env()).validate()
        self.engine = Engine(settings)
        self.keys = IdempotencyKeys(settings.idempotency_ttl, settings.max_idempotency_keys,
                                    settings.max_idempotency_bytes)
        self.data = DataFolder(settings)  # holds the folder's lock from here on
        # What a door may read before it hands a body over: the most it takes.
        self.max_body = settings.max_body
        self.max_seed_body = min(settings.max_seed_body, settings.max_body)  # bodies that may hold a state
        self._checks_body = vocabulary.listing()
        self._faults_body = {"fault_profiles": faults.listing()}
        self._sweeper: asyncio.Task | None = None
        self._opened = False
        self._runs_sweeper: asyncio.Task | None = None
        self.init_runs()
        self._listeners: list = []
        self._hearing: list = []  # each listener's hears (listen), or None
        self.engine.on_event = self._on_event
        # Where GET /cluster reads the shards from, in a cluster whose members
        # change (set by the cluster door: cluster/members.py); None: the peers are fixed.
        self.membership = None

    # -- running ---------------------------------------------------------------

    async def start(self) -> None:
        """Replay the data folder's log (once), then start background work:
        the sweep that ends episodes past their deadlines."""
        if not self._opened:
            self._opened = True
            self.data.open(self.engine, self.keys)
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(sweep_forever(self.engine, self.data))
            self._runs_sweeper = asyncio.create_task(sweep_runs_forever(self))

    async def stop(self) -> None:
        for task in (self._sweeper, self._runs_sweeper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._sweeper = self._runs_sweeper = None
        if self._opened:
            self._commit()
            self.data.store_results(self.engine)
            self.data.close()
            self._opened = False

    async def drain(self, deadline: float) -> int:
        """Take no new episodes; wait up to ``deadline`` seconds for the open
        ones to end, then end the rest (``ended_by: "drained"``, scored and
        stored as any ending). Answers how many it ended."""
        engine = self.engine
        engine.draining = True
        until = time.monotonic() + deadline
        while engine.live > 0 and time.monotonic() < until:
            await asyncio.sleep(0.1)
        ended = 0
        for ep in [e for e in engine.episodes.values() if e.status == OPEN]:
            engine.end(ep, "drained")
            ended += 1
        self._commit()
        self.data.store_results(engine)
        return ended

    def cluster(self) -> list | None:
        """The shards of this server's cluster as its membership lists them
        (``[{shard, url, node_id, node, state}]``), or None when its peers
        are fixed (``Settings.peers``, or a lone server)."""
        return self.membership.shards() if self.membership is not None else None

    def health(self) -> dict:
        return {"ok": True, "version": __version__, "core": IMPLEMENTATION, "episodes": len(self.engine.episodes),
                "open": self.engine.live, "boot_id": self.engine.ids.boot, "read_cache": self.engine.reads.stats(),
                **self.data.health()}

    def log_writable(self) -> bool:
        """Whether the action log takes writes (``/readyz``): False after the
        disk refused a line, until it takes one again."""
        return self.data.writable()

    def log_intact(self) -> bool:
        """Whether every acknowledged line of the action log was read back at
        the start (``/readyz``): False when a damaged one left the server read-only."""
        return self.data.damaged is None

    def _commit(self) -> None:
        """Log what the engine did since the last commit (one line), and store
        the results of episodes that ended."""
        self.data.commit(self.engine)

    async def _logged(self, operation):
        try:
            self.data.check_writable()  # a full disk: refused before anything changes
        except errors.ApiError:
            operation.close()
            raise
        try:
            return await operation
        finally:
            self._commit()

    def metrics(self) -> dict:
        """Counts for ``/metrics``: steps, creates, submits by world, refusals
        by code, live episodes (open or being scored: what the cap counts, and
        ``/healthz`` ``open``), episodes held in memory (those and ended ones
        kept a while: ``/healthz`` ``episodes``), idempotency keys remembered."""
        return {**self.engine.tally.snapshot(), "live_episodes": self.engine.live,
                "held_episodes": len(self.engine.episodes), "idempotency_keys": len(self.keys)}

    def usage(self, *, project: str | None = None) -> dict:
        """``GET /usage``: what ``project`` holds against the server's caps (the
        whole server when ``project`` is None: keys off). A project's counts
        walk the episodes in memory once; the server's are kept as they go."""
        s, engine = self.settings, self.engine
        if project is None:
            open_episodes, snapshots = engine.live, len(engine.snapshots)
        else:
            open_episodes = sum(1 for ep in engine.episodes.values()
                                if ep.project == project and (ep.status == OPEN or ep.status == SUBMITTING))
            snapshots = engine.snapshots.count(project)
        runs = sum(1 for r in self.book.open.values() if project is None or r.ep.project == project)
        return {
            "project": project,
            "open_episodes": open_episodes,
            "open_runs": runs,
            "snapshots": snapshots,
            "caps": {"max_episodes": s.max_episodes, "max_snapshots": s.max_snapshots,
                     "step_limit": s.step_limit, "idle_timeout_seconds": s.idle_timeout,
                     "timeout_seconds": s.max_age},
            "server": {"open_episodes": engine.live, "snapshots": len(engine.snapshots),
                       "trace_bytes": engine.meter[0], "max_trace_bytes": s.max_live_bytes},
        }

    def listen(self, listener, hears=None) -> None:
        """Call ``listener(event, project, data)`` for each lifecycle event
        (``service/events.py``). Listeners must not block: they run on the
        stepping path (the webhook dispatcher only queues). ``hears(event,
        project)``, when given, says whether the listener would do anything
        with such an event now: a batch create asks it once per slice of
        episodes rather than announce each episode to a listener that has
        no use for it (the webhook dispatcher looks its subscriptions up per
        event: a tenth of a batch create)."""
        self._listeners.append(listener)
        self._hearing.append(hears)

    def _heard(self, event: str, project: str | None) -> bool:
        """Whether a listener may hear ``event`` about an episode of ``project``."""
        return any(hears is None or hears(event, project) for hears in self._hearing)

    def _on_event(self, kind: str, ep, detail) -> None:
        if not self._listeners:
            return
        for event, data in events.of(kind, ep, detail):
            for listener in self._listeners:
                listener(event, ep.project, data)

    def shards(self, own_url: str) -> dict:
        """``GET /cluster``: this server's shard and the cluster's shards: as its
        membership lists them on a cluster on Ray (each with its node and state),
        else from ``Settings.peers`` in shard order (alone, itself at ``own_url``)."""
        members = self.cluster()
        if members is not None:
            return {"shard": self.settings.shard, "shards": members}
        return shards.listing(self.settings.shard, self.settings.peers, own_url)

    # -- the catalogue -----------------------------------------------------------

    def environments(self) -> dict:
        return {"environments": [w.describe(full=False) for w in registry().values()],
                "composites": [w.describe(full=False) for w in composites()]}

    def environment(self, name: str) -> dict:
        return get_world(name).describe()

    def checks(self) -> dict:
        return self._checks_body

    def fault_profiles(self) -> dict:
        return self._faults_body

    def render_checks(self, body: bytes) -> dict:
        """Checks as their sentences (``POST /checks/render``), checked against a world if named."""
        req = schemas.decode(schemas.RenderChecks, body)
        world = get_world(req.environment) if req.environment is not None else None
        return {"environment": req.environment, "lines": custom.render(req.checks, world)}

    def bind_checks(self, body: bytes) -> dict:
        """Sentences bound to the checks they stand for (``POST /checks/bind``,
        reference 003; ``verify/bind.py``). An unknown world is no error:
        every result is ``"not_checked"``, there being nothing to bind against."""
        req = schemas.decode(schemas.BindChecks, body)
        if req.environment is not None and req.environment not in registry():
            bind.bind(req.sentences, None)  # the sentences' own shape is still checked
            return {"environment": req.environment, "results": ["not_checked"] * len(req.sentences)}
        world = get_world(req.environment) if req.environment is not None else None
        return {"environment": req.environment, "results": bind.bind(req.sentences, world)}

    # -- the episode lifecycle ---------------------------------------------------

    async def create(self, environment: str | None, body: bytes, key: str | None = None, *,
                     project: str | None = None) -> Reply:
        async def run():
            req = schemas.decode(schemas.CreateEpisode, body, empty_ok=True)
            start = await self._prepared_start(environment, req)
            await self.engine.users.check(req.user_simulator)  # 400/503 now, not masked trials later
            ep = self.engine.create(environment, req, start, project=project)
            return Reply(_dumps(self._created(ep)), created=True)

        return await self._logged(run_keyed(self.keys, _scope("episodes.create", project), key, environment or "",
                                            body, run))

    async def create_many(self, body: bytes, key: str | None = None, *, project: str | None = None,
                          on_count=None) -> Reply:
        async def run():
            items = self._items(schemas.BatchCreate, body)
            if on_count is not None:
                on_count(len(items))
            refused = await self._check_users(items)
            answers = CreatedAnswers(self._created, self.book.issue)
            for i in range(0, len(items), _CREATE_SLICE):  # the loop serves others between slices
                if i:
                    self._commit()
                    await asyncio.sleep(0)
                part = {k - i: e for k, e in refused.items() if i <= k < i + _CREATE_SLICE}
                heard = self._heard(events.CREATED, project)
                for slot in self.engine.create_many(items[i:i + _CREATE_SLICE], project, part, heard):
                    if isinstance(slot, errors.ApiError):
                        answers.refused(slot)
                    else:
                        answers.episode(*slot)
            return Reply(answers.body())

        return await self._logged(run_keyed(self.keys, _scope("batch.create", project), key, "", body, run))

    async def step(self, episode_id: str, body: bytes, *, project: str | None = None) -> bytes:
        """One call: the step's answer as JSON."""
        self.data.check_writable()
        req = schemas.decode(schemas.Step, body)
        args_json = bytes(req.arguments)
        if req.tool == ASK_USER and not req.dry_run:
            await self._prepare_user(episode_id, _lenient(args_json), project=project)
        try:
            return self.engine.step_json(episode_id, req.tool, args_json, req.dry_run, project)
        finally:
            self._commit()

    async def batch(self, body: bytes, *, project: str | None = None, on_count=None) -> bytes:
        """Many calls to many episodes: ``{"results": [...]}`` as JSON, in call order."""
        return b"".join(await self.batch_chunks(body, project=project, on_count=on_count))

    async def batch_keyed(self, body: bytes, key: str, *, project: str | None = None, on_count=None) -> Reply:
        """``batch`` under an Idempotency-Key: a retry gets the first answer
        again. The last slice's steps and the key reach the log in one line;
        each slice before it is logged with how far the batch got (``kb``), so
        a batch a crash cut off answers its retry 409 ``batch_partly_applied``
        with the number of calls that ran, and runs none of them twice."""
        scope = _scope("batch", project)
        check_key(key)
        self.keys.check_partial(scope, key, fingerprint(scope, "", body))

        async def run():
            expires = time.time() + self.keys.ttl
            progress = (scope, key, fingerprint(scope, "", body), expires)
            chunks = await self.batch_chunks(body, project=project, on_count=on_count, progress=progress)
            return Reply(b"".join(chunks))

        return await self._logged(run_keyed(self.keys, scope, key, "", body, run))

    async def batch_chunks(self, body: bytes, *, project: str | None = None, on_count=None,
                           progress: tuple | None = None) -> list:
        """``batch`` as a list of byte chunks to send one after the other.

        A large batch is decoded and run in slices of ``SLICE`` calls, the
        event loop serving other requests between them (a 100,000-call batch
        must not stall ``/healthz``). Results stay in call order and each
        episode's calls in order; each slice is logged before the loop moves
        on, so the log keeps the order in which steps ran. The chunks are not
        joined: copying tens of MB into one buffer stalls the loop too.
        """
        self.data.check_writable()
        if len(body) > _BIG:
            calls = await _decode_in_slices(body)
        else:
            try:
                calls = _batch_decode(body).calls  # the whole batch in one typed pass
            except (msgspec.DecodeError, RecursionError):
                # Something is off: decode call by call, so a malformed call
                # fails only its own slot (and bad JSON is still invalid_json).
                calls = [_decode_call(raw) for raw in schemas.decode(schemas.LooseBatch, body).calls]
        if len(calls) > self.settings.max_batch:
            raise errors.InvalidRequest(
                f"{len(calls)} calls in one batch; at most {self.settings.max_batch}: split it")
        if on_count is not None:
            on_count(len(calls))
        for c in calls:
            if not isinstance(c, errors.ApiError) and c.tool == ASK_USER:
                calls = await self._prepare_users(calls, project)
                break
        engine = self.engine
        if len(calls) <= SLICE:
            if progress is not None:  # keyed: logged with its key, by batch_keyed
                return [engine.batch_json(calls, project)]
            try:
                return [engine.batch_json(calls, project)]
            finally:
                self._commit()
        chunks = []
        for i in range(0, len(calls), SLICE):
            parts = [b'{"results":[' if i == 0 else b","]
            last = i + SLICE >= len(calls)
            try:
                engine.batch_parts(calls[i:i + SLICE], parts, project)
            finally:
                if progress is None or not last:
                    if progress is not None and engine.journal is not None:
                        scope, key, fp, expires = progress
                        engine.journal.append(("kb", scope, key, fp, i + SLICE, len(calls), expires))
                    self._commit()
            if last:
                parts.append(b"]}")
            chunks.append(b"".join(parts))
            await asyncio.sleep(0)
        return chunks

    async def submit(self, episode_id: str, body: bytes, key: str | None = None, *,
                     project: str | None = None) -> Reply:
        async def run():
            req = schemas.decode(schemas.Submit, body, empty_ok=True)
            return Reply(_dumps(await self._submit(episode_id, req.output, project)))

        return await self._logged(run_keyed(self.keys, _scope("episodes.submit", project), key, episode_id, body, run))

    async def submit_many(self, body: bytes, key: str | None = None, *, project: str | None = None,
                          on_count=None) -> Reply:
        async def run():
            out = []
            items = self._items(schemas.BatchSubmit, body)
            if on_count is not None:
                on_count(len(items))
            for raw in items:
                episode_id = None
                try:
                    req = schemas.decode_item(schemas.SubmitItem, raw)
                    episode_id = req.episode_id
                    out.append(await self._submit(episode_id, req.output, project))
                except errors.ApiError as e:
                    out.append({"episode_id": episode_id, "ok": False, "error": e.slot()})
            return Reply(_dumps({"results": out}))

        return await self._logged(run_keyed(self.keys, _scope("batch.submit", project), key, "", body, run))

    async def fork(self, episode_id: str, body: bytes, key: str | None = None, *,
                   project: str | None = None) -> Reply:
        async def run():
            req = schemas.decode(schemas.Fork, body, empty_ok=True)
            src, children = self.engine.fork(episode_id, req.n, project=project)
            return Reply(_dumps(views.fork_group(src, children)), created=True)

        return await self._logged(run_keyed(self.keys, _scope("episodes.fork", project), key, episode_id, body, run))

    # -- reading -------------------------------------------------------------------

    def episode(self, episode_id: str, *, project: str | None = None) -> dict:
        """An episode read back: from memory, else from the results store
        (``status: "ended"``) once it has left memory."""
        return self.engine.describe(episode_id, project)

    async def episode_json(self, episode_id: str, *, project: str | None = None) -> bytes:
        """``episode`` as JSON, without holding the event loop for a long trace
        or a read of the results store (``reads.py``)."""
        return await reads.episode_json(self.engine, episode_id, project)

    def episodes(self, status: str | None = None, environment: str | None = None, task_id: str | None = None,
                 page: PageRequest = PageRequest(), *, project: str | None = None) -> dict:
        """Episodes, live and ended, filtered, in pages of stable (id) order."""
        return self.engine.page(status, environment, task_id, page, project)

    def heartbeat(self, episode_id: str, *, project: str | None = None) -> dict:
        """Keep an open episode alive without a step (a long model turn): its
        idle window starts again now. Answers its new ``expires_at``. A run's
        episode is kept alive as a run too (its idle window is 001's)."""
        ep = self.engine.heartbeat(episode_id, project)
        run = self.book.of_episode(episode_id)
        if run is not None:
            self.book.heartbeat(run)
        return views.lifetime(ep)

    def browse(self, filters: browse.Filters, page: PageRequest = PageRequest(), *,
               project: str | None = None) -> dict:
        """Episodes newest first, with the viewer's filters and each one's score
        and pass (``engine/browse.py``)."""
        return browse.browse(self.engine, filters, page, project)

    def live_changes(self, episode_id: str, *, project: str | None = None) -> dict | None:
        """What an episode still in memory changed so far (the ``state_diff``
        its submit would answer), or None once it has left memory."""
        ep = self.engine.episodes.get(episode_id)
        if ep is None or (project is not None and ep.project != project):
            return None
        return ep.world.by_world(ep.store.diff(ep.start))  # keyed by world, then collection, on a composite

    def snapshots_of(self, episode_id: str, *, project: str | None = None) -> list:
        return self.engine.snapshots.of(episode_id, project)

    def episode_brief(self, episode: dict, *, project: str | None = None) -> dict:
        """What an episode read does not repeat: its instruction and policy.
        From memory while the episode is there; for an ended one that started
        from a seed, made again from the seed (a task's setup is a function of
        its seeded state); otherwise unknown (None)."""
        ep = self.engine.episodes.get(episode["episode_id"])
        if ep is not None and (project is None or ep.project == project):
            world, task = ep.world, ep.task
            policy = f"{world.policy}\n\n{task.policy}" if task is not None and task.policy else world.policy
            return {"instruction": ep.setup.instruction if ep.setup else None, "policy": policy}
        if episode.get("task_id") and episode.get("start") == "seed" and episode.get("seed") is not None:
            with contextlib.suppress(errors.ApiError):
                got = self.task_preview(episode["environment"], episode["task_id"], episode["seed"])
                return {"instruction": got["instruction"], "policy": got["policy"]}
        return {"instruction": None, "policy": None}

    def task_preview(self, environment: str, task_id: str, seed: int = 0) -> dict:
        """A task made concrete for a seed, as an episode would start it: the
        instruction, the policy and each check's sentence."""
        world = get_world(environment)
        task = world.tasks_by_id.get(task_id)
        if task is None:
            raise errors.NotFound(f"{environment} has no task {task_id!r}")
        setup, _ = self.engine.seeds.setup(world, task, self.engine.seeds.get(world, seed))
        return {"environment": environment, "task_id": task.id, "title": task.title, "seed": seed,
                "instruction": setup.instruction, "step_budget": task.step_budget,
                "policy": f"{world.policy}\n\n{task.policy}" if task.policy else world.policy,
                "checks": [{"id": c.id, "weight": c.weight, "label": c.label or custom.describe(c)}
                           for c in setup.checks]}

    def delete(self, episode_id: str, *, project: str | None = None) -> dict:
        """End an episode (``ended_by: "deleted"``, scored) and free it."""
        self.data.check_writable()
        try:
            return self.engine.delete(episode_id, project)
        finally:
            self._commit()

    def state(self, episode_id: str, collections: list | None = None, *, project: str | None = None) -> dict:
        """An episode's state dump: live, or its end state once ended (also from
        the results store once it left memory: ``engine/ended_state.py``)."""
        return views.state(self.engine.state_of(episode_id, project), collections)

    async def state_json(self, episode_id: str, collections: list | None = None, *,
                         project: str | None = None) -> bytes:
        """``state`` as JSON, a large state encoded in slices (``reads.py``)."""
        return await reads.state_json(self.engine.state_of(episode_id, project), collections)

    # -- snapshots -----------------------------------------------------------------

    def take_snapshot(self, episode_id: str, body: bytes = b"", *, project: str | None = None) -> Reply:
        req = schemas.decode(schemas.CreateSnapshot, body, empty_ok=True)
        self.data.check_writable()
        try:
            snap = self.engine.take_snapshot(episode_id, project=project, name=req.name)
        finally:
            self._commit()
        return Reply(_dumps(snap.describe()), created=True)

    def restore(self, episode_id: str, body: bytes, *, project: str | None = None) -> dict:
        """Put an open episode back to a snapshot of itself: its state, clock and
        step count; the trace keeps what came after, marked undone, and a
        ``restored`` row (``engine/restore.py``). Logged like a step."""
        req = schemas.decode(schemas.Restore, body)
        self.data.check_writable()
        try:
            ep = self.engine.restore(episode_id, req.snapshot_id, project)
        finally:
            self._commit()
        return views.summary(ep)

    def snapshot(self, snapshot_id: str, *, project: str | None = None) -> dict:
        return self.engine.snapshots.get(snapshot_id, project).describe()

    def delete_snapshot(self, snapshot_id: str, *, project: str | None = None) -> dict:
        self.data.check_writable()
        try:
            snap = self.engine.delete_snapshot(snapshot_id, project)
        finally:
            self._commit()
        return {"snapshot_id": snap.id, "deleted": True}

    def snapshots(self, page: PageRequest, episode_id: str | None = None, *, project: str | None = None) -> dict:
        """One page of the snapshots ``project`` may see, in the order taken;
        only ``episode_id``'s when given."""
        return self.engine.snapshots.page(page, project, episode_id)

    # -- custom seeds --------------------------------------------------------------

    async def validate_seed(self, environment: str, body: bytes) -> dict:
        """Check a custom state (and a task on it) without starting anything:
        ``{valid, checked, unchecked, ...}``, or 422 ``invalid_seed`` with its
        issues (reference 003). Parsing a large state takes real time: it runs
        off the event loop."""
        req = schemas.decode(schemas.ValidateSeed, body)
        world = world_of(environment, req.environments)
        return await asyncio.to_thread(custom_seeds.validate, world, req.state, req.task_id, req.seed)

    # -- helpers -----------------------------------------------------------------

    def _created(self, ep) -> dict:
        body = views.created(ep)
        body.update(self.tools_links(ep.id))
        return body

    def _items(self, kind, body: bytes) -> list:
        req = schemas.decode(kind, body)
        most = self.settings.max_batch_episodes
        if len(req.episodes) > most:
            raise errors.InvalidRequest(
                f"{len(req.episodes)} episodes in one request; at most {most} (SW_MAX_BATCH_EPISODES): split it"
            )
        return req.episodes

    async def _check_users(self, items: list) -> dict:
        """Batch-create items whose user simulator cannot answer: ``{index: ApiError}``."""
        refused = {}
        unchecked = set()  # items (by their bytes) with no llm user to check: a group repeats one
        for i, raw in enumerate(items):
            item = bytes(raw)
            if item in unchecked:
                continue
            try:
                req = schemas.decode_item(schemas.CreateItem, raw)
            except errors.ApiError:
                unchecked.add(item)
                continue  # create_many answers it in its slot
            if req.user_simulator in (None, "scripted"):
                unchecked.add(item)
            else:
                try:
                    await self.engine.users.check(req.user_simulator)
                except errors.ApiError as e:
                    refused[i] = e
        return refused

    async def _prepared_start(self, environment: str, req):
        """A create request's custom state, validated and built off the event
        loop (``None`` when it has none: the engine takes it from there)."""
        if req.state is None or req.snapshot_id is not None:
            return None
        world = world_of(environment, req.environments)
        task = world.tasks_by_id.get(req.task_id) if req.task_id is not None else None
        return await asyncio.to_thread(custom_seeds.prepare, world, req.state, task, req.seed)

    async def _submit(self, episode_id: str, output: str, project: str | None = None) -> dict:
        """Score an episode, atomically: it is ``submitting`` while the judge
        is asked, so steps, forks and another submit answer 409 and the judge
        is asked once. A second submit of a submitted episode answers its
        first evaluation again (reference 003's idempotent finalize: never
        scored twice, whatever the output); one the server ended otherwise
        (idle, timeout, deleted) is 409 ``episode_closed`` with ``ended_by``."""
        engine = self.engine
        try:
            ep = engine.begin_submit(episode_id, project)
        except errors.EpisodeClosed:
            done = engine.finished_evaluation(episode_id, project)
            if done is None:
                raise
            return done
        try:
            verdicts = await engine.judge.decide(ep, output)
        except BaseException:
            engine.abort_submit(ep)
            raise
        return engine.submit(episode_id, output, verdicts, project)

    async def _prepare_user(self, episode_id: str, arguments, pending: list | None = None,
                            project: str | None = None) -> None:
        """Fetch an llm user's reply before the engine runs the ask_user call."""
        engine = self.engine
        ep = engine.episodes.get(episode_id)
        if ep is not None and (project is None or ep.project == project) and ep.user is not None \
                and ep.user.kind == "llm" and ep.status == "open":
            await engine.users.prepare(ep, arguments, pending)

    async def _prepare_users(self, calls: list, project: str | None = None) -> list:
        """Fetch llm users' replies for a batch's ask_user calls, in call order;
        a call whose reply cannot be had fails in its own slot."""
        pending: dict = {}
        out = []
        for call in calls:
            if not isinstance(call, errors.ApiError) and call.tool == ASK_USER and not call.dry_run:
                asked = pending.setdefault(call.episode_id, [])
                arguments = _lenient(bytes(call.arguments))
                try:
                    await self._prepare_user(call.episode_id, arguments, asked, project)
                except errors.ApiError as e:
                    e.extra.setdefault("episode_id", call.episode_id)
                    out.append(e)
                    continue
                question = arguments.get("question") if isinstance(arguments, dict) else None
                if isinstance(question, str):
                    asked.append(question)
            out.append(call)
        return out


SLICE = 256  # calls run between two turns of the event loop in a large batch
_BIG = 1 << 20  # batch bodies past this are decoded in slices too
_CREATE_SLICE = 128  # episodes created between two turns of the event loop in a batch create


async def _decode_in_slices(body: bytes) -> list:
    raws = schemas.decode(schemas.LooseBatch, body).calls  # one pass that keeps each call raw
    calls = []
    for i in range(0, len(raws), SLICE * 8):
        calls += [_decode_call(raw) for raw in raws[i:i + SLICE * 8]]
        await asyncio.sleep(0)
    return calls


def _scope(operation: str, project: str | None) -> str:
    """An idempotency scope per project: one project's key never replays another's answer."""
    return operation if project is None else f"{operation}@{project}"


def _lenient(args_json: bytes):
    """Arguments as a value, or None when they are not JSON (the engine then
    answers invalid_arguments in the call's own slot)."""
    try:
        return msgspec.json.decode(args_json)
    except (msgspec.DecodeError, RecursionError):
        return None


def _decode_call(raw):
    try:
        return _call_decoder.decode(raw)
    except RecursionError:
        return errors.InvalidJson("a call nests too deeply; flatten it")
    except msgspec.ValidationError as e:
        return errors.InvalidRequest(schemas.explain(e))
    except msgspec.DecodeError as e:  # cannot happen inside valid JSON, but say so if it does
        return errors.InvalidJson(f"a call is not valid JSON: {e}")
