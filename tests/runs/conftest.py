"""Fixtures for the runs API: the shared real server, seen at its root."""

from __future__ import annotations

import httpx
import pytest

QUICKSTART = {"environment": "offsite-planning", "task": "Schedule the Q4 offsite",
              "agent": {"name": "ops-assistant", "revision": "1"}}


@pytest.fixture(scope="session")
def base(api):
    """The server's root URL (``/v1`` and ``/api/v1`` hang off it)."""
    return api.removesuffix("/api/v1")


@pytest.fixture
def v1(base):
    with httpx.Client(base_url=base, timeout=30, headers={"authorization": "Bearer any-key"}) as client:
        yield client


def new_run(client, **fields) -> dict:
    r = client.post("/v1/runs", json={**QUICKSTART, **fields})
    assert r.status_code == 201, r.text
    return r.json()
