"""``sandworld view RESULTS``: serve the pages of an evaluation results file.

A server-side command (it serves Starlette pages), listed in
``sw_runtime.cli.COMMAND_MODULES``; the client alone says to install the
server, as for ``serve``.
"""

from __future__ import annotations

import os
import sqlite3
import sys

DB_NAME = "sandworld.db"


def register(sub) -> None:
    v = sub.add_parser(
        "view", help="browse evaluation runs in a web page",
        description=("Serve web pages for the evaluation runs in RESULTS (the sandworld.db that sandworld eval "
                     "writes, or its data folder): the runs, one run's per-task table with pass^k, intervals, "
                     "the failing checks and the chart, each trial's trace, and two runs compared task by task. "
                     "Open the address it prints; Ctrl-C stops it. See docs/VIEWER.md."),
    )
    v.add_argument("results", metavar="RESULTS",
                   help="the results file (DATA_DIR/sandworld.db) or the data folder that holds it")
    v.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    v.add_argument("--port", type=int, default=8790, help="port to bind (default: %(default)s)")
    v.add_argument("--insecure", action="store_true",
                   help="allow binding a non-loopback address (the pages have no login: anyone who reaches the "
                        "port reads every run)")
    v.set_defaults(run=_view)


def results_file(given: str) -> str:
    """The results file of ``given`` (a file, or a data folder holding one), checked to be one."""
    path = os.path.join(given, DB_NAME) if os.path.isdir(given) else given
    if not os.path.isfile(path):
        raise ValueError(f"no results file at {path}: give the sandworld.db that sandworld eval writes "
                         "(in its --data-dir, ./sandworld-data by default)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        raise ValueError(f"{path} is not a SQLite file: {e}") from None
    if not {"runs", "trials"} <= tables:
        raise ValueError(f"{path} holds no evaluation runs (no runs and trials tables): is it the file "
                         "sandworld eval writes?")
    return path


def _view(args) -> int:
    import uvicorn

    from ..security.exposure import is_loopback
    from .evalruns import build_app

    try:
        path = results_file(args.results)
    except ValueError as e:
        print(f"sandworld view: {e}", file=sys.stderr)
        return 2
    if not (args.insecure or is_loopback(args.host)):
        print(f"sandworld view: --host {args.host} is reachable from the network and these pages have no login: "
              "anyone who reaches it reads every run. Add --insecure to serve it anyway.", file=sys.stderr)
        return 2
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"sandworld view: the runs in {path} on http://{host}:{args.port}/ui/runs (Ctrl-C stops)", flush=True)
    uvicorn.run(build_app(path), host=args.host, port=args.port, log_level="warning")
    return 0
