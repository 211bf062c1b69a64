"""Who is calling and what they may do: the principal and the scopes.

A key carries a project and a set of scopes. The door (``auth.py``) finds the
principal of a request and checks the route's scope; the service checks the
project on every lookup, so another project's episode answers 404 exactly
like an unknown one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Every scope a key can hold, and what it opens (docs/SECURITY.md lists them).
SCOPES = {
    "episodes:read": "read episodes, their state and snapshots",
    "episodes:write": "create, step, submit, fork, heartbeat and restore episodes; take and delete snapshots; "
                      "validate seeds",
    "webhooks:read": "list webhook subscriptions and their deliveries",
    "webhooks:write": "register, change, rotate the secret of, ping and delete webhook subscriptions",
    "keys:read": "list the project's API keys (never their secrets)",
}


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller. ``project`` None means every project (keys are off)."""

    project: str | None
    scopes: frozenset = field(default_factory=lambda: frozenset(SCOPES))
    key_id: str | None = None

    def sees(self, project: str | None) -> bool:
        """May this caller see something that belongs to ``project``?"""
        return self.project is None or self.project == project


# Keys off (loopback, the default): one caller who may do everything.
EVERYONE = Principal(project=None)

_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_project(name: str) -> str:
    if not _PROJECT.match(name or ""):
        raise ValueError(
            f"project {name!r} is not a valid name: use 1-64 letters, digits, '.', '_' or '-', starting with "
            "a letter or digit"
        )
    return name


def parse_scopes(text: str) -> frozenset:
    """``"episodes:read,episodes:write"`` -> the set; an unknown scope is a ValueError naming the known ones."""
    wanted = {s.strip() for s in text.split(",") if s.strip()}
    if not wanted:
        raise ValueError(f"give at least one scope; the scopes are {', '.join(SCOPES)}")
    unknown = sorted(wanted - set(SCOPES))
    if unknown:
        raise ValueError(f"unknown scope {', '.join(unknown)}; the scopes are {', '.join(SCOPES)}")
    return frozenset(wanted)


def required_scope(method: str, path: str) -> str | None:
    """The scope a request needs, or None when any valid key will do.

    The catalogue (environments, checks, fault profiles) and ``/limits`` are
    open to every key; health, readiness, metrics and the OpenAPI document
    are open to everyone (``auth.OPEN_PATHS``).
    """
    read = method in ("GET", "HEAD")
    if path.startswith("/api/v1/webhooks"):
        return "webhooks:read" if read else "webhooks:write"
    if path.startswith("/api/v1/keys"):
        return "keys:read"
    if path.startswith("/api/v1/environments/"):
        # POST .../{env}/episodes creates one; the rest is the catalogue
        return "episodes:write" if not read else None
    if path.startswith("/ui/episodes"):  # the viewer's episode pages read what the API's GETs read
        return "episodes:read"
    if path.startswith(("/api/v1/episodes", "/api/v1/snapshots", "/api/v1/batch", "/api/v1/seeds", "/v1/runs")):
        return "episodes:read" if read else "episodes:write"
    return None
