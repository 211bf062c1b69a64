"""Fault profiles: calls that fail on purpose, so agents learn to retry safely.

Whether a call is faulted depends only on (profile, seed, step), through
SHA-256, so the same episode replayed faults at the same steps in any
process. A profile hits about one applicable call in four.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

RATE = 0.25


@dataclass(frozen=True)
class Profile:
    name: str
    applies_to: str  # "write", "read" or "any": which tools it can hit
    description: str


PROFILES = {
    p.name: p
    for p in (
        Profile("timeout_after_commit", "write",
                "The change is applied, but the call answers ok: false with code timeout, saying it may or may "
                "not have been applied. Read the state before retrying, or the change happens twice."),
        Profile("timeout_before_commit", "write",
                "The call answers the same timeout, but nothing was applied: a retry is needed."),
        Profile("rate_limited", "any",
                "The call is refused with code rate_limited and retry_after (seconds); nothing was applied."),
        Profile("server_error", "any",
                "The call is refused with code server_error; nothing was applied; a retry works."),
        Profile("stale_read", "read",
                "A read answers ok: true but from the state as it was before the latest write."),
    )
}


def listing() -> list:
    return [{"name": p.name, "applies_to": p.applies_to, "rate": RATE, "description": p.description}
            for p in PROFILES.values()]


def hits(profile: str, seed: int, step: int) -> bool:
    h = hashlib.sha256(f"sandworld-fault-v1:{profile}:{seed}:{step}".encode()).digest()
    return int.from_bytes(h[:8], "big") < RATE * 2**64


def applies(profile: str, tool) -> bool:
    scope = PROFILES[profile].applies_to
    return scope == "any" or (scope == "write") == tool.writes


def timeout_error(tool_name: str) -> dict:
    return {
        "code": "timeout",
        "message": f"504 Gateway Timeout: the call to {tool_name} timed out; it may or may not have been applied. "
        "Read the state to find out before retrying.",
    }


def rate_limited_error(tool_name: str) -> dict:
    return {
        "code": "rate_limited",
        "message": f"429 Too Many Requests: {tool_name} was not run; retry after 2 seconds.",
        "retry_after": 2,
    }


def server_error(tool_name: str) -> dict:
    return {
        "code": "server_error",
        "message": f"500 Internal Server Error: {tool_name} failed before changing anything; retry the call.",
    }
