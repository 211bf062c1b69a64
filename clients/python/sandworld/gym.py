"""Moved to ``sandworld.integrations.gym`` (it needs ``pip install 'sandworld[gym]'``)."""

from .integrations.gym import SandworldGymEnv, register_worlds, submit_action  # noqa: F401
