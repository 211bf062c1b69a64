"""The service's run operations (reference 001) and tool calls by token.

Part of the one way in to the engine (``Service`` mixes in ``RunOps``):
the runs API, the tools at the real APIs' addresses and MCP all come here,
so a call through any of them is the same engine call as a ``step``, with the
same trace entry and digest. Transport-free: doors decode into the typed
values below and encode what comes back.
"""

from __future__ import annotations

import hashlib
import logging
import math
from dataclasses import dataclass, field

import orjson

from .. import errors, schemas
from ..engine.engine import Engine
from ..engine.runs import ENDINGS, TOKEN_PREFIX, Run, RunBook, RunOptions, episode_id_of, wall
from ..verify.score import BUDGET_ID
from ..worlds import get_world, registry

__all__ = ["BUDGET_ID", "ENDINGS", "run_passed", "TOKEN_PREFIX", "RunOps", "RunRequest", "episode_id_of", "wall"]  # what doors may use

log = logging.getLogger("sandworld.runs")
_GRACE = 120  # seconds


@dataclass(slots=True)
class RunRequest:
    """``POST /v1/runs`` decoded (the runs door checks ranges and shapes)."""

    environment: str
    task: str
    checks: list = field(default_factory=list)  # dicts in the engine's check vocabulary
    replace_template_checks: bool = False
    agent_name: str | None = None
    agent_revision: str | None = None
    max_calls: int = 500
    idle_timeout_seconds: int = 600
    timeout_seconds: int = 3600
    metadata: dict = field(default_factory=dict)
    seed: int = 0
    group_id: str | None = None  # reference 003's trial group: runs of one task read back together
    idempotency_key: str | None = None
    canonical: bytes = b""  # the request in canonical form, what an idempotency key is bound to


def _matches(run: Run, f: dict) -> bool:
    ep, o = run.ep, run.options
    return ((f.get("status") is None or run.status == f["status"])
            and (f.get("environment") is None or ep.world.name == f["environment"])
            and (f.get("task") is None or (ep.task is not None and ep.task.id == f["task"]))
            and (f.get("agent") is None or o.agent_name == f["agent"])
            and (f.get("group_id") is None or o.group_id == f["group_id"]))


def run_passed(ev: dict) -> bool | None:
    """A run's ``passed`` as 001 has it: every check passed (the step budget
    is not one of a run's checks); None when it had no checks."""
    checks = [c for c in ev["checks"] if c["id"] != BUDGET_ID]
    return all(c["pass"] is True for c in checks) if checks else ev["pass"]


def pass_hat_k(n: int, c: int) -> dict:
    """pass^k for k = 1..n (tau-bench): the chance that k trials drawn from
    ``n`` of which ``c`` passed all pass, ``C(c, k) / C(n, k)``, to 4 places."""
    return {str(k): round(math.comb(c, k) / math.comb(n, k), 4) for k in range(1, n + 1)}


def trial_group(group_id: str, runs: list) -> dict:
    """A trial group read back (reference 003): its runs, how many are scored
    and passed, and pass^k over the scored ones. Its spread is the agent's
    reliability rather than its best day."""
    scored = [r for r in runs if r.status == "done" and r.ep.evaluation is not None
              and run_passed(r.ep.evaluation) is not None]
    passed = sum(1 for r in scored if run_passed(r.ep.evaluation) is True)
    tasks = sorted({r.ep.task.id for r in runs if r.ep.task is not None})
    return {"group_id": group_id, "runs": len(runs), "scored": len(scored), "passed": passed, "tasks": tasks,
            "pass_hat_k": pass_hat_k(len(scored), passed) if scored else {}}


def resolve_task(world, text: str):
    """A task by id, else by title (case-insensitive), else None (free text).
    An unknown ``task_…`` id is refused."""
    task = world.tasks_by_id.get(text)
    if task is not None:
        return task
    folded = text.strip().casefold()
    for t in world.tasks:
        if t.title.casefold() == folded:
            return t
    if text.startswith("task_") and " " not in text.strip():
        raise errors.InvalidRequest(f"unknown task id: {text}")
    return None


class RunOps:
    """Mixed into ``Service``: the run operations and tool calls by token."""

    engine: Engine

    async def _logged(self, operation):
        """Run ``operation``. (``Service`` overrides this to write what it did
        to the action log before the answer goes out.)"""
        return await operation

    def init_runs(self) -> None:
        self.book = RunBook()
        self._run_clocks: dict = {}

    # -- the catalogue in 001's terms ----------------------------------------

    def environment_facts(self, name: str) -> dict:
        """A world, its seed-0 digest and each task made concrete on seed 0."""
        world = get_world(name)
        seed = self.engine.seeds.get(world, 0)
        tasks = [(t, self.engine.seeds.setup(world, t, seed)[0]) for t in world.tasks]
        return {"world": world, "seed_digest": seed.digest, "tasks": tasks}

    def world(self, name: str):
        """A world by name (its title, tools and version, for a door to show)."""
        return get_world(name)

    def environment_names(self) -> list:
        return sorted(registry())

    # -- runs ----------------------------------------------------------------

    async def create_run(self, req: RunRequest, project: str | None = None) -> Run:
        """Start a run; the same ``idempotency_key`` with the same request answers the first run."""
        return await self._logged(self._create_run(req, project))

    async def _create_run(self, req: RunRequest, project: str | None) -> Run:
        key = req.idempotency_key
        fingerprint = hashlib.sha256(req.canonical).digest()
        if key is not None:
            seen = self.book.create_keys.get((project, key))
            if seen is not None:
                if seen[0] != fingerprint:
                    raise errors.IdempotencyConflict("this idempotency_key was used with a different request body")
                return self._run(seen[1], project)
        world = get_world(req.environment)
        task = resolve_task(world, req.task)
        ep = self.engine.create(world.name, schemas.CreateEpisode(
            task_id=task.id if task is not None else None, seed=req.seed, agent_name=req.agent_name,
            checks=req.checks or None, replace_template_checks=req.replace_template_checks), project=project)
        # The run's own call cap. The engine forgets the episode a little after
        # the run's own endings are due, so the run is always ended and scored first.
        clock = self._run_clock(world, req.max_calls) if len(ep.clock) <= req.max_calls else None
        self.engine.limit(ep, req.max_calls, req.idle_timeout_seconds + _GRACE, req.timeout_seconds + _GRACE, clock)
        text = ep.setup.instruction if task is not None else req.task
        run = self.book.add(ep, RunOptions(
            max_calls=req.max_calls, idle_timeout_seconds=req.idle_timeout_seconds,
            timeout_seconds=req.timeout_seconds, agent_name=req.agent_name, agent_revision=req.agent_revision,
            metadata=req.metadata, task_text=text, group_id=req.group_id))
        if key is not None:
            self.book.create_keys[(project, key)] = (fingerprint, run.id)
        return run

    def _run(self, run_id: str, project: str | None) -> Run:
        """A run, if the caller's project may see it (another project's is 404 like an unknown one)."""
        run = self.book.get(run_id)
        if project is not None and run.ep.project != project:
            raise errors.NotFound(f"no run {run_id!r}")
        return run

    async def read_run(self, run_id: str, project: str | None = None) -> Run:
        """A run; reading ends a run that is due (idle or timed out), and that
        ending is in the action log before the read is answered."""
        run = self._run(run_id, project)
        await self._logged(self._end_if_due(run))
        return run

    async def list_runs(self, filters: dict, limit: int, before: int | None = None,
                        project: str | None = None) -> tuple:
        """Runs newest first, ``limit`` at a time before the run of creation
        number ``before``: ``(runs, next_before or None, group or None)``.
        ``filters``: ``status``, ``environment``, ``task`` (a task id),
        ``agent`` (its name), ``group_id``; with ``group_id``, ``group`` sums
        up the trial group (``trial_group``). Runs that are due end first."""
        for run, why in self.book.due():
            await self._logged(self._end(run, why))
        mine = [r for r in reversed(self.book.runs.values())
                if (project is None or r.ep.project == project) and _matches(r, filters)]
        group = trial_group(filters["group_id"], mine) if filters.get("group_id") is not None else None
        if before is not None:
            mine = [r for r in mine if r.seq < before]
        page = mine[:limit]
        return page, (page[-1].seq if len(mine) > limit else None), group

    async def finish_run(self, run_id: str, output: str, key: str | None = None,
                         project: str | None = None) -> Run:
        """End a run on purpose and score it. A second finish is ``run_ended``
        unless it repeats the first one's idempotency key."""
        return await self._logged(self._finish_run(run_id, output, key, project))

    async def _finish_run(self, run_id: str, output: str, key: str | None, project: str | None) -> Run:
        run = self._run(run_id, project)
        await self._end_if_due(run)
        if run.ended_by is not None:
            if key is not None and key == run.finish_key:
                return run
            raise errors.RunEnded(f"run {run.id} ended ({run.ended_by}) at {run.finished_at}; it cannot be "
                                  "finished again")
        run.finish_key = key
        await self._end(run, "finish", output)
        return run

    async def heartbeat_run(self, run_id: str, project: str | None = None) -> Run:
        """Keep a run alive without a call (a long model turn): its idle window
        starts again now. A run that is due ends first, then answers ``run_ended``."""
        run = self._run(run_id, project)
        await self._logged(self._end_if_due(run))
        if run.ended_by is not None:
            raise errors.RunEnded(f"run {run.id} ended ({run.ended_by}) at {run.finished_at}; a heartbeat keeps "
                                  "only a live run alive")
        self.book.heartbeat(run)
        if run.ep.status == "open":
            self.engine.heartbeat(run.ep.id)
        return run

    async def run_tools(self, run_id: str, project: str | None = None) -> Run:
        """A run whose tools still answer (``run_ended`` once it has ended)."""
        run = self._run(run_id, project)
        await self._logged(self._end_if_due(run))
        if run.ended_by is not None:
            raise errors.RunEnded("The run has ended; its tools no longer answer.")
        return run

    async def sweep_runs(self) -> int:
        """End every run that is due; answers how many."""
        return await self._logged(self._sweep_runs())

    async def _sweep_runs(self) -> int:
        due = self.book.due()
        for run, why in due:
            await self._end(run, why)
        return len(due)

    # -- tool calls (any door) -----------------------------------------------

    def tools_links(self, episode_id: str) -> dict:
        """What an ``/api/v1`` create adds: the episode's tools token and its
        tools addresses (the real APIs' paths and MCP)."""
        base = f"/api/v1/episodes/{episode_id}"
        return {"tools_token": self.book.issue(episode_id), "tools_url": f"{base}/tools", "mcp_url": f"{base}/mcp"}

    def authorize(self, episode_id: str, token: str | None):
        """The episode behind a tools address, if ``token`` opens it; else 401."""
        if not self.book.opens(token, episode_id):
            raise errors.Unauthorized("a valid run token is required: Authorization: Bearer tw_run_… "
                                      "(the token of this run or episode)")
        run = self.book.of_episode(episode_id)
        return run.ep if run is not None else self.engine.get(episode_id)

    def tool_definition(self, episode_id: str, token: str | None, name: str) -> dict | None:
        """One tool the episode offers, as ``step`` serves it (None: it has no such tool)."""
        world = self.authorize(episode_id, token).world
        tool = world.tools_by_name.get(world.served(name))
        return tool.definition() if tool is not None else None

    def tool_definitions(self, episode_id: str, token: str | None) -> list:
        """The tools the episode offers, as ``step`` serves them."""
        return self.authorize(episode_id, token).tool_definitions()

    async def tool_call(self, episode_id: str, token: str | None, tool: str, args_json: bytes, surface: str) -> dict:
        """One tool call through a door other than ``step``: the same engine
        call (same trace entry, same digest), answered as ``step`` answers it,
        and in the action log before it is answered, as a step is."""
        return await self._logged(self._tool_call(episode_id, token, tool, args_json, surface))

    async def _tool_call(self, episode_id: str, token: str | None, tool: str, args_json: bytes,
                         surface: str) -> dict:
        self.authorize(episode_id, token)
        run = self.book.of_episode(episode_id)
        if run is not None:
            await self._end_if_due(run)
            if run.ended_by is not None:
                raise errors.RunEnded(f"Run {run.id} ended ({run.ended_by}) at {run.finished_at}; its tools no "
                                      "longer answer.")
        answer = orjson.loads(self.engine.step_json(episode_id, tool, args_json))
        if run is not None and self.book.after_call(run, surface):
            await self._end(run, "max_calls")
        return answer

    # -- endings -------------------------------------------------------------

    async def _end_if_due(self, run: Run) -> None:
        why = self.book.before_call(run)
        if why is not None:
            await self._end(run, why)

    async def _end(self, run: Run, why: str, output: str = "") -> None:
        """Seal and score a run: every ending is scored, a run without calls too."""
        if run.ended_by is not None:
            return
        self.book.ended(run, why, output)
        ep = run.ep
        if ep.status != "open":  # submitted through /api/v1 meanwhile: its evaluation stands
            self.book.scored(run)
            return
        try:
            verdicts = await self.engine.judge.decide(ep, output)
            self.engine.submit(ep.id, output, verdicts)
        except errors.ApiError as e:
            log.warning("run %s could not be scored: %s", run.id, e.message)
            self.book.failed(run, e.message)
            return
        self.book.scored(run)

    def _run_clock(self, world, steps: int) -> list:
        key = (world.name, world.version, steps)
        clock = self._run_clocks.get(key)
        if clock is None:
            clock = self._run_clocks[key] = world.clock(steps)
        return clock
