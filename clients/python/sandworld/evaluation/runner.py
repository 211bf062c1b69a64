"""The benchmark runner behind ``sandworld eval``.

For every (task, seed, trial) it starts an episode, lets the agent work,
submits the agent's answer, reads the trace back and stores the lot in SQLite
(``store.py``) the moment the trial ends. Trials run concurrently (``concurrency``
at a time) over one pooled async client; a blocking agent runs in a daemon
thread of its own, so that Ctrl-C never waits for an agent in a slow call.
With no server URL it starts a local server for the run.

What is not the agent's fault does not count against it: a trial whose
episode could not be started or scored (the server unreachable, the verifier
failing: ``mask_sample``) is stored as ``masked`` and left out of the
statistics. An agent that raises is recorded with its error and scored on
what it did. A request the server refuses at create (a bad ``--user-sim``, an
unknown ``--scoring``) stops the run at once: every trial would fail the same
way, and a run of masked trials would look like a result.

``world`` may name several worlds (``coinpurse,quickbasket``): one run, its
tasks named ``world/task``. ``resume`` continues a stored run with its own
options, running only the trials it has not scored. Ctrl-C stops the run:
what finished is stored and the run is marked ``interrupted``
(``EvalInterrupted`` says which run).
"""

from __future__ import annotations

import asyncio
import fnmatch
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from .. import errors
from ..client import AsyncSandworldClient, SandworldClient
from ..env import AsyncSandworldEnv, SandworldEnv
from ..local import local_server
from ..transport import __version__ as client_version
from . import agents, models
from .store import Store
from .summary import count, summarize, table

# Failures of the infrastructure, not of the agent: the trial is masked.
_INFRA = (errors.TransportError, errors.ProtocolError, errors.RateLimited, errors.ServiceUnavailable,
          errors.VerifierUnavailable, errors.UserSimulatorUnavailable, errors.InternalError)


@dataclass
class EvalConfig:
    world: str = "coinpurse"
    agent: str = "reference"
    tasks: list | None = None  # task ids or fnmatch patterns; None: every task of the world
    seeds: list = field(default_factory=lambda: [0, 1, 2, 3, 4])
    trials: int = 1  # K trials per (task, seed)
    concurrency: int = 8
    user_sim: str | None = None
    data_dir: str | Path = "sandworld-data"
    urls: list | None = None  # None: start a local server for the run
    agent_name: str | None = None
    scoring: str | None = None  # "share" or "informative"; None: the server's default (share)
    base_url: str | None = None  # the model endpoint of an anthropic:/openai: agent
    resume: str | None = None  # a run id to continue (its stored options win)

    @property
    def worlds(self) -> list:
        return [w.strip() for w in str(self.world).split(",") if w.strip()]


class EvalInterrupted(Exception):
    """Ctrl-C during a run: what finished is stored under ``run_id``."""

    def __init__(self, run_id: str | None, done: int, total: int):
        super().__init__(f"interrupted: {done} of {total} trials stored in {run_id}")
        self.run_id, self.done, self.total = run_id, done, total


@dataclass
class EvalResult:
    run_id: str
    per_task: list
    overall: object
    db_path: Path


def parse_seeds(spec: str) -> list:
    """``"0-4"``, ``"0,3,7"`` or ``"0-2,10"`` -> the seeds, in order, without repeats."""
    seeds: list = []
    for part in str(spec).split(","):
        part = part.strip()
        if not part:
            continue
        lo, dash, hi = part.partition("-")
        try:
            values = range(int(lo), int(hi) + 1) if dash else [int(part)]
        except ValueError:
            raise ValueError(f"bad seeds {spec!r}: use 0-4, 0,3,7 or 0-2,10") from None
        seeds += [v for v in values if v not in seeds]
    if not seeds:
        raise ValueError(f"no seeds in {spec!r}")
    return seeds


def pick_tasks(available: list, wanted: list | None, strict: bool = True) -> list:
    """The world's tasks matching ``wanted`` (ids or patterns like ``cp-0*``), in the world's order.
    ``strict``: a pattern that matches nothing is an error."""
    if not wanted:
        return list(available)
    out = []
    for pattern in wanted:
        hits = [t for t in available if fnmatch.fnmatchcase(t, pattern)]
        if not hits and strict:
            raise ValueError(f"no task matches {pattern!r}; the tasks are {', '.join(available)}")
        out += [t for t in hits if t not in out]
    return [t for t in available if t in out]


def run_eval(config: EvalConfig, *, console: Console | None = None, out: Console | None = None,
             progress: bool = True) -> EvalResult:
    """Run the benchmark and return its run id and statistics. Progress goes
    to ``console`` (stderr by default), the closing table to ``out`` (stdout)."""
    console = console or Console(stderr=True)
    out = out or Console()
    if config.resume:
        config = resumed(config)
    state: dict = {}
    try:
        if config.urls:
            return asyncio.run(_run(config, list(config.urls), console, out, progress, False, state))
        console.print("[dim]no server URL: starting a local server for this run[/]")
        with local_server() as url:
            return asyncio.run(_run(config, [url], console, out, progress, True, state))
    except KeyboardInterrupt:
        raise EvalInterrupted(state.get("run_id"), state.get("done", 0), state.get("total", 0)) from None


# The options a run stores, so that --resume runs the rest the same way.
_RESUMED = ("world", "agent", "agent_name", "tasks", "seeds", "trials", "user_sim", "scoring", "base_url")


def resumed(config: EvalConfig) -> EvalConfig:
    """``config`` with the stored options of the run it resumes."""
    with Store(config.data_dir) as store:
        try:
            run = store.run(config.resume)
        except KeyError as e:
            raise ValueError(e.args[0]) from None
    saved = run["meta"].get("config")
    if not saved:
        raise ValueError(f"run {run['run_id']} was stored without its options; it cannot be resumed")
    out = EvalConfig(**{**config.__dict__, **{k: saved[k] for k in _RESUMED if k in saved}})
    out.resume = run["run_id"]
    return out


async def _run(cfg: EvalConfig, urls: list, console: Console, out: Console, show_progress: bool,
               local: bool, state: dict) -> EvalResult:
    agent = models.make(cfg.agent, cfg.base_url) or agents.load(cfg.agent)
    is_async = agents.is_async(agent)
    agent_name = cfg.agent_name or cfg.agent
    concurrency = max(1, cfg.concurrency)
    worlds = cfg.worlds
    several = len(worlds) > 1
    async with AsyncSandworldClient(urls, max_connections=max(8, concurrency)) as client:
        health = await client.health()
        described = {w: await client.environment(w) for w in worlds}
        titles, task_ids, jobs, tools = {}, [], [], {}
        for w, world in described.items():
            mine = {t["id"]: t.get("title", "") for t in world.get("tasks", [])}
            # Over several worlds a pattern need only match in one of them.
            picked = pick_tasks(list(mine), cfg.tasks, strict=not several)
            for t in picked:
                key = f"{w}/{t}" if several else t
                titles[key] = mine[t]
                task_ids.append(key)
                jobs += [(w, t, s, k) for s in cfg.seeds for k in range(cfg.trials)]
            tools[w] = world.get("tools", [])
            if agent is agents.reference and picked:
                # A world of another version would fail every trial: say so once, before the run.
                agents.reference_setup(w, world.get("version"), picked[0], cfg.seeds[0])
        if not jobs:
            raise ValueError(f"no task of {', '.join(worlds)} matches {','.join(cfg.tasks or [])}")
        store = Store(cfg.data_dir)
        versions = ", ".join(str(d.get("version")) for d in described.values())
        meta = {"tasks": task_ids, "seeds": cfg.seeds, "titles": titles, "concurrency": concurrency,
                "user_sim": cfg.user_sim, "scoring": cfg.scoring or "share",
                "tools": tools[worlds[0]] if not several else tools, "worlds": worlds,
                "config": {k: getattr(cfg, k) for k in _RESUMED}}
        if cfg.resume:
            run_id = cfg.resume
            skip = store.scored_keys(run_id)
            jobs = [j for j in jobs if j not in skip]
            store.reopen_run(run_id)
        else:
            run_id = store.create_run(
                world=",".join(worlds), world_version=versions, agent=cfg.agent, agent_name=agent_name,
                trials=cfg.trials, server_version=health.get("version"), server_core=health.get("core"),
                server_url=("local: " if local else "") + ", ".join(urls), client_version=client_version, meta=meta,
            )
        state.update(run_id=run_id, done=0, total=len(jobs))
        console.print(
            f"[bold]{run_id}[/]: {', '.join(worlds)} {versions} on sandworld {health.get('version')} "
            f"({health.get('core')}), agent [bold]{cfg.agent}[/], {count(len(task_ids), 'task')} × "
            f"{count(len(cfg.seeds), 'seed')} × {count(cfg.trials, 'trial')}"
            + (f": resuming, {count(len(jobs), 'trial')} to go" if cfg.resume else f" = {count(len(jobs), 'episode')}")
        )
        sync_client = None if is_async else SandworldClient(urls, max_connections=max(8, concurrency))
        trial = _Trial(cfg, agent, is_async, agent_name, client, sync_client)
        gate = asyncio.Semaphore(concurrency)
        bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("[green]{task.fields[passed]} passed[/]"), TimeElapsedColumn(),
                       console=console, disable=not show_progress)
        progress_id = bar.add_task(f"{cfg.world} · {cfg.agent}", total=len(jobs), passed=0)
        passed = 0

        async def one(job):
            nonlocal passed
            async with gate:
                row = await trial.run(*job)
            store.add_trial(run_id, row)
            state["done"] += 1
            passed += bool(row.get("pass")) and row["status"] == "scored" and not row.get("training")
            bar.update(progress_id, advance=1, passed=passed)

        status = "interrupted"
        try:
            with bar:
                await _gather_or_stop([one(j) for j in jobs])
            status = "finished"
        finally:
            store.update_meta(run_id, policies=trial.policies)
            store.finish_run(run_id, status)
            if sync_client is not None:
                sync_client.close()
        per_task, overall = summarize(store.trials(run_id), cfg.trials, task_ids)
        out.print(table(per_task, overall, cfg.trials, title=f"{run_id} · {cfg.world} · {cfg.agent}"))
        db_path = store.path
        store.close()
        return EvalResult(run_id, per_task, overall, db_path)


class _Trial:
    """One (task, seed, trial): start, let the agent work, submit, read the trace."""

    def __init__(self, cfg, agent, is_async, agent_name, client, sync_client):
        self.cfg, self.agent, self.is_async, self.agent_name = cfg, agent, is_async, agent_name
        self.client, self.sync_client = client, sync_client
        self.policies: dict = {}  # task_id -> the policy its episodes were given (for exports)

    async def run(self, world: str, task_id: str, seed: int, k: int) -> dict:
        row = {"world": world, "task_id": task_id, "seed": seed, "trial": k, "status": "masked"}
        began = time.monotonic()
        env = AsyncSandworldEnv(client=self.client, agent_name=self.agent_name)
        try:
            obs = await env.reset(world, task_id=task_id, seed=seed, user_simulator=user_simulator(self.cfg.user_sim),
                                  scoring=self.cfg.scoring)
        except errors.InvalidRequest as e:
            raise errors.SandworldError(f"the server refused to start an episode: {e}", code="bad_request") from None
        except errors.SandworldError as e:
            row["error"] = f"could not start the episode: {e}"
            return row
        row.update(episode_id=obs.get("episode_id"), instruction=obs.get("instruction"), training=obs.training)
        self.policies.setdefault(task_id, obs.get("policy"))
        evaluation, output = await self._agent(env, obs, row)
        if evaluation is None and row["status"] != "masked":
            try:
                evaluation = await env.submit(output)
            except errors.SandworldError as e:
                row["status"], row["error"] = "masked", _join(row.get("error"), f"submit failed: {e}")
        if evaluation is not None:
            row["training"] = row["training"] or bool(evaluation.get("training"))
            row["status"] = "masked" if evaluation.get("mask_sample") else "scored"
            row.update(evaluation=dict(evaluation), output=output, **{
                k: evaluation.get(k) for k in ("pass", "score", "steps", "write_steps", "tool_errors", "failure_kind")
            })
        try:
            row["trace"] = (await env.episode()).get("trace")
        except errors.SandworldError:
            row["trace"] = None
        row["duration_s"] = round(time.monotonic() - began, 3)
        return row

    async def _agent(self, env, obs, row: dict):
        """Run the agent; ``(evaluation if it submitted itself, output)``."""
        row["status"] = "scored"
        try:
            if self.is_async:
                output = await self.agent(env, obs)
                done = env.evaluation
            else:
                sync_env = SandworldEnv(client=self.sync_client, agent_name=self.agent_name)
                sync_env._started(env.url, obs)
                output = await _in_daemon_thread(self.agent, sync_env, obs)
                done = sync_env.evaluation
        except _INFRA as e:
            row["status"], row["error"] = "masked", f"{type(e).__name__}: {e}"
            return None, None
        except Exception as e:  # the agent's own failure: scored on what it did
            row["error"] = f"{type(e).__name__}: {e}"
            return None, None
        if output is not None and not isinstance(output, str):
            output = str(output)
        return done, output


def _in_daemon_thread(fn, *args) -> asyncio.Future:
    """``fn(*args)`` in a daemon thread of its own, awaited as a future.

    Not ``run_in_executor``: the executor's threads are joined when the
    interpreter exits, so after Ctrl-C the run would wait for every agent still
    in a call (an LLM request, a sleep) before it could stop. A daemon thread is
    left behind; the trial it ran is not stored, and ``--resume`` runs it again.
    Concurrency is bounded by the run's semaphore, not here.
    """
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(result, error) -> None:
        if not future.done():  # cancelled: the run stopped while the agent worked
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)

    def work() -> None:
        try:
            outcome = (fn(*args), None)
        except BaseException as e:  # handed to the awaiting trial, which decides
            outcome = (None, e)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop has closed: nobody waits for this answer
            pass

    threading.Thread(target=work, name="sandworld-agent", daemon=True).start()
    return future


def user_simulator(spec: str | None):
    """``--user-sim``: ``scripted``, ``llm``, or a model id (``{"model": id}``)."""
    if spec is None or spec in ("scripted", "llm"):
        return spec
    return {"model": spec}


async def _gather_or_stop(coros: list) -> None:
    """Run every trial; the first that raises stops the others (and is raised)."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _join(*parts) -> str:
    return "; ".join(p for p in parts if p)
