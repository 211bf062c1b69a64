"""Server settings: defaults, overridable by environment variables and CLI flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields


def _env(name: str, default, cast):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return cast(raw)
    except ValueError:
        kind = {"int": "whole number", "float": "number"}.get(cast.__name__, cast.__name__)
        raise SettingsError(f"{name}={raw!r} is not a {kind}") from None


@dataclass
class Settings:
    step_limit: int = 200  # steps per episode
    idle_timeout: float = 1800.0  # seconds without a call before an episode is evicted
    max_age: float = 86400.0  # hard cap on an episode's life, seconds
    max_episodes: int = 500_000  # live episodes per server; past it, create answers 429
    max_body: int = 64 * 1024 * 1024  # bytes per request body
    max_batch: int = 100_000  # calls per /batch request
    max_batch_episodes: int = 4096  # episodes per /batch/episodes or /batch/submit request
    seed_cache: int = 4096  # seeded start states kept in memory
    shard: int = 0  # which server of a cluster this is; part of every episode id
    peers: str = ""  # the API URLs of every shard of the cluster, in shard order, comma-separated (GET /cluster)
    max_snapshots: int = 10_000  # snapshots kept per server; past it, taking one answers 429
    max_seed_body: int = 4 * 1024 * 1024  # bytes per body on the routes that take a custom state
    idempotency_ttl: float = 86400.0  # seconds an Idempotency-Key is remembered
    max_idempotency_keys: int = 100_000  # keys remembered per server; the oldest are forgotten first
    max_idempotency_bytes: int = 256 * 1024 * 1024  # answers kept for those keys, in bytes
    # Durability (docs/OPERATIONS.md)
    # the action log and the results store (one subfolder per shard), keys.sqlite, webhooks.sqlite
    data_dir: str = "./sandworld-data"
    durability: str = "write"  # fsync | write | none (see sw_runtime/store/log.py)
    retention: float = 30 * 86400.0  # seconds ended episodes' results are kept; 0 keeps them forever
    compact_bytes: int = 64 * 1024 * 1024  # the log is compacted when it grows past this
    # Connections (api/protocol.py)
    header_timeout: float = 10.0  # seconds a request's headers may take to arrive
    body_timeout: float = 30.0  # seconds a request body may pause between chunks
    max_header_bytes: int = 64 * 1024  # request line plus headers
    # open connections per client IP; past it its oldest idle one is closed (api/protocol.py);
    # 0: a quarter of the descriptors this process may open, at least 64
    max_client_connections: int = 0
    # Memory budgets
    keep_ended: int = 2_000  # ended episodes kept in memory (a GET then shows state); the rest only stored
    keep_ended_for: float = 60.0  # seconds an ended episode stays in memory at most
    max_live_bytes: int = 8 * 1024**3  # bytes the open episodes' traces may hold; past it, create answers 429
    max_trace_arguments: int = 64 * 1024  # a call's arguments larger than this are not kept in the trace
    snapshot_ttl: float = 86400.0  # seconds a snapshot lives
    max_snapshot_bytes: int = 1024**3  # bytes the snapshots may hold apart from their start states
    # Security (docs/SECURITY.md)
    auth: str = "none"  # "keys": every /api/v1 request needs an API key (docs/SECURITY.md)
    key_rate: float = 0.0  # calls a second per API key (a /batch counts its calls); 0: no limit
    key_burst: int = 0  # a key's bucket size; 0: one second's worth
    ip_rate: float = 0.0  # calls a second per client IP; 0: no limit
    ip_burst: int = 0  # an IP's bucket size; 0: one second's worth
    allowed_hosts: str = ""  # names (or name:port) a keyless loopback server answers to besides its own (browser.py)
    webhook_queue: int = 10_000  # webhook messages waiting to be sent; past it, new ones are dropped
    webhook_backoff: str = "1,5,30,120,600"  # seconds before each retry of a failed delivery
    read_cache: int = 50_000  # pure-read answers kept per generation (engine/read_cache.py); 0 turns it off

    def validate(self) -> "Settings":
        """Refuse settings the server cannot run with, saying which and why
        (``SettingsError``, a ``ValueError``)."""
        for name, low, high in _RANGES:
            value = getattr(self, name)
            if not (low <= value <= high):
                flag = "--" + name.replace("_", "-")
                raise SettingsError(
                    f"{flag} (SW_{name.upper()}) must be from {low:g} to {high:g}; got {value!r}"
                )
        if self.durability not in ("fsync", "write", "none"):
            raise SettingsError(
                f"--durability (SW_DURABILITY) must be fsync, write or none; got {self.durability!r}"
            )
        if self.durability != "none" and not self.data_dir:
            raise SettingsError("--data-dir (SW_DATA_DIR) is empty; give a folder, or --durability none")
        for name in ("key_rate", "ip_rate"):  # 0 is no limit; a rate near 0 makes waits past any clock
            value = getattr(self, name)
            if value != 0 and not (0.001 <= value <= 1e9):
                raise SettingsError(f"SW_{name.upper()} must be 0 (no limit) or from 0.001 to 1e9 calls a second; "
                                    f"got {value!r}")
        if self.auth not in ("none", "keys"):
            raise SettingsError(f"--auth (SW_AUTH) must be none or keys; got {self.auth!r}")
        backoff(self.webhook_backoff)
        _check_environment()
        return self

    @classmethod
    def from_env(cls, **overrides) -> "Settings":
        s = cls()
        for f in fields(cls):
            cast = type(getattr(s, f.name))
            setattr(s, f.name, _env("SW_" + f.name.upper(), getattr(s, f.name), cast))
        for k, v in overrides.items():
            if v is not None:
                setattr(s, k, v)
        return s


class SettingsError(ValueError):
    """A setting the server cannot run with."""


def backoff(text: str) -> tuple:
    """``SW_WEBHOOK_BACKOFF`` as seconds, or ``SettingsError``."""
    try:
        steps = tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise SettingsError(f"SW_WEBHOOK_BACKOFF={text!r} must be comma-separated seconds, e.g. 1,5,30") from None
    if not steps or any(not (0 <= s <= 86400) for s in steps):
        raise SettingsError(f"SW_WEBHOOK_BACKOFF={text!r}: each retry waits 0 to 86400 seconds")
    return steps


def _check_environment() -> None:
    """The settings read outside ``Settings`` (by the judge, the user simulator
    and the state core), checked here with the rest so a bad one stops the
    start with one line rather than failing the first request."""
    for prefix in ("SW_JUDGE", "SW_USER_SIM"):
        url = os.environ.get(f"{prefix}_URL", "")
        if url and not (url.startswith("http://") or url.startswith("https://")):
            raise SettingsError(f"{prefix}_URL={url!r} must be an http:// or https:// URL")
        api = os.environ.get(f"{prefix}_API", "").strip().lower()
        if api and api not in ("openai", "anthropic"):
            raise SettingsError(f"{prefix}_API={api!r} must be openai or anthropic")
    pure = os.environ.get("SW_PURE", "")
    if pure not in ("", "0", "1"):
        raise SettingsError(f"SW_PURE={pure!r} must be 1 (the pure-Python state core) or 0")


# (setting, lowest, highest): what the server can run with.
_RANGES = (
    ("step_limit", 1, 100_000),  # the simulated clock is precomputed per step
    ("idle_timeout", 0.001, 365 * 86400),
    ("max_age", 0.001, 10 * 365 * 86400),
    ("max_episodes", 1, 100_000_000),
    ("max_body", 1024, 2**40),
    ("max_batch", 1, 10_000_000),
    ("max_batch_episodes", 1, 1_000_000),
    ("seed_cache", 1, 10_000_000),
    ("shard", 0, 99),
    ("max_snapshots", 0, 100_000_000),
    ("max_seed_body", 1024, 2**40),
    ("idempotency_ttl", 0, 365 * 86400),
    ("max_idempotency_keys", 1, 100_000_000),
    ("max_idempotency_bytes", 0, 2**50),
    ("retention", 0, 100 * 365 * 86400),
    ("header_timeout", 0.001, 3600),
    ("body_timeout", 0.001, 3600),
    ("max_header_bytes", 1024, 2**24),
    ("max_client_connections", 0, 1_000_000),
    ("compact_bytes", 1024, 2**50),
    ("keep_ended", 0, 100_000_000),
    ("keep_ended_for", 0, 365 * 86400),
    ("max_live_bytes", 1, 2**50),
    ("max_trace_arguments", 0, 2**40),
    ("snapshot_ttl", 0.001, 100 * 365 * 86400),
    ("max_snapshot_bytes", 0, 2**50),
    ("key_burst", 0, 10**9),
    ("ip_burst", 0, 10**9),
    ("webhook_queue", 1, 100_000_000),
    ("read_cache", 0, 100_000_000),
)
