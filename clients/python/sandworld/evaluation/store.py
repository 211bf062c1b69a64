"""Evaluation results in SQLite: ``<data dir>/sandworld.db``.

Two tables. ``runs``: one row per ``sandworld eval`` (agent, world(s) and
version, server version, options). ``trials``: one row per episode of a run,
keyed ``(run_id, world, task_id, seed, trial)``, with the evaluation and the
trace as JSON. A row is written as soon as its trial ends, so an interrupted
run keeps what it finished, and ``--resume`` runs only what is missing.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

DB_NAME = "sandworld.db"

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,             -- running, finished, interrupted
    world TEXT NOT NULL,
    world_version TEXT,
    server_version TEXT,
    server_core TEXT,
    server_url TEXT,
    client_version TEXT,
    agent TEXT NOT NULL,
    agent_name TEXT,
    trials INTEGER NOT NULL,          -- K: trials per (task, seed)
    meta TEXT NOT NULL                -- JSON: tasks, seeds, task titles, options
);
CREATE TABLE IF NOT EXISTS trials (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    world TEXT NOT NULL DEFAULT '',
    task_id TEXT NOT NULL,
    seed INTEGER NOT NULL,
    trial INTEGER NOT NULL,
    episode_id TEXT,
    status TEXT NOT NULL,             -- scored, masked (infra failure: not the agent's), error
    training INTEGER NOT NULL DEFAULT 0,
    pass INTEGER,
    score REAL,
    steps INTEGER,
    write_steps INTEGER,
    tool_errors INTEGER,
    failure_kind TEXT,
    error TEXT,
    output TEXT,
    instruction TEXT,
    duration_s REAL,
    finished_at TEXT,
    evaluation TEXT,                  -- JSON: the submit answer
    trace TEXT,                       -- JSON: the episode's trace
    PRIMARY KEY (run_id, world, task_id, seed, trial)
);
"""


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_run_id() -> str:
    return "run_" + datetime.now(timezone.utc).strftime("%Y%m%d_%H%M%S") + "_" + secrets.token_hex(3)


class Store:
    """The evaluation database under ``data_dir`` (created on first use)."""

    def __init__(self, data_dir, *, path=None):
        """``path``: a results file of another name (``sandworld view FILE``),
        which must exist; ``data_dir`` is then its folder."""
        if path is not None:
            self.path = Path(path)
            if not self.path.is_file():
                raise FileNotFoundError(f"no results file {self.path}")
            self.data_dir = self.path.parent
        else:
            self.data_dir = Path(data_dir)
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self.path = self.data_dir / DB_NAME
        self.db = sqlite3.connect(self.path)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(SCHEMA)
        columns = {r["name"] for r in self.db.execute("PRAGMA table_info(trials)")}
        if "world" not in columns:  # a database from before runs over several worlds
            with self.db:
                self.db.execute("ALTER TABLE trials ADD COLUMN world TEXT NOT NULL DEFAULT ''")
                self.db.execute("UPDATE trials SET world = (SELECT world FROM runs WHERE runs.run_id = trials.run_id)")

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- writing -----------------------------------------------------------------------

    def create_run(self, *, world: str, agent: str, trials: int, meta: dict, world_version=None,
                   server_version=None, server_core=None, server_url=None, client_version=None,
                   agent_name=None, run_id: str | None = None) -> str:
        run_id = run_id or new_run_id()
        with self.db:
            self.db.execute(
                "INSERT INTO runs (run_id, created_at, status, world, world_version, server_version, server_core, "
                "server_url, client_version, agent, agent_name, trials, meta) "
                "VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, _now(), world, world_version, server_version, server_core, server_url, client_version,
                 agent, agent_name, trials, json.dumps(meta)),
            )
        return run_id

    def add_trial(self, run_id: str, row: dict) -> None:
        evaluation = row.get("evaluation")
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO trials (run_id, world, task_id, seed, trial, episode_id, status, training, "
                "pass, score, steps, write_steps, tool_errors, failure_kind, error, output, instruction, duration_s, "
                "finished_at, evaluation, trace) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id, row.get("world") or "", row["task_id"], row["seed"], row["trial"], row.get("episode_id"), row["status"],
                    int(bool(row.get("training"))), _int(row.get("pass")), row.get("score"), row.get("steps"),
                    row.get("write_steps"), row.get("tool_errors"), row.get("failure_kind"), row.get("error"),
                    row.get("output"), row.get("instruction"), row.get("duration_s"), _now(),
                    json.dumps(evaluation) if evaluation is not None else None,
                    json.dumps(row.get("trace")) if row.get("trace") is not None else None,
                ),
            )

    def update_meta(self, run_id: str, **fields) -> None:
        meta = self.run(run_id)["meta"]
        meta.update(fields)
        with self.db:
            self.db.execute("UPDATE runs SET meta = ? WHERE run_id = ?", (json.dumps(meta), run_id))

    def scored_keys(self, run_id: str) -> set:
        """``(world, task_id, seed, trial)`` of the run's trials that need no rerun."""
        rows = self.db.execute("SELECT world, task_id, seed, trial FROM trials WHERE run_id = ? AND status = 'scored'",
                               (run_id,))
        return {(r["world"], r["task_id"], r["seed"], r["trial"]) for r in rows}

    def reopen_run(self, run_id: str) -> None:
        with self.db:
            self.db.execute("UPDATE runs SET status = 'running', finished_at = NULL WHERE run_id = ?", (run_id,))

    def finish_run(self, run_id: str, status: str = "finished") -> None:
        with self.db:
            self.db.execute("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?", (status, _now(), run_id))

    # -- reading -----------------------------------------------------------------------

    def run(self, run_id: str) -> dict:
        """One run; ``latest`` names the newest, ``latest~N`` the N-th before it."""
        if run_id == "latest" or run_id.startswith("latest~"):
            back = run_id.partition("~")[2]
            if back and not back.isdigit():
                raise KeyError(f"{run_id!r}: use latest, or latest~N with N a number of runs back")
            row = self.db.execute("SELECT * FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1 OFFSET ?",
                                  (int(back or 0),)).fetchone()
            if row is None:
                raise KeyError(f"no run {run_id!r} in {self.path}: it holds fewer runs")
            run_id = row["run_id"]
        row = self.db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            known = [r["run_id"] for r in self.db.execute("SELECT run_id FROM runs ORDER BY created_at DESC LIMIT 5")]
            hint = f"; recent runs: {', '.join(known)}" if known else "; this data dir has no runs yet"
            raise KeyError(f"no run {run_id!r} in {self.path}{hint}")
        out = dict(row)
        out["meta"] = json.loads(out["meta"])
        return out

    def runs(self, limit: int = 20) -> list:
        rows = self.db.execute(
            "SELECT r.*, COUNT(t.run_id) AS n_trials, SUM(t.pass) AS n_passed FROM runs r "
            "LEFT JOIN trials t ON t.run_id = r.run_id GROUP BY r.run_id ORDER BY r.created_at DESC LIMIT ?",
            (limit,),
        )
        return [dict(r) for r in rows]

    def trials(self, run_id: str, *, with_trace: bool = False) -> list:
        cols = "*" if with_trace else ", ".join(c for c in _TRIAL_COLUMNS if c != "trace")
        rows = self.db.execute(
            f"SELECT {cols} FROM trials WHERE run_id = ? ORDER BY world, task_id, seed, trial", (run_id,)
        )
        out = []
        for r in rows:
            d = dict(r)
            d["pass"] = None if d["pass"] is None else bool(d["pass"])
            d["training"] = bool(d["training"])
            for key in ("evaluation", "trace"):
                if d.get(key) is not None:
                    d[key] = json.loads(d[key])
            out.append(d)
        return out


_TRIAL_COLUMNS = ("run_id", "world", "task_id", "seed", "trial", "episode_id", "status", "training", "pass", "score", "steps",
                  "write_steps", "tool_errors", "failure_kind", "error", "output", "instruction", "duration_s",
                  "finished_at", "evaluation", "trace")


def _int(value):
    return None if value is None else int(bool(value))
