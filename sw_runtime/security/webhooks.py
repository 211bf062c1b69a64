"""Webhook subscriptions: who wants to hear about which episode events.

A subscription is ``{url, events, secret}`` and belongs to the project of
the key that made it: it hears only about that project's episodes (with keys
off, about every episode). Subscriptions live in ``webhooks.sqlite`` under
the data folder, so they survive a restart and every server of a cluster
that shares the folder delivers to them.

Only ``http`` and ``https`` URLs are taken. The server is an in-network tool,
so a URL may point anywhere the server can reach, including other internal
services: docs/SECURITY.md says what that means and how to fence it.
"""

from __future__ import annotations

import base64
import os
import secrets
import sqlite3
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from .. import errors
from ..pagination import PageRequest, paginate_sqlite
from ..service.events import EVENTS
from . import sqlite

FILE = "webhooks.sqlite"
SECRET_PREFIX = "whsec_"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS subscriptions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project TEXT,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at REAL NOT NULL,
    previous_secret TEXT,
    previous_until REAL,
    updated_at REAL
)
"""
# Columns added since the first version of the table: a folder made before
# gets them on open (``_migrate``), empty.
_ADDED = (("previous_secret", "TEXT"), ("previous_until", "REAL"), ("updated_at", "REAL"))
MAX_OVERLAP = 7 * 86400  # seconds an old secret may keep signing after a rotation
DEFAULT_OVERLAP = 86400


@dataclass(frozen=True, slots=True)
class Subscription:
    seq: int
    id: str
    project: str | None
    url: str
    events: tuple
    secret: str
    created_at: float
    previous_secret: str | None = None  # the secret before the last rotation, while it overlaps
    previous_until: float | None = None
    updated_at: float | None = None

    def secrets(self, now: float | None = None) -> tuple:
        """The secrets a delivery is signed with now: the current one, and the
        previous one while its overlap window lasts (a receiver that still
        holds the old secret verifies the old signature)."""
        now = time.time() if now is None else now
        if self.previous_secret and self.previous_until is not None and now < self.previous_until:
            return (self.secret, self.previous_secret)
        return (self.secret,)

    def describe(self) -> dict:
        """As the API shows it: a secret leaves only when it is made (register, rotate)."""
        overlapping = len(self.secrets()) > 1
        return {
            "webhook_id": self.id,
            "url": self.url,
            "events": list(self.events),
            "project": self.project,
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at) if self.updated_at else None,
            "previous_secret_expires_at": _iso(self.previous_until) if overlapping else None,
        }


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def new_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and 32 random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise errors.InvalidRequest(f"webhook url must be an http:// or https:// URL with a host, not {url!r}")
    if parts.username or parts.password:
        raise errors.InvalidRequest("webhook url must not carry a user or password; sign with the secret instead")
    try:
        port = parts.port  # ValueError past 65535 or not a number
    except ValueError:
        port = 0
    if port == 0 or (port is None and parts.netloc.endswith(":")):
        raise errors.InvalidRequest(f"webhook url {url!r} names no valid port: give 1 to 65535, or none for the "
                                    "scheme's own")
    return url


def check_secret(secret: str) -> str:
    raw = secret[len(SECRET_PREFIX):] if secret.startswith(SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(raw, validate=True)
    except ValueError:
        raise errors.InvalidRequest("secret must be base64 (optionally after whsec_), as Standard Webhooks "
                                    "secrets are; omit it and the server makes one") from None
    if not 24 <= len(key) <= 64:
        raise errors.InvalidRequest(f"secret must hold 24 to 64 bytes once decoded; it holds {len(key)}")
    return secret if secret.startswith(SECRET_PREFIX) else SECRET_PREFIX + raw


def check_events(events: list) -> tuple:
    if not events:
        raise errors.InvalidRequest(f"events must name at least one of {', '.join(EVENTS)}")
    unknown = sorted(set(events) - set(EVENTS))
    if unknown:
        raise errors.InvalidRequest(f"unknown event {', '.join(unknown)}; the events are {', '.join(EVENTS)}")
    return tuple(e for e in EVENTS if e in events)


class Subscriptions:
    """The subscriptions of one data folder, cached in memory.

    The cache is read again when another process (a ``sandworld`` command, or
    another server of the cluster) changed the file: SQLite's ``data_version``
    says so for the price of one tiny query.
    """

    def __init__(self, data_dir: str):
        self.data_dir = data_dir
        self.path = os.path.join(data_dir, FILE)
        self._conn: sqlite3.Connection | None = None
        self._version = None
        self._cache: list = []

    @property
    def _db(self) -> sqlite3.Connection:
        # Opened on first use: a server nobody registers a webhook with
        # leaves no file behind.
        if self._conn is None:
            self._conn = sqlite.connect(self.data_dir, FILE, _SCHEMA)
            _migrate(self._conn)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

    def add(self, project: str | None, url: str, events: list, secret: str | None) -> Subscription:
        url = check_url(url)
        chosen = check_events(events)
        secret = check_secret(secret) if secret else new_secret()
        wid = "wh_" + secrets.token_hex(8)
        self._db.execute(
            "INSERT INTO subscriptions (id, project, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (wid, project, url, ",".join(chosen), secret, time.time()),
        )
        self._version = None
        return self.get(wid, None)

    def get(self, webhook_id: str, project: str | None) -> Subscription:
        """A subscription the caller may see (``project`` None: any); else 404 as for an unknown id."""
        row = self._db.execute(f"SELECT {_COLUMNS} FROM subscriptions WHERE id = ?", (webhook_id,)).fetchone()
        if row is None or (project is not None and row[2] != project):
            raise errors.NotFound(f"no webhook {webhook_id!r}")
        return _sub(row)

    def update(self, webhook_id: str, project: str | None, url: str | None = None,
               events: list | None = None) -> Subscription:
        """``PATCH /webhooks/{id}``: a new ``url`` or ``events`` (the secret stays)."""
        sub = self.get(webhook_id, project)
        if url is None and events is None:
            raise errors.InvalidRequest("send url or events (or both) to change; the secret is rotated with "
                                        "POST /api/v1/webhooks/{id}/rotate-secret")
        new_url = check_url(url) if url is not None else sub.url
        chosen = check_events(events) if events is not None else sub.events
        self._db.execute("UPDATE subscriptions SET url = ?, events = ?, updated_at = ? WHERE id = ?",
                         (new_url, ",".join(chosen), time.time(), sub.id))
        self._version = None
        return self.get(sub.id, None)

    def rotate(self, webhook_id: str, project: str | None, overlap: float = DEFAULT_OVERLAP,
               secret: str | None = None) -> Subscription:
        """A new signing secret; the old one goes on signing beside it for
        ``overlap`` seconds (0: it stops at once), so a receiver can switch
        without missing a delivery."""
        sub = self.get(webhook_id, project)
        if not 0 <= overlap <= MAX_OVERLAP:
            raise errors.InvalidRequest(f"overlap_seconds must be from 0 to {MAX_OVERLAP} (7 days)")
        new = check_secret(secret) if secret else new_secret()
        now = time.time()
        self._db.execute("UPDATE subscriptions SET secret = ?, previous_secret = ?, previous_until = ?, "
                         "updated_at = ? WHERE id = ?", (new, sub.secret, now + overlap, now, sub.id))
        self._version = None
        return self.get(sub.id, None)

    def delete(self, webhook_id: str, project: str | None) -> Subscription:
        sub = self.get(webhook_id, project)
        self._db.execute("DELETE FROM subscriptions WHERE id = ?", (webhook_id,))
        self._version = None
        return sub

    def page(self, page: PageRequest, project: str | None) -> dict:
        """One page of subscriptions in creation order; with ``project``, only that project's."""
        return paginate_sqlite(self._db, "subscriptions", _COLUMNS, page, lambda r: _sub(r).describe(), project)

    def current(self, sub: Subscription) -> Subscription:
        """``sub`` as it stands now (its secrets and url after a rotation or a
        patch), or as it was if it was deleted meanwhile."""
        self.matching("", None)  # refreshes the cache when the file changed
        for s in self._cache:
            if s.id == sub.id:
                return s
        return sub

    def matching(self, event: str, project: str | None) -> list:
        """Subscriptions that hear ``event`` about an episode of ``project``."""
        if self._conn is None and not os.path.exists(self.path):
            return []
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        if version != self._version:
            self._cache = [_sub(r) for r in self._db.execute(f"SELECT {_COLUMNS} FROM subscriptions ORDER BY seq")]
            self._version = version
        return [s for s in self._cache if event in s.events and (s.project is None or s.project == project)]


_COLUMNS = "seq, id, project, url, events, secret, created_at, previous_secret, previous_until, updated_at"


def _sub(row) -> Subscription:
    return Subscription(row[0], row[1], row[2], row[3], tuple(row[4].split(",")), row[5], row[6], row[7], row[8],
                        row[9])


def _migrate(db: sqlite3.Connection) -> None:
    have = {r[1] for r in db.execute("PRAGMA table_info(subscriptions)")}
    for name, kind in _ADDED:
        if name not in have:
            db.execute(f"ALTER TABLE subscriptions ADD COLUMN {name} {kind}")
