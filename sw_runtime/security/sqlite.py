"""The SQLite files of the data folder that keys and webhooks keep."""

from __future__ import annotations

import os
import sqlite3


def connect(data_dir: str, file: str, schema: str) -> sqlite3.Connection:
    """Open (making the folder and the table if need be) ``data_dir/file``.

    Autocommit, each write one statement; WAL, so a ``sandworld`` command and
    every server sharing the folder read and write it side by side. Used from
    the event loop's thread only (the server) or from a command.
    """
    os.makedirs(data_dir, exist_ok=True)
    db = sqlite3.connect(os.path.join(data_dir, file), isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=5000")
    db.execute(schema)
    return db
