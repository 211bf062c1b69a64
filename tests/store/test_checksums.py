"""Every line of the action log carries a checksum (issue 34, item 4): a
damaged line is never replayed into a wrong state nor cut off as if it had
never been acknowledged. The replay stops at the first bad line, says
exactly what it left out, and the server serves what it has read-only
(writes 503, ``/readyz`` not ready) until an operator decides. Logs from
before checksums (no version header) are still read, and rewritten with
them. Real servers, real SIGKILL."""

from __future__ import annotations

import signal

import pytest

from tests.runtime.test_api import assert_error, create
from tests.store.test_recovery import root_get, server

pytestmark = pytest.mark.slow

HEADER = b"#sandworld-log 2\n"


def _kill(proc) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _three_episodes(tmp_path) -> list:
    with server(tmp_path) as (http, proc):
        ids = []
        for seed in (1, 2, 3):
            eid = create(http, "dummy", task_id="dm-01", seed=seed)["episode_id"]
            http.post(f"/episodes/{eid}/step", json={"tool": "set", "arguments": {"key": "it-01", "value": 11}})
            ids.append(eid)
        _kill(proc)
    return ids


def _flip(path, line_no: int, old: bytes, new: bytes) -> None:
    """Change ``old`` to ``new`` (same length, still valid JSON) in line ``line_no`` (0 is the header)."""
    lines = path.read_bytes().split(b"\n")
    assert old in lines[line_no], lines[line_no]
    lines[line_no] = lines[line_no].replace(old, new, 1)
    path.write_bytes(b"\n".join(lines))


def test_each_line_is_checksummed_under_a_version_header(tmp_path):
    _three_episodes(tmp_path)
    data = (tmp_path / "shard-00" / "actions.log").read_bytes()
    assert data.startswith(HEADER)
    for line in data[len(HEADER):].splitlines():
        checksum, _, payload = line.partition(b" ")
        assert len(checksum) == 8 and payload.startswith(b"[")


def test_a_flipped_byte_mid_file_stops_the_replay_there_and_the_server_serves_read_only(tmp_path):
    ids = _three_episodes(tmp_path)
    log = tmp_path / "shard-00" / "actions.log"
    size = log.stat().st_size
    _flip(log, 4, b'"value":11', b'"value":12')  # the second episode's step: valid JSON, wrong state
    with server(tmp_path) as (http, _):
        replay = root_get(http, "/healthz").json()["replay"]
        dropped = replay["dropped"]
        assert dropped["line"] == 4 and dropped["lines"] == 3  # that line and the two after it
        assert dropped["reason"] == "checksum" and dropped["offset"] > 0 and dropped["bytes"] > 0
        ready = root_get(http, "/readyz")
        assert ready.status_code == 503 and ready.json()["checks"]["log_intact"] is False
        # what was read before the bad line is served; nothing after it is made up
        assert http.get(f"/episodes/{ids[0]}").json()["steps"] == 1
        assert http.get(f"/episodes/{ids[1]}").json()["steps"] == 0  # its create was read, its step not
        assert_error(http.get(f"/episodes/{ids[2]}"), 404, "not_found")
        err = assert_error(http.post(f"/episodes/{ids[0]}/step", json={"tool": "noop"}), 503, "storage_unavailable")
        assert "line 4" in err["message"] and "read-only" in err["message"]
        assert_error(http.post("/environments/dummy/episodes", json={}), 503, "storage_unavailable")
    assert log.stat().st_size == size  # the damaged log is kept whole for the operator


def test_a_flipped_byte_in_the_complete_last_line_is_not_taken_for_a_torn_one(tmp_path):
    with server(tmp_path) as (http, proc):
        eid = create(http, "dummy", task_id="dm-01", seed=9)["episode_id"]  # acknowledged: the last line
        _kill(proc)
    log = tmp_path / "shard-00" / "actions.log"
    _flip(log, 1, b'"seed":9', b'"seed":8')
    size = log.stat().st_size
    with server(tmp_path) as (http, _):
        replay = root_get(http, "/healthz").json()["replay"]
        assert replay["dropped"]["line"] == 1 and replay["dropped"]["lines"] == 1
        assert root_get(http, "/readyz").status_code == 503
        assert_error(http.get(f"/episodes/{eid}"), 404, "not_found")
    assert log.stat().st_size == size  # not cut off as "torn, never acknowledged"


def test_a_torn_last_line_is_still_cut_off_and_the_server_is_ready(tmp_path):
    ids = _three_episodes(tmp_path)
    log = tmp_path / "shard-00" / "actions.log"
    with open(log, "ab") as f:
        f.write(b'0badc0de [["s","ep_x"')  # the server died mid-write: never acknowledged
    with server(tmp_path) as (http, _):
        replay = root_get(http, "/healthz").json()["replay"]
        assert replay["dropped"] is None and replay["mismatches"] == 0
        assert root_get(http, "/readyz").status_code == 200
        assert all(http.get(f"/episodes/{e}").json()["steps"] == 1 for e in ids)


def test_a_log_from_before_checksums_is_read_and_rewritten_with_them(tmp_path):
    ids = _three_episodes(tmp_path)
    log = tmp_path / "shard-00" / "actions.log"
    data = log.read_bytes()
    old = b"".join(line.partition(b" ")[2] + b"\n" for line in data[len(HEADER):].splitlines())
    log.write_bytes(old)  # as a server before checksums wrote it: bare JSON lines, no header
    with server(tmp_path) as (http, _):
        replay = root_get(http, "/healthz").json()["replay"]
        assert replay["mismatches"] == 0 and replay["steps"] == 3 and replay["dropped"] is None
        assert root_get(http, "/readyz").status_code == 200
        assert all(http.get(f"/episodes/{e}").json()["steps"] == 1 for e in ids)
    assert log.read_bytes().startswith(HEADER)
