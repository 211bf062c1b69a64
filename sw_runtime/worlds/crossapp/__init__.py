"""Cross-app tasks: tasks written once for a set of two or three worlds.

Each module here holds the tasks of one set of worlds (``WORLDS``, ``TASKS``);
``SETS`` lists the sets in name order, and a composite episode of exactly
those worlds offers their tasks (``worlds.get_composite``). A task's setup is
given the composite's start state (``composite.Parts``): it reads each world
through ``store.part(world)``, and its checks name ``world.collection``.
docs/WORLDS.md ("Cross-app tasks") shows how to write one.
"""

from __future__ import annotations

import importlib

MODULES = ("codehost_office", "codehost_receivables", "engineering_finance", "groceries_wallet",
           "office_receivables")

_BY_SET: dict = {}
for _module in MODULES:
    _mod = importlib.import_module(f"{__name__}.{_module}")
    _BY_SET[tuple(sorted(_mod.WORLDS))] = _mod.TASKS

SETS = sorted(_BY_SET)


def tasks_for(names) -> list:
    """The cross-app tasks of exactly the worlds ``names``."""
    return list(_BY_SET.get(tuple(sorted(names)), ()))
