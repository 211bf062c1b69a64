"""The results store opens files made by earlier versions: a results.sqlite
from before a column was added is migrated in place (real SQLite files, and
a real server started on such a folder)."""

from __future__ import annotations

import os
import sqlite3
import time
import zlib

import httpx
import orjson
import pytest
from sandworld.local import local_server_process

from sw_runtime.store.results import SCHEMA_VERSION, Results

# The table as the first release made it (commit 48fae54): no ``project``, no user_version.
_FIRST_SCHEMA = """
CREATE TABLE results (
    episode_id  TEXT PRIMARY KEY,
    environment TEXT NOT NULL,
    task_id     TEXT,
    ended_by    TEXT NOT NULL,
    ended_at    TEXT NOT NULL,
    score       REAL,
    passed      INTEGER,
    stored      REAL NOT NULL,
    summary     BLOB NOT NULL,
    evaluation  BLOB NOT NULL,
    trace       BLOB NOT NULL,
    end_state   BLOB NOT NULL
);
CREATE INDEX results_stored ON results (stored);
"""


def _pack(value) -> bytes:
    return zlib.compress(orjson.dumps(value), 1)


def _old_file(path, episode_id="ep_old") -> None:
    """A results.sqlite written by the first schema, holding one ended episode."""
    db = sqlite3.connect(path)
    db.executescript(_FIRST_SCHEMA)
    summary = {"episode_id": episode_id, "environment": "coinpurse", "task_id": "cp-01", "status": "ended",
               "ended_by": "idle", "ended_at": "2026-11-01T00:00:00.000Z", "steps": 1}
    evaluation = {"episode_id": episode_id, "score": 0.5, "pass": False}
    trace = [{"seq": 1, "tool": "get_balance", "ok": True, "result": {"balance": 10}}]
    db.execute("INSERT INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
               (episode_id, "coinpurse", "cp-01", "idle", summary["ended_at"], 0.5, 0, time.time(),
                _pack(summary), _pack(evaluation), _pack(trace), _pack({})))
    db.commit()
    db.close()


def _columns(path) -> list:
    db = sqlite3.connect(path)
    try:
        return [row[1] for row in db.execute("PRAGMA table_info(results)")]
    finally:
        db.close()


def _row(episode_id, project):
    summary = {"episode_id": episode_id, "environment": "coinpurse", "task_id": "cp-02", "status": "ended",
               "ended_by": "finished", "ended_at": "2026-12-01T00:00:00.000Z", "steps": 0}
    return summary, {"score": 1.0, "pass": True}, [], {}, project


def test_a_file_from_before_the_project_column_is_migrated_in_place(tmp_path):
    path = str(tmp_path / "results.sqlite")
    _old_file(path)
    assert "project" not in _columns(path)
    store = Results(path)
    try:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        old = store.get("ep_old")
        assert old["ended_by"] == "idle" and old["evaluation"]["score"] == 0.5
        assert old["trace"][0]["result"] == {"balance": 10}
        store.put_many([_row("ep_new", "team-a")])  # the new write path works on the migrated table
        assert store.get("ep_new", project="team-a")["evaluation"]["score"] == 1.0
        assert store.get("ep_new", project="team-b") is None
        assert [s["episode_id"] for s in store.page("", 10)] == ["ep_new", "ep_old"]
        assert [s["episode_id"] for s in store.page("", 10, project="team-a")] == ["ep_new"]
        assert len(store) == 2
    finally:
        store.close()
    assert _columns(path)[-4:] == ["project", "created_at", "agent_name", "forked_from"]
    again = Results(path)  # opening a current file changes nothing
    try:
        assert len(again) == 2 and _columns(path).count("project") == 1 and _columns(path).count("created_at") == 1
    finally:
        again.close()


def test_recent_lists_newest_first_with_the_viewers_filters_and_old_rows_by_their_ending(tmp_path):
    path = str(tmp_path / "results.sqlite")
    _old_file(path)  # ended 2026-11-01, stored before created_at was kept
    store = Results(path)
    try:
        rows = []
        for i, (agent, passed) in enumerate((("ann", True), ("bo", False), ("ann", False))):
            summary, evaluation, trace, end, project = _row(f"ep_{i}", "team-a")
            summary.update(created_at=f"2026-12-0{i + 1}T00:00:00.000Z", agent_name=agent,
                           forked_from="ep_0" if i == 2 else None)
            rows.append((summary, {**evaluation, "pass": passed}, trace, end, project))
        store.put_many(rows)
        assert [s["episode_id"] for s, _, _ in store.recent(None, 10)] == ["ep_2", "ep_1", "ep_0", "ep_old"]
        assert [s["episode_id"] for s, _, _ in store.recent(("2026-12-02T00:00:00.000Z", "ep_1"), 10)] == [
            "ep_0", "ep_old"]
        assert [s["episode_id"] for s, _, _ in store.recent(None, 10, agent_name="ann", passed=False)] == ["ep_2"]
        assert [s["episode_id"] for s, _, _ in store.recent(None, 10, forked_from="ep_0")] == ["ep_2"]
        assert [(s["episode_id"], p) for s, _, p in store.recent(None, 10, ended_by="idle")] == [("ep_old", False)]
        assert store.recent(None, 10, project="team-b") == []
    finally:
        store.close()


def test_a_file_from_a_newer_version_is_refused_with_a_clear_message(tmp_path):
    path = str(tmp_path / "results.sqlite")
    Results(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(RuntimeError, match="newer sandworld-runtime"):
        Results(path)


@pytest.mark.slow
def test_a_server_starts_on_a_folder_with_an_old_results_file(tmp_path):
    shard = tmp_path / "shard-00"
    shard.mkdir()
    _old_file(str(shard / "results.sqlite"))
    with local_server_process("--data-dir", str(tmp_path)) as (url, _):
        with httpx.Client(base_url=url, timeout=30) as http:
            old = http.get("/episodes/ep_old")
            assert old.status_code == 200 and old.json()["status"] == "ended"
            assert old.json()["evaluation"]["score"] == 0.5
            eid = http.post("/environments/coinpurse/episodes", json={"task_id": "cp-01", "seed": 1}).json()[
                "episode_id"]
            assert http.delete(f"/episodes/{eid}").status_code == 200  # ended and stored in the migrated table
            listed = http.get("/episodes", params={"status": "ended", "limit": 10}).json()
            assert {e["episode_id"] for e in listed["items"]} == {"ep_old", eid}
            assert http.get(f"/episodes/{eid}").json()["ended_by"] == "deleted"
    db = sqlite3.connect(str(shard / "results.sqlite"))  # the server stored its new result in the old file
    try:
        assert db.execute("SELECT ended_by FROM results WHERE episode_id = ?", (eid,)).fetchone() == ("deleted",)
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        db.close()


def test_commits_leave_the_wal_to_checkpoint_which_runs_on_its_own_connection(tmp_path):
    path = str(tmp_path / "results.sqlite")
    store = Results(path)
    try:
        rows = [_row(f"ep_{i:04d}", None) for i in range(1500)]
        for row in rows:
            row[2].append({"noise": os.urandom(3000).hex()})  # a page or two each, past an auto-checkpoint's 1,000
        store.put_many(rows)
        before = os.path.getsize(path)
        assert os.path.getsize(path + "-wal") > 1000 * 4096  # the commit did not checkpoint (it runs on the loop)
        assert before < 1 << 20
        store.checkpoint()  # (the sweeper runs it in a thread)
        assert os.path.getsize(path) > 1000 * 4096  # the rows are in the database file now
        assert len(store) == 1500
    finally:
        store.close()
