"""``/batch`` takes an ``Idempotency-Key`` (issue 34, item 5): a retry gets
the first answer again and applies nothing twice; a keyed batch cut off by
a crash says how many of its calls were applied, rather than applying them
again. Real servers, real SIGKILL."""

from __future__ import annotations

import os
import signal
import threading
import time

import httpx
import pytest

from tests.runtime.test_api import assert_error, create
from tests.store.test_recovery import server


def _steps(http, ids) -> int:
    return sum(http.get(f"/episodes/{e}").json()["steps"] for e in ids)


def test_a_keyed_batch_retried_is_answered_again_and_applied_once(http):
    eid = create(http, "coinpurse", task_id="cp-02", seed=4)["episode_id"]
    body = {"calls": [{"episode_id": eid, "tool": "get_balance", "arguments": {}}] * 3}
    key = {"Idempotency-Key": f"batch-{eid}"}
    first = http.post("/batch", json=body, headers=key)
    assert first.status_code == 200 and "idempotent-replayed" not in first.headers
    again = http.post("/batch", json=body, headers=key)
    assert again.status_code == 200 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert http.get(f"/episodes/{eid}").json()["steps"] == 3
    other = {"calls": body["calls"][:1]}
    assert_error(http.post("/batch", json=other, headers=key), 409, "idempotency_key_reused")


@pytest.mark.slow
def test_a_keyed_batch_cut_off_by_a_crash_says_how_many_calls_it_applied(tmp_path):
    log = tmp_path / "shard-00" / "actions.log"
    with server(tmp_path, env={"SW_STEP_LIMIT": "100000"}) as (http, proc):
        ids = [create(http, "coinpurse", task_id="cp-02", seed=i)["episode_id"] for i in range(8)]
        calls = [{"episode_id": ids[i % 8], "tool": "get_balance", "arguments": {}} for i in range(40_000)]
        body = {"calls": calls}
        start = os.path.getsize(log)
        t = threading.Thread(target=lambda: _swallow(http, body))
        t.start()
        deadline = time.monotonic() + 60
        while os.path.getsize(log) < start + 300_000 and time.monotonic() < deadline:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        t.join()
    with server(tmp_path, env={"SW_STEP_LIMIT": "100000"}) as (http, _):
        applied = _steps(http, ids)
        assert 0 < applied < 40_000
        r = http.post("/batch", json=body, headers={"Idempotency-Key": "big-1"})
        assert r.status_code == 409, (r.status_code, r.text[:300])
        err = assert_error(r, 409, "batch_partly_applied")
        assert err["applied"] == applied and err["calls"] == 40_000
        assert _steps(http, ids) == applied  # nothing ran twice
        rest = http.post("/batch", json={"calls": calls[applied:]}, headers={"Idempotency-Key": "big-1-rest"})
        assert rest.status_code == 200 and _steps(http, ids) == 40_000


def _swallow(http, body) -> None:
    try:
        http.post("/batch", json=body, headers={"Idempotency-Key": "big-1"}, timeout=120)
    except httpx.TransportError:
        pass  # killed mid-request: never acknowledged
