"""Start a Sandworld server of this installation in a child process.

``sandworld eval`` uses it when no server URL is given, so one command runs a
benchmark with nothing else running::

    with local_server() as url:      # http://127.0.0.1:<free port>/api/v1
        env = SandworldEnv(url)
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time

import httpx

from . import errors
from .compat import check_server_version


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> int:
    """A port P such that P..P+n-1 are all free on 127.0.0.1 (for ``serve --replicas n``)."""
    for _ in range(100):
        port = free_port()
        socks = []
        try:
            for p in range(port + 1, port + n):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return port
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise OSError(f"found no {n} free ports in a row")


@contextlib.contextmanager
def local_server(*args: str, env: dict | None = None, timeout: float = 60.0):
    """Run ``sandworld serve`` on a free port of 127.0.0.1 for the block; yield
    its API base URL. Extra ``args`` go to ``serve``; ``env`` adds variables."""
    with local_server_process(*args, env=env, timeout=timeout) as (url, _proc):
        yield url


@contextlib.contextmanager
def local_server_process(*args: str, env: dict | None = None, timeout: float = 60.0):
    """``local_server``, yielding ``(api_url, process)`` for callers that
    watch the server itself (the benchmarks read its CPU time)."""
    if importlib.util.find_spec("sw_runtime") is None:
        raise errors.SandworldError(
            "starting a local server needs the server: pip install sandworld-runtime, "
            "or give the URL of a running server ($SANDWORLD_API_URL)", code="server_failed")
    port = free_port()
    full_env = {**os.environ, **(env or {})}
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sw_runtime", "serve", "--host", "127.0.0.1", "--port", str(port), *args],
        env=full_env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                log.seek(0)
                out = log.read().decode(errors="replace")
                raise errors.SandworldError(f"the local server exited with {proc.returncode}:\n{out}",
                                            code="server_failed")
            try:
                health = httpx.get(f"{root}/healthz", timeout=1)
                if health.status_code == 200:
                    check_server_version(health.json().get("version"), where=root)
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise errors.SandworldError(f"the local server did not answer within {timeout:g} s",
                                            code="server_failed")
            time.sleep(0.05)
        yield f"{root}/api/v1", proc
    finally:
        stop(proc)
        log.close()


def stop(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a server process: SIGTERM (it shuts down cleanly), then SIGKILL after ``timeout`` s."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
