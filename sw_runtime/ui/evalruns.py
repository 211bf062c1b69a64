"""The pages of ``sandworld view RESULTS``: the evaluation runs in a results file.

The file is the one ``sandworld eval`` writes (``sandworld.evaluation.store``),
read with the same code the terminal commands use, so a page says what
``sandworld report`` and ``sandworld compare`` say: the runs; one run's
per-task table (pass rate and mean score with their 95 % intervals, pass^k
for every k, the failing checks and why) with the report's chart as a
picture; each trial's trace on the episode page a server shows; and two runs
compared task by task. No engine, no server: only the file.
"""

from __future__ import annotations

import asyncio
import io
from concurrent.futures import ThreadPoolExecutor

from sandworld.evaluation.compare import compare
from sandworld.evaluation.report import chart, check_rows
from sandworld.evaluation.store import Store
from sandworld.evaluation.summary import counts, summarize
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from .. import errors
from . import trace_view
from .templating import page, static_mount

UI = "/ui"
NO_WORLD = "-"  # the path segment of a trial stored before runs had a world per trial


class Runs:
    """The results file, read on one thread of its own: a SQLite connection
    belongs to the thread that opened it, and pages must not hold the event loop."""

    def __init__(self, path):
        self.path = path
        self.store = None
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandworld-view")

    async def read(self, fn, *args):
        def on_thread():
            if self.store is None:
                self.store = Store(None, path=self.path)
            return fn(self.store, *args)

        return await asyncio.get_running_loop().run_in_executor(self.thread, on_thread)


def _run(store: Store, run_id: str) -> dict:
    try:
        return store.run(run_id)
    except KeyError as e:
        raise errors.NotFound(e.args[0]) from None


def _run_page(store: Store, run_id: str) -> dict:
    run = _run(store, run_id)
    trials = store.trials(run["run_id"])
    per_task, overall = summarize(trials, run["trials"], run["meta"].get("tasks"))
    several = len({t.get("world") for t in trials}) > 1
    failing = {}
    for s in per_task:
        mine = [t for t in trials if counts(t) and (f"{t.get('world')}/{t['task_id']}" if several else t["task_id"])
                == s.task_id]
        failing[s.task_id] = [r for r in check_rows(mine) if r["passed"] < r["total"]]
    return {"run": run, "trials": trials, "per_task": per_task, "overall": overall, "failing": failing,
            "titles": run["meta"].get("titles", {}), "ks": list(overall.pass_hat)}


def _chart(store: Store, run_id: str) -> bytes:
    run = _run(store, run_id)
    per_task, _ = summarize(store.trials(run["run_id"]), run["trials"], run["meta"].get("tasks"))
    out = io.BytesIO()
    chart(per_task, out, f"{run['world']} {run['world_version']} · {run['agent']} · {run['run_id']}")
    return out.getvalue()


def _trial(store: Store, run_id: str, world: str, task_id: str, seed: int, trial: int) -> tuple:
    run = _run(store, run_id)
    world = "" if world == NO_WORLD else world
    for t in store.trials(run["run_id"], with_trace=True):
        if (t["world"], t["task_id"], t["seed"], t["trial"]) == (world, task_id, seed, trial):
            return run, t
    raise errors.NotFound(f"{run['run_id']} has no trial {trial} of {task_id} on seed {seed}")


def _compare(store: Store, a: str, b: str) -> dict:
    try:
        rows, ra, rb = compare(store, a, b)
    except KeyError as e:
        raise errors.NotFound(e.args[0]) from None
    return {"rows": rows, "a": ra, "b": rb}


def as_episode(run: dict, t: dict) -> dict:
    """A stored trial in the shape of an ``/episodes/{id}`` answer, for the episode page."""
    ev = t.get("evaluation") or {}
    return {"episode_id": t.get("episode_id") or "", "environment": t.get("world") or run["world"],
            "environment_version": run.get("world_version"), "task_id": t["task_id"], "seed": t["seed"],
            "agent_name": run.get("agent_name") or run["agent"], "steps": t.get("steps"),
            "status": t["status"], "ended_by": ev.get("ended_by"), "trace": t.get("trace") or [],
            "evaluation": ev or None, "training": t.get("training")}


def build_app(path) -> Starlette:
    runs = Runs(path)

    async def index(request: Request):
        return RedirectResponse(f"{UI}/runs", 303)

    async def listing(request: Request):
        return page(request, "runs.html", runs=await runs.read(lambda s: s.runs(500)), path=str(runs.path))

    async def one(request: Request):
        return page(request, "run.html", **await runs.read(_run_page, request.path_params["run_id"]))

    async def picture(request: Request):
        png = await runs.read(_chart, request.path_params["run_id"])
        return Response(png, media_type="image/png", headers={"cache-control": "no-store"})

    async def trial(request: Request):
        p = request.path_params
        run, t = await runs.read(_trial, p["run_id"], p["world"], p["task"], p["seed"], p["trial"])
        episode = as_episode(run, t)
        return page(request, "trial.html", run=run, t=t, ep=episode, view=trace_view.build(episode, start=trace_view.window_start(request.query_params)))

    async def compared(request: Request):
        a, b = request.query_params.get("a"), request.query_params.get("b")
        if not a or not b:
            raise errors.InvalidRequest("compare needs two runs: ?a=RUN_A&b=RUN_B")
        return page(request, "compare.html", **await runs.read(_compare, a, b))

    async def failed(request: Request, exc: errors.ApiError):
        return page(request, "error.html", exc.status, error=exc, eval_view=True)

    routes = [
        Route("/", index), Route(f"{UI}/", index), Route(f"{UI}/runs", listing),
        Route(f"{UI}/runs/{{run_id}}", one), Route(f"{UI}/runs/{{run_id}}/chart.png", picture),
        Route(f"{UI}/runs/{{run_id}}/trials/{{world}}/{{task}}/{{seed:int}}/{{trial:int}}", trial),
        Route(f"{UI}/compare", compared), static_mount(),
    ]
    app = Starlette(routes=routes, exception_handlers={errors.ApiError: failed})
    app.state.runs = runs
    return app
