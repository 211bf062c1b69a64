"""Sandworld runtime: a rollout server for tool-using AI agents."""

__version__ = "0.1.0"
