"""The world-authoring commands: ``sandworld new-world`` and ``sandworld check-world``.

Listed in ``sw_runtime.cli.COMMAND_MODULES``; ``register(subparsers)`` adds them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def register(sub) -> None:
    n = sub.add_parser("new-world", help="make a new world package from the dummy template",
                       description="Copy the dummy world into a new, working world package.")
    n.add_argument("name", help="the world's name, e.g. flight-desk")
    n.add_argument("--path", type=Path, default=None, metavar="DIR",
                   help="make an installable plugin project in DIR, outside this source tree (pip install -e DIR "
                        "registers it); default: a built-in world in sw_runtime/worlds")
    n.add_argument("--prefix", default=None, help="task-id prefix (default: the name's initials, e.g. fd)")
    n.add_argument("--title", default=None, help="display title (default: from the name)")
    n.set_defaults(run=_new_world)

    c = sub.add_parser("check-world", help="check worlds: schemas, determinism, reference solutions",
                       description="Check registered worlds: tool schemas, seeded determinism (also in two other "
                                   "processes), every task's reference solution on every seed, and that doing "
                                   "nothing fails.")
    c.add_argument("names", nargs="*", metavar="NAME", help="worlds to check, or a composite of two or three (codehost+offsite-planning); default: every registered world, then every set of worlds with cross-app tasks")
    c.add_argument("--seeds", type=int, default=50, help="check seeds 0..N-1 (default: %(default)s)")
    c.add_argument("--no-processes", action="store_true",
                   help="skip the two-process determinism check (faster)")
    c.set_defaults(run=_check_world)


def _new_world(args) -> int:
    from ..worlds.scaffold import ScaffoldError, new_world

    try:
        made = new_world(args.name, args.path, prefix=args.prefix, title=args.title)
    except ScaffoldError as e:
        print(f"sandworld new-world: {e}", file=sys.stderr)
        return 2
    print(f"Created the world {made.name!r} in {made.path}/ (task ids {made.prefix}-01, ...).\n")
    if made.project is not None:
        print("It is an installable plugin project; install it (editable) so servers serve it:\n")
        print(f"  pip install -e {made.project}\n")
    else:
        print('Register it: add this line under [project.entry-points."sandworld.worlds"] in pyproject.toml')
        print("(and to BUILTIN in sw_runtime/worlds/__init__.py), then reinstall (./scripts/test does):\n")
        print("  " + made.entry_point + "\n")
    print(f"Then check it:  sandworld check-world {made.name}")
    print("How to grow it into a real world: docs/WORLDS.md")
    return 0


def _check_world(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from ..worlds import PACKAGES, composites, registry
    from .checker import check_world

    console = Console()
    # every world, then every set of worlds with cross-app tasks (a composite: "a+b")
    names = args.names or sorted(registry()) + [c.name for c in composites()]
    unknown = [n for n in names if n not in registry() and not _composite(n)]
    if unknown:
        known = ", ".join(sorted(registry()))
        hint = "" if all(n in PACKAGES for n in unknown) else (
            " (a new world is registered by an entry point in the sandworld.worlds group: install its package)")
        console.print(f"[red]sandworld check-world: unknown world {', '.join(unknown)}{hint}; known: {known}")
        return 2
    reports = []
    with Progress(TextColumn("[bold]{task.fields[world]}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), TimeElapsedColumn(), console=console) as progress:
        for name in names:
            bar = progress.add_task("starting", world=name, total=None)

            def tick(done, total, what, bar=bar):
                progress.update(bar, completed=done, total=total, description=what)

            t0 = time.perf_counter()
            report = check_world(name, range(args.seeds), processes=not args.no_processes, progress=tick)
            progress.update(bar, description=f"done in {time.perf_counter() - t0:.1f} s")
            reports.append(report)
    for report in reports:
        console.print(_table(report, Table))
        for line in report.problems()[:30]:
            console.print(f"  [red]x[/red] {line}", highlight=False)
    bad = [r.world for r in reports if not r.ok]
    if bad:
        console.print(f"[red]Problems in {', '.join(bad)}.")
        return 1
    console.print(f"[green]All {len(reports)} world(s) pass.")
    return 0


def _composite(name: str) -> bool:
    """Whether ``name`` is a composite of served worlds (``codehost+offsite-planning``)."""
    from .. import errors
    from ..worlds import composite, get_world

    if composite.SEP not in name:
        return False
    try:
        get_world(name)
    except errors.ApiError:
        return False
    return True


def _table(report, Table):
    n = len(report.seeds)
    t = Table(title=f"{report.world} {report.version}: {'ok' if report.ok else 'PROBLEMS'}", title_justify="left")
    t.add_column("check")
    t.add_column("reference passes", justify="right")
    t.add_column("do-nothing fails", justify="right")
    t.add_column("collateral")
    t.add_column("result")
    for s in report.sections:
        t.add_row(s.name, "", "", "", "[green]ok[/green]" if s.ok else f"[red]{len(s.problems)} problem(s)[/red]")
    for r in report.tasks:
        t.add_row(r.task_id, f"{r.passed}/{n}", f"{r.nothing_failed}/{n}", r.collateral,
                  "[green]ok[/green]" if r.ok else f"[red]{len(r.problems)} problem(s)[/red]")
    t.caption = "; ".join(f"{s.name}: {s.detail}" for s in report.sections if s.detail)
    return t
