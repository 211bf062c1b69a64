"""Starting shards: a port that is taken fails at once, saying which."""

from __future__ import annotations

import socket
import time

import pytest

from sw_runtime.app import build_app
from sw_runtime.cluster.launch import Cluster

pytestmark = pytest.mark.slow


def test_a_taken_port_fails_the_start_at_once_with_the_reason(shards):
    # `shards` has joined the session cluster's Ray: this start uses it
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        began = time.monotonic()
        with pytest.raises(RuntimeError) as failed:
            Cluster.start(1, build_app, port=port, name="taken-port", startup_timeout=120)
    assert f"cannot listen on 127.0.0.1:{port}" in str(failed.value)
    assert "Address already in use" in str(failed.value)
    assert time.monotonic() - began < 60  # not the startup timeout
