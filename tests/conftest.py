"""Shared fixtures: real servers on real sockets."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(*args: str, env: dict | None = None):
    """Start ``sandworld serve`` in its own process on a free port and yield
    its API base URL; stop it afterwards."""
    port = free_port()
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "sw_runtime", "serve", "--port", str(port), *args],
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                out = proc.stdout.read().decode(errors="replace")
                raise RuntimeError(f"server exited with {proc.returncode}:\n{out}")
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("server did not answer /healthz within 30 s")
            time.sleep(0.05)
        yield f"{base}/api/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


@pytest.fixture(scope="session")
def api():
    """The API base URL of one server shared by the session's tests."""
    with running_server() as url:
        yield url


@pytest.fixture
def http(api):
    with httpx.Client(base_url=api, timeout=30) as client:
        yield client
