"""The ``sandworld`` command of the client distribution.

With the server installed (``sandworld-runtime``), every command is the
server's: ``sw_runtime.cli`` owns the parser and lists the client's commands
(``eval``, ``report``, ``export``, ``runs``) beside its own. With the client
alone, the client's commands run against a server given by ``--url`` or
``$SANDWORLD_API_URL``, and a server command (``serve``, ``digest``,
``bench``, ``check-world``, ``new-world``, ``view``) says how to get the server.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys

from .transport import __version__

SERVER_COMMANDS = {
    "serve": "serve every world over HTTP",
    "digest": "recompute the digest of a state dump",
    "bench": "run the benchmark suite",
    "check-world": "check worlds",
    "new-world": "make a new world package",
    "view": "browse evaluation runs in a web page",
}
SERVER_HINT = ("`sandworld {command}` is a server command, and this installation has only the client. "
               "Install the server with `pip install sandworld-runtime` (or run ./scripts/serve in a clone "
               "of the repository), or point the client at a running server with --url or $SANDWORLD_API_URL.")


def _server_installed() -> bool:
    return importlib.util.find_spec("sw_runtime") is not None


def _server_only(args) -> int:
    print(f"sandworld: {SERVER_HINT.format(command=args.command)}", file=sys.stderr)
    return 2


def build_parser() -> argparse.ArgumentParser:
    """The client-only parser: the client's commands, and a stub per server command."""
    from .evaluation import commands

    p = argparse.ArgumentParser(prog="sandworld",
                                description="Sandworld runtime's client (the server is not installed).")
    p.add_argument("--version", action="version", version=f"sandworld {__version__} (client only)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    commands.register(sub)
    for name, what in SERVER_COMMANDS.items():
        s = sub.add_parser(name, help=f"{what} (needs the server: pip install sandworld-runtime)",
                           description=SERVER_HINT.format(command=name), add_help=True)
        s.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        s.set_defaults(run=_server_only)
    return p


def main(argv: list | None = None) -> int:
    if _server_installed():
        from sw_runtime.cli import main as server_main

        return server_main(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 0
    try:
        return run_command(args)
    except ModuleNotFoundError as e:
        if e.name in ("rich", "matplotlib"):
            print(f"sandworld {args.command}: it needs {e.name}: pip install 'sandworld[eval]'", file=sys.stderr)
            return 2
        raise


def run_command(args) -> int:
    """Run a parsed command as a command line should end: a reader that went
    away (`sandworld export … | head`) stops it quietly, as Python's docs
    advise, and Ctrl-C says so, both without a traceback. (The server's
    ``sw_runtime.cli`` runs its commands through this too.)"""
    try:
        code = args.run(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print(f"sandworld {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
