"""Slow clients cannot starve the others (issue 34, item 7): past its cap of
open connections, a client's oldest connection that is not running a
request is closed to make room, so new requests (``/healthz`` among them)
are answered even while hundreds of slow connections are held open and the
server is short of descriptors. A real server, real sockets."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import time

import httpx
import pytest
from sandworld.local import local_server_process

pytestmark = pytest.mark.slow


def test_300_slow_clients_do_not_stop_healthz():
    with local_server_process(env={"SW_MAX_CLIENT_CONNECTIONS": "50"}) as (api, proc):
        root = api.removesuffix("/api/v1")
        port = httpx.URL(api).port
        resource.prlimit(proc.pid, resource.RLIMIT_NOFILE, (160, resource.prlimit(proc.pid, resource.RLIMIT_NOFILE)[1]))
        slow = []
        try:
            for _ in range(300):
                s = socket.create_connection(("127.0.0.1", port))
                s.sendall(b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n")  # and never the end of the headers
                slow.append(s)
            time.sleep(0.5)
            for _ in range(3):  # and again: reopened slow connections do not keep it failing
                t0 = time.monotonic()
                r = httpx.get(root + "/healthz", timeout=5)
                assert r.status_code == 200 and time.monotonic() - t0 < 3
                for s in slow[:50]:
                    s.close()
                slow = slow[50:] + [socket.create_connection(("127.0.0.1", port)) for _ in range(50)]
        finally:
            for s in slow:
                s.close()


def test_the_default_cap_is_a_quarter_of_the_descriptors():
    # a server that may open 400 descriptors lets one client hold 100 connections
    code = ("import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (400, 400)); "
            "from sw_runtime.api.protocol import configured; from sw_runtime.config import Settings; "
            "print(configured(Settings()).max_client_connections)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "100", out.stderr
