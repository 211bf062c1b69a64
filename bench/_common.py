"""What the bench scripts share: the machine, a real server process, a lean
HTTP/1.1 client, progress lines and the result table.

Not a bench itself. Every ``bench_*.py`` builds a report,
``{"bench", "machine", "params", "rows": [{measure, value, unit, target, met, note}]}``,
and prints it as a rich table, or as JSON with ``--json``; ``sandworld bench``
renders the same reports.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import platform
import subprocess
import sys
import urllib.request
from pathlib import Path

from sandworld.local import local_server_process

ROOT = Path(__file__).resolve().parent.parent

# -- the machine -------------------------------------------------------------------


def machine() -> dict:
    """What a figure was measured on: CPUs, memory, Python, date, commit."""
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem = "?"
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    commit = "?"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=5)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=5)
        if head.returncode == 0:
            commit = head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    return {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu": model,
        "memory": mem,
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
    }


def rss_bytes(pid: int | str = "self") -> int:
    """Resident set size of a process, from /proc (no psutil)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc/PID/stat."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def machine_busy_seconds() -> float:
    """CPU seconds every process of the machine has used (busy, not idle or iowait), from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = v
    return (user + nice + system + irq + softirq + steal) / _TICK


# -- progress ----------------------------------------------------------------------


class Progress:
    """Phase progress: ``@@progress {json}`` lines on stderr when ``--progress``
    is given (``sandworld bench`` draws its bar from them), else nothing."""

    def __init__(self, enabled: bool, total: int):
        self.enabled, self.total, self.done = enabled, total, 0

    def __call__(self, label: str, advance: int = 1) -> None:
        self.done += advance
        if self.enabled:
            line = json.dumps({"done": self.done, "total": self.total, "label": label})
            print(f"@@progress {line}", file=sys.stderr, flush=True)


# -- a real server -----------------------------------------------------------------


@contextlib.contextmanager
def server(core: str = "cython", env: dict | None = None, args: tuple = ()):
    """Run ``python -m sw_runtime serve`` on a free port of 127.0.0.1 (the
    client package's own starter) and yield ``(host, port, pid)``, after
    checking the server runs the state core asked for."""
    full_env = {"SW_PURE": "1" if core == "pure" else "0", **(env or {})}
    with local_server_process(*args, env=full_env, timeout=30) as (url, proc):
        with urllib.request.urlopen(url.removesuffix("/api/v1") + "/healthz", timeout=5) as r:
            health = json.loads(r.read())
        want = "python" if core == "pure" else "cython"
        if health["core"] != want:
            raise RuntimeError(f"asked for the {want} core, the server runs {health['core']} (is the extension built?)")
        port = int(url.split(":")[2].split("/")[0])
        yield "127.0.0.1", port, proc.pid


# -- a lean HTTP/1.1 client --------------------------------------------------------


# Extra header lines on every request (``bench_batch.py --api-key`` puts the
# key's ``authorization`` line here).
HEADERS = ""


def post(path: str, body: bytes) -> bytes:
    """A whole pre-encoded ``POST`` request, ready to write on a keep-alive connection."""
    return (
        f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n{HEADERS}content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    ).encode() + body


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n{HEADERS}\r\n".encode()


class _Answers(asyncio.BufferedProtocol):
    """A keep-alive connection's reading side: the kernel writes answers
    straight into one buffer that grows to the largest answer and is reused
    (asyncio's StreamReader copies a 1.3 MB batch answer several times and
    pauses the socket past its limit: a fifth of the caller's CPU). Only the
    status and the body are taken from an answer; a body is copied out once."""

    def __init__(self):
        self.buf = bytearray(1 << 16)
        self.view = memoryview(self.buf)
        self.n = 0  # bytes held
        self.head = -1  # the head's length once read, else -1
        self.status = self.total = 0
        self.waiter = None
        self.transport = None
        self.lost = None

    def connection_made(self, transport):
        self.transport = transport

    def get_buffer(self, sizehint):
        free = len(self.buf) - self.n
        want = max(self.total - self.n, 1 << 16) if self.head >= 0 else 1 << 16
        if free < want:
            grown = bytearray(max(2 * len(self.buf), self.n + want))
            grown[:self.n] = self.view[:self.n]
            self.view.release()
            self.buf, self.view = grown, memoryview(grown)
        return self.view[self.n:]

    def buffer_updated(self, nbytes):
        self.n += nbytes
        if self.head < 0:
            end = self.buf.find(b"\r\n\r\n", 0, self.n)
            if end < 0:
                return
            head = bytes(self.view[:end + 2])
            self.status = int(head[9:12])
            i = head.find(b"content-length:")
            if i < 0:
                i = head.lower().find(b"content-length:")
            self.head = end + 4
            self.total = self.head + int(head[i + 15: head.index(b"\r\n", i)])
        if self.n >= self.total:
            body = bytes(self.view[self.head:self.total])
            rest = self.n - self.total
            if rest:  # never with one request at a time, but keep what came
                self.buf[:rest] = self.view[self.total:self.n]
            self.n, self.head = rest, -1
            waiter, self.waiter = self.waiter, None
            if waiter is not None and not waiter.done():
                waiter.set_result((self.status, body))

    def connection_lost(self, exc):
        self.lost = exc or ConnectionResetError("the server closed the connection")
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(asyncio.IncompleteReadError(b"", None))


class Conn:
    """One keep-alive connection writing pre-encoded requests and reading
    answers with as little work as possible (status and body bytes only)."""

    def __init__(self, transport, answers: _Answers):
        self.transport, self.answers = transport, answers

    @classmethod
    async def open(cls, host: str, port: int) -> "Conn":
        transport, answers = await asyncio.get_running_loop().create_connection(_Answers, host, port)
        return cls(transport, answers)

    async def request(self, raw: bytes) -> tuple:
        answers = self.answers
        if answers.lost is not None:
            raise asyncio.IncompleteReadError(b"", None)
        answers.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(raw)
        return await answers.waiter

    async def json(self, raw: bytes, expect: int = 200):
        import orjson

        status, body = await self.request(raw)
        if status != expect:
            raise RuntimeError(f"HTTP {status} (expected {expect}): {body[:500]!r}")
        return orjson.loads(body)

    def close(self) -> None:
        self.transport.close()


def use_uvloop() -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())


# -- the report --------------------------------------------------------------------


def row(measure: str, value, unit: str = "", target: str = "", met=None, note: str = "") -> dict:
    """One figure. ``value`` None prints as n/a; ``met`` is True, False or None (no target)."""
    return {"measure": measure, "value": value, "unit": unit, "target": target, "met": met, "note": note}


def report(bench: str, params: dict, rows: list, **extra) -> dict:
    return {"bench": bench, "machine": machine(), "params": params, "rows": rows, **extra}


def fmt(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        if value >= 100:
            return f"{value:,.0f}"
        if value >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}" if value < 1 else f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(rep: dict):
    """The report as a rich Table."""
    from rich.table import Table

    m = rep["machine"]
    t = Table(
        title=f"sandworld {rep['bench']}",
        caption=f"{m['nproc']} CPU {m['cpu']}, {m['memory']}, Python {m['python']}, {m['date']}, commit {m['commit']}",
    )
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_column("unit")
    t.add_column("target")
    t.add_column("", justify="center")
    t.add_column("note", overflow="fold")
    for r in rep["rows"]:
        mark = {True: "[green]met[/]", False: "[red]not met[/]", None: ""}[r["met"]]
        t.add_row(r["measure"], fmt(r["value"]), r["unit"], r["target"], mark, r["note"])
    return t


def emit(rep: dict, as_json: bool) -> None:
    """Print the report: a rich table, or JSON on stdout."""
    if as_json:
        print(json.dumps(rep, indent=2))
        return
    from rich.console import Console

    Console(width=max(140, Console().width)).print(table(rep))


def run_main(bench: str, parser: argparse.ArgumentParser, run, argv=None) -> int:
    """A script's ``main``: parse ``argv``, run the coroutine ``run(args)`` on
    uvloop and print the report it returns (``{"rows": [...], **extra}``),
    as a table or, with ``--json``, as JSON."""
    args = parser.parse_args(argv)
    use_uvloop()
    out = asyncio.run(run(args))
    params = {k: v for k, v in vars(args).items() if k != "json"}
    emit(report(bench, params, out.pop("rows"), **out), args.json)
    return 0


def common_args(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    # for ``sandworld bench``: progress lines on stderr
    parser.add_argument("--progress", action="store_true", help=argparse.SUPPRESS)
