"""The ``sandworld eval``, ``report``, ``compare``, ``export`` and ``runs`` commands.

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
            "SQLite under --data-dir; print a table per task (pass rate and mean score with 95% intervals, "
            "pass^k, mean steps, tool errors). Training episodes and masked trials (infra failures) are left "
            "out of the numbers. Without --url (or $SANDWORLD_API_URL) a local server is started for the run. "
            "Ctrl-C stops the run and keeps what finished (continue it with --resume)."
        ),
    )
    e.add_argument("--world", default="coinpurse", metavar="WORLDS",
                   help="the world(s) to evaluate on, comma-separated: coinpurse,quickbasket (default: %(default)s)")
    e.add_argument("--agent", default="reference", metavar="AGENT",
                   help="built-in reference, noop or random; anthropic:MODEL or openai:MODEL (a model with the "
                        "world's tools, through the official SDK); or an import path module:function whose "
                        "function takes (env, obs) and returns the final answer (default: %(default)s)")
    e.add_argument("--base-url", default=None, metavar="URL",
                   help="the model endpoint of an anthropic:/openai: agent, e.g. a vLLM server's "
                        "http://127.0.0.1:8000/v1 (default: the SDK's, or $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)")
    e.add_argument("--agent-name", default=None, help="the name kept with each episode (default: the --agent value)")
    e.add_argument("--tasks", default=None, metavar="IDS",
                   help="comma-separated task ids or patterns, e.g. cp-01,cp-1* (default: every task)")
    e.add_argument("--seeds", default="0-4", metavar="SEEDS", help="seeds: 0-4, 0,3,7 or 0-2,10 (default: %(default)s)")
    e.add_argument("--trials", type=int, default=1, metavar="K",
                   help="trials per (task, seed); pass^K is computed over them (default: %(default)s)")
    e.add_argument("--concurrency", type=int, default=8, metavar="N",
                   help="trials running at once (default: %(default)s)")
    e.add_argument("--user-sim", default=None, metavar="SIM",
                   help="the user simulator for ask_user: scripted, llm (the server's SW_USER_SIM model) or a model "
                        "id the server's SW_USER_SIM_URL serves (default: scripted)")
    e.add_argument("--scoring", default=None, choices=["share", "informative"],
                   help="the score's denominator: share counts every weighted check, informative leaves out "
                        "checks already true at the start (default: share; see docs/VERIFY.md)")
    e.add_argument("--resume", default=None, metavar="RUN_ID",
                   help="continue a stored run (its own options), running only the trials it has not scored")
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
    x.add_argument("--format", default="jsonl", choices=["jsonl", "messages", "parquet"],
                   help="jsonl: one episode per line; messages: one OpenAI-style chat transcript per trial "
                        "(system, user, assistant tool_calls, tool results, final answer: SFT data); parquet: "
                        "one row per trial, needs pyarrow (default: %(default)s)")
    _data_dir_arg(x)
    x.add_argument("--out", default=None, metavar="PATH",
                   help="the file to write, - for stdout (jsonl and messages; default: DATA_DIR/exports/RUN_ID.EXT)")
    x.set_defaults(run=_export)

    c = sub.add_parser("compare", help="compare two runs task by task",
                       description="Per task and overall: the pass rate and mean score of RUN_A and RUN_B and "
                                   "B minus A, with 95% intervals (Newcombe for pass rates, bootstrap for scores). "
                                   "An interval that excludes 0 is a difference the trials support.")
    c.add_argument("run_a", metavar="RUN_A", help="the baseline run (or latest)")
    c.add_argument("run_b", metavar="RUN_B", help="the run compared with it (or latest)")
    _data_dir_arg(c)
    c.set_defaults(run=_compare)

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
    from .runner import EvalConfig, EvalInterrupted, parse_seeds, run_eval

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
        scoring=args.scoring, base_url=args.base_url, resume=args.resume,
    )
    console = Console(stderr=True)
    try:
        result = run_eval(config, console=console, progress=not args.no_progress)
    except EvalInterrupted as e:
        where = f" --data-dir {args.data_dir}" if args.data_dir != DEFAULT_DATA_DIR else ""
        print(f"sandworld eval: {e}; continue with: sandworld eval --resume {e.run_id}{where}", file=sys.stderr)
        return 130
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
        except ValueError as e:
            return _fail("export", str(e))
    if path is not None:
        print(f"exported: {path}")
    return 0


def _compare(args) -> int:
    from rich.console import Console

    from .compare import compare, table
    from .store import Store

    with Store(args.data_dir) as store:
        try:
            rows, a, b = compare(store, args.run_a, args.run_b)
        except KeyError as e:
            return _fail("compare", e.args[0])
    Console().print(table(rows, a, b))
    return 0


def _runs(args) -> int:
    from rich.console import Console
    from rich.table import Table

    from .store import Store

    with Store(args.data_dir) as store:
        runs = store.runs(args.limit)
    from rich import box

    t = Table(title=f"runs in {args.data_dir}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("run", "world", "agent", "trials", "passed", "status"):
        t.add_column(col, no_wrap=col == "run", max_width=None if col == "run" else 16, overflow="ellipsis",
                     justify="right" if col in ("trials", "passed") else "left")
    for r in runs:
        t.add_row(r["run_id"], r["world"], r["agent"], str(r["n_trials"]), str(r["n_passed"] or 0), r["status"])
    Console().print(t)
    return 0
