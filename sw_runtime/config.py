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
        raise SystemExit(f"{name}={raw!r} is not a valid {cast.__name__}") from None


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
    data_dir: str = "./sandworld-data"  # keys.sqlite, webhooks.sqlite (and the durable log) live here
    auth: str = "none"  # "keys": every /api/v1 request needs an API key (docs/SECURITY.md)
    key_rate: float = 0.0  # calls a second per API key (a /batch counts its calls); 0: no limit
    key_burst: int = 0  # a key's bucket size; 0: one second's worth
    ip_rate: float = 0.0  # calls a second per client IP; 0: no limit
    ip_burst: int = 0  # an IP's bucket size; 0: one second's worth
    webhook_queue: int = 10_000  # webhook messages waiting to be sent; past it, new ones are dropped
    webhook_backoff: str = "1,5,30,120,600"  # seconds before each retry of a failed delivery

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
