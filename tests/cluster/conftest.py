"""A real cluster for the cluster tests: ``sandworld serve --replicas 2`` in a
child process, on an embedded local Ray, as a user starts it. The tests that
need Ray in their own process (the Ray-native handle) join that same Ray."""

from __future__ import annotations

import contextlib
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time

import httpx
import pytest

from sandworld.local import free_ports, stop

pytest.importorskip("ray", reason="the cluster runs on Ray: pip install -e '.[dev]'")

START = 240.0  # seconds Ray and two shards may take to start on a busy 2-core machine


def quiet_ports(n: int) -> int:
    """A port P such that P..P+n-1 are free and lie below the kernel's ephemeral range.

    ``free_ports`` takes them from that range. There, while a shard is down (the
    fault tests kill one), any connection this machine opens may get its port as
    its local port, and hold it into TIME_WAIT; a connect retried at the dead
    port may even connect to itself. Below the range only a server takes a port.
    """
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):  # not Linux: the kernel's range is elsewhere
        return free_ports(n)
    first = 20000  # above Ray's worker ports (10002-19999 when Ray is told to use them)
    for _ in range(200):
        port = random.randrange(first, max(first + 1, low - n))
        socks = []
        try:
            for p in range(port, port + n):
                socks.append(socket.socket())
                socks[-1].bind(("127.0.0.1", p))
            return port
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    return free_ports(n)


def answers(url: str) -> bool:
    try:
        return httpx.get(url.removesuffix("/api/v1") + "/healthz", timeout=2).status_code == 200
    except httpx.TransportError:
        return False


class Running:
    """A ``serve --replicas`` process: its shards' URLs, its Ray address, its output."""

    def __init__(self, proc, log, urls: list):
        self.proc, self.log, self.urls = proc, log, urls

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    @property
    def ray_address(self) -> str:
        return re.search(r"Ray: (\S+)", self.output()).group(1)


@contextlib.contextmanager
def serve_replicas(n: int, *args: str, cwd=None, env: dict | None = None):
    """Run ``sandworld serve --replicas n`` (in folder ``cwd``) for the block; yield a ``Running``."""
    port = quiet_ports(n)
    log = tempfile.TemporaryFile()
    scratch = None
    if "--data-dir" not in args:  # each shard keeps its action log in DATA/shard-N: a throwaway one here
        scratch = tempfile.TemporaryDirectory(prefix="sandworld-cluster-data-")
        args = (*args, "--data-dir", scratch.name)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sw_runtime", "serve", "--replicas", str(n), "--port", str(port), *args],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=dict(env or os.environ), cwd=cwd,
    )
    running = Running(proc, log, [f"http://127.0.0.1:{port + i}/api/v1" for i in range(n)])
    try:
        deadline = time.monotonic() + START
        while not ("serving;" in running.output() and all(answers(u) for u in running.urls)):
            if proc.poll() is not None:
                raise RuntimeError(f"serve --replicas exited with {proc.returncode}:\n{running.output()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the cluster did not start within {START:g} s:\n{running.output()}")
            time.sleep(0.2)
        yield running
    finally:
        stop(proc, timeout=60)  # the shards and the embedded Ray stop on SIGTERM
        log.close()
        if scratch is not None:
            scratch.cleanup()


@pytest.fixture(scope="session")
def cluster():
    """Two shards, shared by the session's cluster tests."""
    with serve_replicas(2) as running:
        yield running


@pytest.fixture(scope="session")
def shards(cluster):
    """``sandworld.ray.RayShards`` on the cluster's Ray, from this process."""
    import ray

    from sandworld.ray import RayShards, join

    join(cluster.ray_address)
    try:
        yield RayShards()
    finally:
        ray.shutdown()
