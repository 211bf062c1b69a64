"""What the integration tests share: every served tool, and scripted policies."""

from __future__ import annotations

import json

from sandworld import SandworldClient
from sandworld.evaluation.agents import reference_setup


def every_tool(api) -> list:
    """``(world, tool)`` for every tool of every world the server serves."""
    with SandworldClient(api) as client:
        return [(env["name"], tool) for env in client.environments()
                for tool in client.environment(env["name"])["tools"]]


def reference(world: str, obs) -> object:
    """The task's reference ``Setup`` (``solution`` calls and ``output``) for an
    episode's observation: the scripted policy of these tests."""
    return reference_setup(world, obs["environment_version"], obs["task_id"], obs["seed"], obs["seed_digest"])


def hermes(tool: str, arguments: dict) -> str:
    """A generated turn that calls one tool, as a Hermes-style model writes it."""
    call = json.dumps({"name": tool.replace(".", "__"), "arguments": arguments})
    return f"Let me check.\n<tool_call>\n{call}\n</tool_call>"
