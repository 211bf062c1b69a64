"""API keys, stored hashed in SQLite under the data folder (``keys.sqlite``).

A key is ``sw_live_`` followed by 43 URL-safe characters: 256 random bits.
Only its SHA-256 is stored. A fast hash is right here, unlike for passwords:
slow hashes (bcrypt, argon2) exist to make guessing a low-entropy secret
expensive, and nobody can guess 256 random bits however fast the hash is.
A fast hash lets the server check a key on every request in microseconds.

The server and the ``sandworld keys`` command share the file; SQLite's WAL
mode lets the command create or revoke a key while a server runs. A server
remembers a key it has checked for ``RECHECK`` seconds before it reads its row
again (a read costs tens of microseconds, a request with a key only one), so
a revoked key stops working within a second, on every server of a cluster
that shares the folder.
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
RECHECK = 1.0  # seconds a checked key is trusted before its row is read again
_REMEMBERED = 10_000  # keys remembered at most (then forgotten all at once)

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
        self._checked: dict = {}  # hash -> (Principal, monotonic time to read it again)

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
        row = self._db.execute("SELECT hash FROM keys WHERE id = ?", (key_id,)).fetchone()
        if row is not None:
            self._checked.pop(row[0], None)  # this process stops trusting it at once
        return self.get(key_id)

    def authenticate(self, secret: str) -> Principal | None:
        """The principal of a live key, or None for an unknown or revoked one."""
        if not secret.startswith(PREFIX):
            return None
        hashed = digest(secret)
        now = time.monotonic()
        known = self._checked.get(hashed)
        if known is not None and now < known[1]:
            return known[0]
        row = self._db.execute(
            "SELECT id, project, scopes FROM keys WHERE hash = ? AND revoked_at IS NULL", (hashed,)
        ).fetchone()
        if row is None:  # unknown or revoked: never remembered, so a guesser reads the table each time
            self._checked.pop(hashed, None)
            return None
        principal = Principal(project=row[1], scopes=frozenset(row[2].split(",")), key_id=row[0])
        if len(self._checked) >= _REMEMBERED:
            self._checked.clear()
        self._checked[hashed] = (principal, now + RECHECK)
        return principal

    def page(self, page: PageRequest, project: str | None = None) -> dict:
        """One page of keys in creation order, optionally only one project's."""
        return paginate_sqlite(self._db, "keys", _COLUMNS, page, lambda r: _info(r).describe(), project)

    def all(self, project: str | None = None) -> list[KeyInfo]:
        sql = f"SELECT {_COLUMNS} FROM keys" + (" WHERE project = ?" if project else "") + " ORDER BY seq"
        return [_info(r) for r in self._db.execute(sql, (project,) if project else ())]


_COLUMNS = "seq, id, hint, project, scopes, created_at, revoked_at"


def _info(row) -> KeyInfo:
    return KeyInfo(row[0], row[1], row[2], row[3], tuple(row[4].split(",")), row[5], row[6])
