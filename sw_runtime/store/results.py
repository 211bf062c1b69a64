"""Scored endings, kept in SQLite under the data folder.

Every episode that ends (``finished`` by a submit, or ``idle``, ``timeout``
or ``step_limit``) is scored and stored here: its summary, its evaluation
(score, checks, ``state_diff``, end digest), its trace and its end state (the
records that differ from its start; the start itself is reproducible from
environment, version and seed). ``GET /episodes/{id}`` answers from here once
the episode has left memory. Rows older than the retention are deleted.
"""

from __future__ import annotations

import sqlite3
import time
import zlib

import orjson

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
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
    end_state   BLOB NOT NULL,
    project     TEXT
);
CREATE INDEX IF NOT EXISTS results_stored ON results (stored);
"""
# The viewer lists episodes newest first (``recent``); made after the columns it reads exist.
_INDEXES = "CREATE INDEX IF NOT EXISTS results_created ON results (created_at, episode_id)"

# Columns added to ``results`` after its first release, in the order they were
# added (``ALTER TABLE ... ADD COLUMN`` appends, so the table keeps the order
# of ``_SCHEMA``). Schema version N has the first N - 1 of them; the file's
# version is its ``PRAGMA user_version`` (0 in files made before it was set).
_ADDED = (("project", "TEXT"), ("created_at", "TEXT"), ("agent_name", "TEXT"), ("forked_from", "TEXT"))
SCHEMA_VERSION = 1 + len(_ADDED)


def _pack(value) -> bytes:
    return zlib.compress(orjson.dumps(value), 1)


def _unpack(blob: bytes):
    return orjson.loads(zlib.decompress(blob))


class Results:
    """The results table of one server (``results.sqlite`` in its data folder)."""

    def __init__(self, path: str, durability: str = "write", retention: float = 30 * 86400.0,
                 max_rows: int = 0):
        self.path = path
        self.retention = retention
        self.max_rows = max_rows  # > 0: keep at most this many (the in-memory store of --durability none)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        # WAL with synchronous=NORMAL survives a killed process; FULL also a power cut.
        self.db.execute(f"PRAGMA synchronous={'FULL' if durability == 'fsync' else 'NORMAL'}")
        # No checkpoint at commit: a checkpoint fsyncs the WAL and the database
        # file, and at a commit that runs on the event loop (measured in the
        # soak: 200-300 ms). The sweeper calls ``checkpoint`` from a thread.
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        self._checkpointer = None
        self._migrate()

    def checkpoint(self) -> None:
        """Copy the WAL into the database file, without blocking writers
        (``PASSIVE``), on a connection of its own: call it from a thread."""
        if self.path == ":memory:":
            return
        if self._checkpointer is None:
            self._checkpointer = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _migrate(self) -> None:
        """Bring a results file made by an earlier version up to this one, in
        place: add the columns it lacks and record the schema version. A file
        from a later version (more columns than this one writes) is refused:
        this version's rows would not fit it."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            self.db.close()
            raise RuntimeError(
                f"{self.path} has results schema version {version}, made by a newer sandworld-runtime than this "
                f"one (schema {SCHEMA_VERSION}): run that version on this data folder, or give this server "
                "another --data-dir")
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            have = {row[1] for row in self.db.execute("PRAGMA table_info(results)")}
            for name, kind in _ADDED:
                if name not in have:
                    self.db.execute(f"ALTER TABLE results ADD COLUMN {name} {kind}")
                    if name == "created_at":  # rows from before it: their ending is the closest time known
                        self.db.execute("UPDATE results SET created_at = ended_at")
            self.db.execute(_INDEXES)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def put_many(self, rows: list) -> None:
        """Store ended episodes: each row is (summary, evaluation, trace, end_state, project)."""
        now = time.time()
        packed = []
        for summary, evaluation, trace, end_state, project in rows:
            packed.append((
                summary["episode_id"], summary["environment"], summary["task_id"], summary["ended_by"],
                summary["ended_at"], evaluation.get("score"), _flag(evaluation.get("pass")), now,
                _pack(summary), _pack(evaluation), _pack(trace), _pack(end_state), project,
                summary.get("created_at"), summary.get("agent_name"), summary.get("forked_from"),
            ))
        self.db.execute("BEGIN")
        try:
            self.db.executemany("INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", packed)
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def has(self, episode_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM results WHERE episode_id = ?", (episode_id,)).fetchone() is not None

    def ended_by(self, episode_id: str, project: str | None = None) -> str | None:
        """How a stored episode ended (None if not stored, or, with ``project``, another project's)."""
        row = self.db.execute("SELECT ended_by, project FROM results WHERE episode_id = ?", (episode_id,)).fetchone()
        return None if row is None or (project is not None and row[1] != project) else row[0]

    def get(self, episode_id: str, *, trace: bool = True, end_state: bool = False,
            project: str | None = None, raw_trace: bool = False) -> dict | None:
        """An ended episode as ``GET /episodes/{id}`` shows it, or None (also
        for another project's, when ``project`` is given). ``raw_trace``: the
        trace as its stored JSON (an ``orjson.Fragment``), not decoded, for a
        caller that encodes the answer with orjson. Safe to call from a thread."""
        row = self.db.execute(
            "SELECT summary, evaluation, trace, end_state, project FROM results WHERE episode_id = ?", (episode_id,)
        ).fetchone()
        if row is None or (project is not None and row[4] != project):
            return None
        body = _unpack(row[0])
        if trace:
            body["trace"] = orjson.Fragment(zlib.decompress(row[2])) if raw_trace else _unpack(row[2])
        body["evaluation"] = _unpack(row[1])
        if end_state:
            body["end_state"] = _unpack(row[3])
        return body

    def page(self, after: str, limit: int, environment: str | None = None, task_id: str | None = None,
             project: str | None = None) -> list:
        """Summaries of stored episodes with ids after ``after``, in id order."""
        sql = "SELECT summary FROM results WHERE episode_id > ?"
        args: list = [after]
        if project is not None:
            sql += " AND project = ?"
            args.append(project)
        if environment is not None:
            sql += " AND environment = ?"
            args.append(environment)
        if task_id is not None:
            sql += " AND task_id = ?"
            args.append(task_id)
        sql += " ORDER BY episode_id LIMIT ?"
        args.append(limit)
        return [_unpack(r[0]) for r in self.db.execute(sql, args)]

    def recent(self, before: tuple | None, limit: int, *, environment: str | None = None,
               task_id: str | None = None, ended_by: str | None = None, passed: bool | None = None,
               agent_name: str | None = None, forked_from: str | None = None,
               project: str | None = None) -> list:
        """``(summary, score, pass)`` of stored episodes, newest first (by
        ``(created_at, episode_id)``, below ``before`` when given): the viewer's list."""
        sql = "SELECT summary, score, passed FROM results WHERE 1"
        args: list = []
        if before is not None:
            sql += " AND (created_at, episode_id) < (?, ?)"
            args += list(before)
        for column, value in (("project", project), ("environment", environment), ("task_id", task_id),
                              ("ended_by", ended_by), ("agent_name", agent_name),
                              ("forked_from", forked_from)):
            if value is not None:
                sql += f" AND {column} = ?"
                args.append(value)
        if passed is not None:
            sql += " AND passed = ?"
            args.append(int(passed))
        sql += " ORDER BY created_at DESC, episode_id DESC LIMIT ?"
        args.append(limit)
        return [(_unpack(r[0]), r[1], None if r[2] is None else bool(r[2])) for r in self.db.execute(sql, args)]

    def prune(self, now: float | None = None) -> int:
        """Delete results older than the retention (0 keeps them forever)."""
        if self.retention <= 0:
            return 0
        cutoff = (time.time() if now is None else now) - self.retention
        gone = self.db.execute("DELETE FROM results WHERE stored < ?", (cutoff,)).rowcount
        if self.max_rows:
            gone += self.db.execute(
                "DELETE FROM results WHERE rowid IN (SELECT rowid FROM results ORDER BY stored "
                "LIMIT max(0, (SELECT count(*) FROM results) - ?))", (self.max_rows,)
            ).rowcount
        return gone

    def __len__(self) -> int:
        return self.db.execute("SELECT count(*) FROM results").fetchone()[0]

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        self.db.close()  # (the last connection to close checkpoints the WAL)


def _flag(value):
    return None if value is None else int(bool(value))
