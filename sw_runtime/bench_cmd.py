"""``sandworld bench``: run the benchmark suite in ``bench/`` and print its tables.

Each script runs in its own process (``bench_batch.py`` starts its own server
beside it); their progress lines drive one rich progress bar, and their JSON
reports become the tables. The scripts live in a source checkout, next to
this package; see ``bench/README.md`` for the figures of record.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent / "bench"
SCRIPTS = {"core": "bench_core.py", "memory": "bench_memory.py", "batch": "bench_batch.py"}
# --quick: tiny parameters that run the whole suite in seconds; the numbers mean nothing.
QUICK = {
    "core": ["--large", "2000", "--number", "200", "--repeat", "1"],
    "memory": ["--episodes", "300", "--seeds", "10"],
    "batch": ["--seconds", "0.3", "--episodes", "60", "--seeds", "6", "--batch-size", "30",
              "--steps-per-episode", "20", "--connections", "4", "--groups", "2", "--group-size", "4",
              "--create-requests", "2", "--submit-max", "60"],
}
_MARK = "@@progress "


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "bench", help="run the benchmark suite and print its tables",
        description="Run the benchmark suite in bench/ (state core, memory, HTTP throughput against a real "
                    "server on 127.0.0.1) and print its tables. The defaults take a minute or two.",
    )
    p.add_argument("--only", nargs="+", choices=list(SCRIPTS), default=list(SCRIPTS), metavar="NAME",
                   help=f"run only these benches ({', '.join(SCRIPTS)})")
    p.add_argument("--core", choices=["cython", "pure"], default="cython",
                   help="state core of the server and of the memory bench (default: %(default)s)")
    p.add_argument("--quick", action="store_true", help="tiny parameters: checks that the suite runs, in seconds")
    p.add_argument("--json", action="store_true", help="print the reports as JSON instead of tables")
    p.set_defaults(run=run)


def _command(name: str, args) -> list:
    cmd = [sys.executable, str(BENCH_DIR / SCRIPTS[name]), "--json", "--progress"]
    if name in ("batch", "memory"):
        cmd += ["--core", args.core]
    if args.quick:
        cmd += QUICK[name]
    return cmd


def _run_one(cmd: list, on_progress) -> dict:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out: list = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    reader.start()
    other = []
    for line in proc.stderr:
        if line.startswith(_MARK):
            on_progress(json.loads(line[len(_MARK):]))
        else:
            other.append(line)
    proc.wait()
    reader.join()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[1:2])} failed ({proc.returncode}):\n{''.join(other)[-4000:]}")
    return json.loads(out[0])


def run(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not all((BENCH_DIR / SCRIPTS[n]).is_file() for n in args.only):
        print(f"sandworld bench: no bench scripts in {BENCH_DIR}; it runs from a source checkout", file=sys.stderr)
        return 2
    sys.path.insert(0, str(BENCH_DIR))
    import _common

    console = Console(stderr=args.json)
    reports = []
    columns = (TextColumn("{task.fields[name]:<7}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=False) as bar:
        tasks = {n: bar.add_task("waiting", name=n, total=None) for n in args.only}
        for name in args.only:
            tid = tasks[name]
            bar.update(tid, description="starting")

            def on_progress(p, tid=tid):
                bar.update(tid, completed=p["done"], total=p["total"], description=p["label"])

            try:
                rep = _run_one(_command(name, args), on_progress)
            except RuntimeError as e:
                bar.stop()
                print(f"sandworld bench: {e}", file=sys.stderr)
                return 1
            if args.quick:  # tiny parameters measure nothing: judge no target on them
                for r in rep["rows"]:
                    if r.get("met") is not None:
                        r["met"] = None
                        r["note"] = "; ".join(x for x in (r.get("note"), "--quick: target not judged") if x)
            reports.append(rep)
            bar.update(tid, description="done")
    if args.json:
        print(json.dumps(reports, indent=2))
        return 0
    console = Console(width=max(140, console.width))
    for rep in reports:
        console.print(_common.table(rep))
        for k, v in rep.get("workload", {}).items():
            console.print(f"  {k}: {v}")
    return 0
