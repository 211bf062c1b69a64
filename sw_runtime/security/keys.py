"""API keys, stored hashed in SQLite under the data folder (``keys.sqlite``).

A key is ``sw_live_`` followed by 43 URL-safe characters: 256 random bits.
Only its SHA-256 is stored. A fast hash is right here, unlike for passwords:
slow hashes (bcrypt, argon2) exist to make guessing a low-entropy secret
expensive, and nobody can guess 256 random bits however fast the hash is.
A fast hash lets the server check a key on every request in microseconds.

The server and the ``sandworld keys`` command share the file; SQLite's WAL
mode lets the command create or revoke a key while a server runs, and the
server reads the row on every request, so a revoked key stops working at
once, on every server of a cluster that shares the folder.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import time
from dataclasses import dataclass

from ..pagination import PageRequest, paginate_sqlite
from . import sqlite
from .scopes import Principal, check_project, parse_scopes

PREFIX = "sw_live_"
FILE = "keys.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS keys (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL UNIQUE,
    hint TEXT NOT NULL,
    project TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at REAL NOT NULL,
    revoked_at REAL
)
"""


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """A stored key, without its secret."""

    seq: int
    id: str
    hint: str
    project: str
    scopes: tuple
    created_at: float
    revoked_at: float | None

    def describe(self) -> dict:
        return {
            "key_id": self.id,
            "hint": self.hint,
            "project": self.project,
            "scopes": list(self.scopes),
            "created_at": _iso(self.created_at),
            "revoked": self.revoked_at is not None,
            "revoked_at": _iso(self.revoked_at) if self.revoked_at is not None else None,
        }


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class KeyStore:
    """The keys of one data folder."""

    def __init__(self, data_dir: str):
        self.path = os.path.join(data_dir, FILE)
        self._db = sqlite.connect(data_dir, FILE, _SCHEMA)

    def close(self) -> None:
        self._db.close()

    def create(self, project: str, scopes: str | frozenset) -> tuple[str, KeyInfo]:
        """Make a key; return ``(secret, info)``. The secret is shown once and never stored."""
        check_project(project)
        chosen = parse_scopes(scopes) if isinstance(scopes, str) else frozenset(scopes)
        secret = PREFIX + secrets.token_urlsafe(32)
        key_id = "key_" + secrets.token_hex(8)
        hint = secret[: len(PREFIX) + 4] + "…"
        self._db.execute(
            "INSERT INTO keys (id, hash, hint, project, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (key_id, digest(secret), hint, project, ",".join(sorted(chosen)), time.time()),
        )
        return secret, self.get(key_id)

    def get(self, key_id: str) -> KeyInfo | None:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM keys WHERE id = ?", (key_id,)).fetchone()
        return _info(row) if row else None

    def revoke(self, key_id: str) -> KeyInfo | None:
        """Revoke a key (idempotent); None when there is no such key."""
        self._db.execute("UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (time.time(), key_id))
        return self.get(key_id)

    def authenticate(self, secret: str) -> Principal | None:
        """The principal of a live key, or None for an unknown or revoked one."""
        if not secret.startswith(PREFIX):
            return None
        row = self._db.execute(
            "SELECT id, project, scopes FROM keys WHERE hash = ? AND revoked_at IS NULL", (digest(secret),)
        ).fetchone()
        if row is None:
            return None
        return Principal(project=row[1], scopes=frozenset(row[2].split(",")), key_id=row[0])

    def page(self, page: PageRequest, project: str | None = None) -> dict:
        """One page of keys in creation order, optionally only one project's."""
        return paginate_sqlite(self._db, "keys", _COLUMNS, page, lambda r: _info(r).describe(), project)

    def all(self, project: str | None = None) -> list[KeyInfo]:
        sql = f"SELECT {_COLUMNS} FROM keys" + (" WHERE project = ?" if project else "") + " ORDER BY seq"
        return [_info(r) for r in self._db.execute(sql, (project,) if project else ())]


_COLUMNS = "seq, id, hint, project, scopes, created_at, revoked_at"


def _info(row) -> KeyInfo:
    return KeyInfo(row[0], row[1], row[2], row[3], tuple(row[4].split(",")), row[5], row[6])
