"""The ``sandworld eval``, ``report``, ``export`` and ``runs`` commands.

``sw_runtime.cli`` lists this module in ``COMMAND_MODULES``; ``register``
adds the commands to its parser.
"""

from __future__ import annotations

import os
import sys

DEFAULT_DATA_DIR = "sandworld-data"


def _data_dir_arg(p) -> None:
    p.add_argument("--data-dir", default=os.environ.get("SANDWORLD_DATA_DIR", DEFAULT_DATA_DIR), metavar="DIR",
                   help="where runs are stored: DIR/sandworld.db (default: ./%(default)s, or $SANDWORLD_DATA_DIR)")


def register(sub) -> None:
    e = sub.add_parser(
        "eval", help="run an agent over a world's tasks and store the results",
        description=(
            "Run an agent over a world's tasks, seeds and trials; store every trial's evaluation and trace in "
            "SQLite under --data-dir; print a table per task (pass rate, mean score, pass^k, mean steps, tool "
            "errors). Training episodes and masked trials (infra failures) are left out of the numbers. "
            "Without --url (or $SANDWORLD_API_URL) a local server is started for the run."
        ),
    )
    e.add_argument("--world", default="coinpurse", help="the world to evaluate on (default: %(default)s)")
    e.add_argument("--agent", default="reference", metavar="AGENT",
                   help="built-in reference, noop or random, or an import path module:function whose function "
                        "takes (env, obs) and returns the final answer (default: %(default)s)")
    e.add_argument("--agent-name", default=None, help="the name kept with each episode (default: the --agent value)")
    e.add_argument("--tasks", default=None, metavar="IDS",
                   help="comma-separated task ids or patterns, e.g. cp-01,cp-1* (default: every task)")
    e.add_argument("--seeds", default="0-4", metavar="SEEDS", help="seeds: 0-4, 0,3,7 or 0-2,10 (default: %(default)s)")
    e.add_argument("--trials", type=int, default=1, metavar="K",
                   help="trials per (task, seed); pass^K is computed over them (default: %(default)s)")
    e.add_argument("--concurrency", type=int, default=8, metavar="N",
                   help="trials running at once (default: %(default)s)")
    e.add_argument("--user-sim", default=None, metavar="KIND",
                   help="the user simulator for ask_user: scripted or llm (default: the server's, scripted)")
    e.add_argument("--url", default=os.environ.get("SANDWORLD_API_URL"), metavar="URL",
                   help="server API URL(s), comma-separated (default: $SANDWORLD_API_URL; if unset, a local "
                        "server is started for the run)")
    _data_dir_arg(e)
    e.add_argument("--report", action="store_true", help="also write the report (as sandworld report) at the end")
    e.add_argument("--no-progress", action="store_true", help="no live progress bar")
    e.set_defaults(run=_eval)

    r = sub.add_parser("report", help="write a run's markdown report and pass-rate chart",
                       description="Write RUN_ID's markdown report (score and denominator, per-task and per-check "
                                   "tables with reasons, agent, world and server versions) and a PNG chart of the "
                                   "pass rate per task.")
    r.add_argument("run_id", metavar="RUN_ID", help="the run (sandworld runs lists them), or latest")
    _data_dir_arg(r)
    r.add_argument("--out", default=None, metavar="DIR", help="folder for the files (default: DATA_DIR/reports)")
    r.set_defaults(run=_report)

    x = sub.add_parser("export", help="write a run's traces as a dataset",
                       description="Write RUN_ID's episodes (instruction, policy, tools, trace, output, evaluation) "
                                   "as a dataset, one JSON object per line.")
    x.add_argument("run_id", metavar="RUN_ID", help="the run (sandworld runs lists them), or latest")
    x.add_argument("--format", default="jsonl", choices=["jsonl"], help="output format (default: %(default)s)")
    _data_dir_arg(x)
    x.add_argument("--out", default=None, metavar="PATH",
                   help="the file to write, - for stdout (default: DATA_DIR/exports/RUN_ID.jsonl)")
    x.set_defaults(run=_export)

    ls = sub.add_parser("runs", help="list stored evaluation runs", description="List the runs stored in --data-dir.")
    _data_dir_arg(ls)
    ls.add_argument("--limit", type=int, default=20, help="how many, newest first (default: %(default)s)")
    ls.set_defaults(run=_runs)


def _fail(command: str, message: str) -> int:
    print(f"sandworld {command}: {message}", file=sys.stderr)
    return 2


def _eval(args) -> int:
    from rich.console import Console

    from ..errors import SandworldError
    from .runner import EvalConfig, parse_seeds, run_eval

    if args.trials < 1 or args.concurrency < 1:
        return _fail("eval", "--trials and --concurrency must be at least 1")
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as e:
        return _fail("eval", str(e))
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # so --agent mymodule:fn finds a module in the current folder
    config = EvalConfig(
        world=args.world, agent=args.agent, agent_name=args.agent_name,
        tasks=[t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None,
        seeds=seeds, trials=args.trials, concurrency=args.concurrency, user_sim=args.user_sim,
        data_dir=args.data_dir, urls=[u for u in args.url.split(",") if u.strip()] if args.url else None,
    )
    console = Console(stderr=True)
    try:
        result = run_eval(config, console=console, progress=not args.no_progress)
    except (SandworldError, ValueError) as e:
        return _fail("eval", str(e))
    print(f"{result.run_id}: {result.overall.passed}/{result.overall.trials} passed; stored in {result.db_path}")
    if args.report:
        from .report import write_report
        from .store import Store

        with Store(args.data_dir) as store:
            md, png = write_report(store, result.run_id)
        print(f"report: {md}\nchart: {png}")
    else:
        print(f"next: sandworld report {result.run_id}" +
              (f" --data-dir {args.data_dir}" if args.data_dir != DEFAULT_DATA_DIR else ""))
    return 0


def _report(args) -> int:
    from .report import write_report
    from .store import Store

    with Store(args.data_dir) as store:
        try:
            md, png = write_report(store, args.run_id, args.out)
        except KeyError as e:
            return _fail("report", e.args[0])
    print(f"report: {md}\nchart: {png}")
    return 0


def _export(args) -> int:
    from .export import export
    from .store import Store

    with Store(args.data_dir) as store:
        try:
            path = export(store, args.run_id, args.out, args.format)
        except KeyError as e:
            return _fail("export", e.args[0])
    if path is not None:
        print(f"exported: {path}")
    return 0


def _runs(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .store import Store

    with Store(args.data_dir) as store:
        runs = store.runs(args.limit)
    t = Table(title=f"runs in {args.data_dir}", title_justify="left")
    for col in ("run", "created", "world", "agent", "trials", "passed", "status"):
        t.add_column(col, no_wrap=col in ("run", "created"))
    for r in runs:
        t.add_row(r["run_id"], r["created_at"], f"{r['world']} {r['world_version'] or ''}", r["agent"],
                  str(r["n_trials"]), str(r["n_passed"] or 0), r["status"])
    Console().print(t)
    return 0
