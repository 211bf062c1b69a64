"""Shared fixtures: real servers on real sockets."""

from __future__ import annotations

import os
import tempfile

import httpx
import pytest
from sandworld.local import local_server

# Servers the tests start keep their data folder (keys, webhooks, logs) in a
# temporary folder, never in ./sandworld-data of the checkout.
os.environ.setdefault("SW_DATA_DIR", tempfile.mkdtemp(prefix="sandworld-test-data-"))


# The tests start servers exactly as `sandworld eval` does: the product's own
# starter (a child process on a free port, its log in a temporary file).
running_server = local_server


@pytest.fixture(scope="session")
def api():
    """The API base URL of one server shared by the session's tests."""
    with running_server() as url:
        yield url


@pytest.fixture
def http(api):
    with httpx.Client(base_url=api, timeout=30) as client:
        yield client
