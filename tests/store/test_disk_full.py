"""A disk that stops taking writes (issue 34, item 1): a request whose log
line cannot be written changes nothing in memory, answers 503 in the
envelope, and ``/readyz`` says not ready until the disk takes writes again.

A real server process; its file-size limit (``ulimit -f``, set on the
running process with ``prlimit``) stands in for a full disk: past it every
write fails with ``EFBIG``, as a full disk fails with ``ENOSPC``."""

from __future__ import annotations

import os
import resource
import signal

import httpx
import pytest

from tests.runtime.test_api import assert_error, create
from tests.store.test_recovery import root_get, server

pytestmark = pytest.mark.slow


def _limit(pid: int, size: int | None) -> None:
    """``ulimit -f`` on a running process: the soft limit only, so it can be lifted again."""
    hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)[1]
    resource.prlimit(pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY if size is None else size, hard))


def test_a_write_that_misses_the_log_changes_nothing_and_answers_503(tmp_path):
    log = tmp_path / "shard-00" / "actions.log"
    with server(tmp_path) as (http, proc):
        eid = create(http, "coinpurse", task_id="cp-02", seed=1)["episode_id"]
        assert http.post(f"/episodes/{eid}/step", json={"tool": "get_balance", "arguments": {}}).status_code == 200
        before = http.get(f"/episodes/{eid}").json()
        size = os.path.getsize(log)
        _limit(proc.pid, size)  # the disk is full from here on
        step = http.post(f"/episodes/{eid}/step", json={"tool": "list_requests", "arguments": {}})
        err = assert_error(step, 503, "storage_unavailable")
        assert "disk" in err["message"] or "log" in err["message"]
        after = http.get(f"/episodes/{eid}").json()
        assert after["steps"] == before["steps"] and after["digest"] == before["digest"]
        assert after["trace"] == before["trace"]
        batch = http.post("/batch", json={"calls": [{"episode_id": eid, "tool": "list_contacts", "arguments": {}}]})
        assert_error(batch, 503, "storage_unavailable")
        made = http.post("/environments/dummy/episodes", json={"task_id": "dm-01"},
                         headers={"Idempotency-Key": "full-1"})
        assert_error(made, 503, "storage_unavailable")
        listed = http.get("/episodes", params={"environment": "dummy"}).json()
        assert listed["items"] == []  # the refused create is not in memory
        assert http.get(f"/episodes/{eid}").json()["steps"] == before["steps"]
        ready = root_get(http, "/readyz")
        assert ready.status_code == 503 and ready.json()["checks"]["log_writable"] is False
        assert os.path.getsize(log) == size  # no torn line left behind
        assert root_get(http, "/healthz").status_code == 200  # alive, just not ready

        _limit(proc.pid, None)  # the disk takes writes again
        ready = root_get(http, "/readyz")
        assert ready.status_code == 200 and ready.json()["checks"]["log_writable"] is True
        step = http.post(f"/episodes/{eid}/step", json={"tool": "list_requests", "arguments": {}})
        assert step.status_code == 200 and step.json()["step"] == before["steps"] + 1
        again = http.post("/environments/dummy/episodes", json={"task_id": "dm-01"},
                          headers={"Idempotency-Key": "full-1"})
        assert again.status_code == 201 and "idempotent-replayed" not in again.headers
        acked = http.get(f"/episodes/{eid}").json()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with server(tmp_path) as (http, _):
        assert root_get(http, "/healthz").json()["replay"]["mismatches"] == 0
        now = http.get(f"/episodes/{eid}").json()
        assert now["steps"] == acked["steps"] and now["digest"] == acked["digest"]
        assert http.get(f"/episodes/{again.json()['episode_id']}").status_code == 200


def test_a_batch_create_and_a_submit_that_miss_the_log_change_nothing(tmp_path):
    log = tmp_path / "shard-00" / "actions.log"
    with server(tmp_path) as (http, proc):
        eid = create(http, "dummy", task_id="dm-01")["episode_id"]
        _limit(proc.pid, os.path.getsize(log))
        made = http.post("/batch/episodes", json={"episodes": [{"environment": "dummy", "task_id": "dm-01"}] * 3})
        assert_error(made, 503, "storage_unavailable")
        _limit(proc.pid, None)
        assert root_get(http, "/readyz").status_code == 200
        assert len(http.get("/episodes").json()["items"]) == 1  # the three were never kept
        _limit(proc.pid, os.path.getsize(log))
        assert_error(http.post(f"/episodes/{eid}/submit", json={"output": "x"}), 503, "storage_unavailable")
        _limit(proc.pid, None)
        assert root_get(http, "/readyz").status_code == 200
        assert http.get(f"/episodes/{eid}").json()["status"] == "open"
        assert http.post(f"/episodes/{eid}/submit", json={"output": "x"}).status_code == 200
