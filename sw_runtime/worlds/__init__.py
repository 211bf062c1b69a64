"""The registry of worlds, by name.

Every world package is listed here once. ``SW_WORLDS=a,b`` serves only those
worlds (each world's module is imported only when it is served).
"""

from __future__ import annotations

import importlib
import os

from .. import errors

PACKAGES = {
    "coinpurse": "sw_runtime.worlds.coinpurse",
    "dummy": "sw_runtime.worlds.dummy",
    "offsite-planning": "sw_runtime.worlds.offsite_planning",
    "quickbasket": "sw_runtime.worlds.quickbasket",
}

_REGISTRY: dict | None = None


def registry() -> dict:
    """Every served world, by name, in name order."""
    global _REGISTRY
    if _REGISTRY is None:
        wanted = [n.strip() for n in os.environ.get("SW_WORLDS", "").split(",") if n.strip()]
        unknown = sorted(set(wanted) - set(PACKAGES))
        if unknown:
            raise SystemExit(f"SW_WORLDS names unknown worlds {unknown}; known: {sorted(PACKAGES)}")
        names = wanted or sorted(PACKAGES)
        _REGISTRY = {n: importlib.import_module(PACKAGES[n]).WORLD for n in sorted(names)}
    return _REGISTRY


def get_world(name: str):
    world = registry().get(name)
    if world is None:
        raise errors.NotFound(f"no environment {name!r}; the environments are {', '.join(registry())}")
    return world
