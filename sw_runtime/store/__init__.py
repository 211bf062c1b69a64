"""Durability: the action log, the results store, replay and compaction.

``DataFolder`` is what a server opens (``sw_runtime.service``); the rest is
its parts: ``log`` (the append-only action log), ``results`` (SQLite),
``replay`` (rebuilding episodes through the engine) and ``compact``.
"""

from .folder import DataFolder
from .log import MODES

__all__ = ["DataFolder", "MODES"]
