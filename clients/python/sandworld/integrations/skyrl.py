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
- the row's episode options (``scoring``, ``signals``, ``fault_profile``,
  ``user_simulator``, ``agent_name``, ``mode``) go to the create. With
  ``signals``, rewards are dense: each turn's reward is the ``progress_delta``
  its calls made, and the last turn's is the score minus what the turns before
  earned, so an episode's rewards still add up to its score;
- envs made for one server share a client and a ``StepBatcher``: SkyRL runs
  ``step`` in a pool of env workers, and the turns stepping at the same time go
  out as one ``/batch`` (``env_config["batch_window"]``: seconds, 0 for one
  request per step).

``register_worlds()`` registers each served world with SkyRL-gym; the server is
``env_config["base_url"]`` or ``$SANDWORLD_API_URL``.
"""

from __future__ import annotations

import threading
from typing import Any

from .. import errors
from ..client import SandworldClient
from ..coalesce import WINDOW, StepBatcher
from ..env import SandworldEnv
from . import EPISODE_OPTIONS, require, served_worlds
from .parse import final_answer, parse_tool_calls, tool_message, tools_prompt

_base = require("skyrl_gym.envs.base_text_env", "skyrl")
BaseTextEnv, BaseTextEnvStepOutput = _base.BaseTextEnv, _base.BaseTextEnvStepOutput


class SandworldTextEnv(BaseTextEnv):
    """One Sandworld episode as a SkyRL text environment."""

    _shared: dict = {}  # base URL: (client, batcher) every env of the process uses
    _shared_lock = threading.Lock()

    def __init__(self, env_config: Any = None, extras: dict | None = None, environment: str = "coinpurse",
                 base_url=None):
        super().__init__()
        config = dict(env_config or {})
        self.extras = dict(extras or {})
        self.environment = self.extras.get("environment", environment)
        self.max_turns = int(self.extras.get("max_turns") or config.get("max_turns") or 16)
        client, self.batcher = self._connection(config.get("base_url") or base_url,
                                                float(config.get("batch_window", WINDOW)))
        self.env = SandworldEnv(client=client)
        self.earned = 0.0  # the dense rewards given so far

    @classmethod
    def _connection(cls, base_url, window: float):
        with cls._shared_lock:
            if base_url not in cls._shared:
                client = SandworldClient(base_url)
                cls._shared[base_url] = (client, StepBatcher(client, window=window))
            client, batcher = cls._shared[base_url]
            if window > 0:
                batcher.window = window
        return client, (batcher if window > 0 else None)

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
        if self.batcher is not None:
            results = self.batcher.step_many([(self.env, name, arguments) for name, arguments in calls],
                                             return_exceptions=True)
        else:
            results = []
            for name, arguments in calls:
                try:
                    results.append(self.env.step(name, arguments))
                except errors.StepLimit as e:
                    results.append(e)
                    break
        observations, reward = [], 0.0
        for (name, _), result in zip(calls, results):
            if isinstance(result, errors.StepLimit):
                return self._end(None, observations)
            if isinstance(result, BaseException):
                raise result
            observations.append(tool_message(name, result))
            signals = result.get("signals")
            if signals is not None:
                reward += float(signals.get("progress_delta") or 0.0)
        if self.turns >= self.max_turns:
            return self._end(None, observations)
        self.earned += reward
        return BaseTextEnvStepOutput(observations=observations, reward=reward, done=False,
                                     metadata={"tool_calls": len(calls)})

    def _end(self, answer, observations=None) -> BaseTextEnvStepOutput:
        evaluation = self.env.submit(answer)
        score = float(evaluation.get("score") or 0.0)
        # With signals the turns before earned their progress: the last turn gets the rest of the score.
        return BaseTextEnvStepOutput(observations=observations or [], reward=score - self.earned,
                                     done=True, metadata={"evaluation": dict(evaluation)})

    def close(self):
        self.env.close()  # the shared client stays open for the process's other envs


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
