"""SkyRL-gym: a ``BaseTextEnv`` per episode, registered as ``sandworld/<world>``.

SkyRL makes an env per sample with ``skyrl_gym.make(id, env_config=…,
extras=row)``, calls ``init(prompt)`` once and ``step(model_text)`` per turn,
and reads ``{observations, reward, done, metadata}`` back. Here:

- ``init`` creates the episode from ``extras`` (``task_id``, ``seed``, and
  ``max_turns``) and returns the prompt with one system message (the row's
  own system message, the world's policy and the tool schemas in the Hermes
  ``<tools>`` format: SkyRL-train applies the chat template without
  ``tools=``) and the instruction appended as the user's;
- ``step`` parses the turn's tool calls (``parse.parse_tool_calls``: Hermes
  ``<tool_call>`` JSON or OpenAI-style JSON), runs them, and answers each as
  a ``tool`` message. A turn without a tool call is the final answer: the
  episode is submitted and its score is the reward (``done``). Running out of
  turns submits too.

``register_worlds()`` registers each served world with SkyRL-gym; the server is
``env_config["base_url"]`` or ``$SANDWORLD_API_URL``.
"""

from __future__ import annotations

from typing import Any

from .. import errors
from ..env import SandworldEnv
from . import EPISODE_OPTIONS, require, served_worlds
from .parse import final_answer, parse_tool_calls, tool_message, tools_prompt

_base = require("skyrl_gym.envs.base_text_env", "skyrl")
BaseTextEnv, BaseTextEnvStepOutput = _base.BaseTextEnv, _base.BaseTextEnvStepOutput


class SandworldTextEnv(BaseTextEnv):
    """One Sandworld episode as a SkyRL text environment."""

    def __init__(self, env_config: Any = None, extras: dict | None = None, environment: str = "coinpurse",
                 base_url=None):
        super().__init__()
        config = dict(env_config or {})
        self.extras = dict(extras or {})
        self.environment = self.extras.get("environment", environment)
        self.max_turns = int(self.extras.get("max_turns") or config.get("max_turns") or 16)
        self.env = SandworldEnv(config.get("base_url") or base_url)

    def init(self, prompt):
        options = {k: self.extras[k] for k in EPISODE_OPTIONS if self.extras.get(k) is not None}
        obs = self.env.reset(self.environment, task_id=self.extras.get("task_id"), seed=self.extras.get("seed"),
                             **options)
        # One system message: the row's own, the world's policy, and the tool schemas (SkyRL-train
        # applies the chat template without tools=, so the model sees them only here).
        own = [m.get("content") or "" for m in (prompt or []) if m.get("role") == "system"]
        messages = [m for m in (prompt or []) if m.get("role") != "system"]
        parts = [*own, obs.get("policy") or "", tools_prompt(obs.get("tools"))]
        system = [{"role": "system", "content": "\n\n".join(p for p in parts if p)}]
        return system + messages + [{"role": "user", "content": obs.get("instruction") or ""}], {
            "episode_id": obs.get("episode_id"), "task_id": obs.get("task_id"), "seed": obs.get("seed"),
            "tools": obs.get("tools")}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        calls = parse_tool_calls(action)
        if not calls:
            return self._end(final_answer(action))
        observations = []
        for name, arguments in calls:
            try:
                observations.append(tool_message(name, self.env.step(name, arguments)))
            except errors.StepLimit:
                return self._end(None)
        if self.turns >= self.max_turns:
            return self._end(None, observations)
        return BaseTextEnvStepOutput(observations=observations, reward=0.0, done=False,
                                     metadata={"tool_calls": len(calls)})

    def _end(self, answer, observations=None) -> BaseTextEnvStepOutput:
        evaluation = self.env.submit(answer)
        return BaseTextEnvStepOutput(observations=observations or [], reward=float(evaluation.get("score") or 0.0),
                                     done=True, metadata={"evaluation": dict(evaluation)})

    def close(self):
        self.env.close()


def register_worlds(base_url=None, worlds=None) -> list:
    """Register ``sandworld/<world>`` with SkyRL-gym for each world (default:
    every world the server serves); return the ids."""
    skyrl_gym = require("skyrl_gym", "skyrl")
    ids = []
    for world in served_worlds(base_url, worlds):
        env_id = f"sandworld/{world}"
        if env_id not in skyrl_gym.registry:
            skyrl_gym.register(id=env_id, entry_point="sandworld.integrations.skyrl:SandworldTextEnv",
                               kwargs={"environment": world, "base_url": base_url})
        ids.append(env_id)
    return ids


__all__ = ["SandworldTextEnv", "register_worlds"]
