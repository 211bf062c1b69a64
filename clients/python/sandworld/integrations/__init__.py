"""Trainer integrations: one module per trainer library.

- ``sandworld.integrations.trl``: an ``environment_factory`` class per world, a
  reward function and a dataset builder for TRL's ``GRPOTrainer``;
- ``sandworld.integrations.verl``: ``to_verl()`` tool schemas and the
  ``sandworld_agent`` agent loop;
- ``sandworld.integrations.openenv``: any world served through OpenEnv's contract;
- ``sandworld.integrations.gym``: ``SandworldGymEnv``, a ``gymnasium.Env``;
- ``sandworld.integrations.skyrl``: a SkyRL-gym ``BaseTextEnv`` and a tool-call parser.

Each module imports its library only when it needs it; ``pip install
'sandworld[<name>]'`` installs the library. See docs/INTEGRATIONS.md.
"""

from __future__ import annotations

import importlib


# A dataset row's keys that are episode options, sent with the create by the trainer adapters.
EPISODE_OPTIONS = ("scoring", "signals", "fault_profile", "user_simulator", "agent_name", "mode")


def require(module: str, extra: str, then: str = ""):
    """Import ``module`` (a trainer library), or say which extra installs it (and ``then``, a
    command to run after it, for a library the extra cannot list)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name and module.split(".")[0] != e.name.split(".")[0]:
            raise  # the library is there; something it needs is not
        how = f"pip install 'sandworld[{extra}]'" + (f" && {then}" if then else "")
        raise ModuleNotFoundError(f"this integration needs {module.split('.')[0]}: {how}", name=e.name) from None


def served_worlds(base_url=None, worlds=None) -> list:
    """``worlds``, or the names of every world the server at ``base_url`` serves."""
    if worlds is not None:
        return list(worlds)
    from ..client import SandworldClient

    with SandworldClient(base_url) as client:
        return [e["name"] for e in client.environments()]
