"""A Gymnasium-style wrapper: ``reset(seed=…) -> (obs, info)`` and
``step(action) -> (obs, reward, terminated, truncated, info)``.

It follows Gymnasium's API without depending on it (install gymnasium and
wrap it if your stack wants the base class). Actions are tool calls, and one
special action ends the episode::

    env = SandworldGymEnv("coinpurse", task_id="cp-04", reward="progress")
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step({"tool": "list_requests", "arguments": {}})
    obs, reward, terminated, truncated, info = env.step(submit_action("Paid it."))

Observations are what the policy may see: the task at reset (``instruction``,
``policy``, ``tools``), then each step's answer (``tool, ok, result | error,
step, at``). Signals are never in the observation (a policy that reads them
learns to read the grader); they are in ``info["signals"]``. ``info["digest"]``
is the state digest at reset (the seed's) and at the end (the final state's);
``info["checks"]`` and ``info["evaluation"]`` arrive with the end.

Rewards (``reward=``), each summing over an episode to its final score:

- ``"score"`` (default): 0 per step, the evaluation's score at submit;
- ``"pass"``: 0 per step, 1.0 at submit if the episode passed, else 0.0;
- ``"progress"``: each step's ``signals.progress_delta``, and at submit the
  score minus the progress collected (so shaping never changes the return);
- ``"reference_progress"``: the same with ``reference_progress_delta``.

The progress modes turn signals on (a training episode). ``truncated`` is true
when the episode reaches ``max_steps`` (default: the server's step limit); the
wrapper then submits, so the last reward and ``info["checks"]`` still arrive.
"""

from __future__ import annotations

from . import errors
from .client import SandworldClient
from .env import SandworldEnv

REWARDS = ("score", "pass", "progress", "reference_progress")
_DELTA = {"progress": ("progress_delta", "progress"),
          "reference_progress": ("reference_progress_delta", "reference_progress")}


def submit_action(output: str | None = None) -> dict:
    """The action that ends an episode, with the agent's final answer."""
    return {"submit": True, "output": output}


class SandworldGymEnv:
    """One Sandworld task as a Gymnasium-style environment."""

    metadata = {"render_modes": []}

    def __init__(self, environment: str, task_id: str | None = None, *, reward: str = "score",
                 base_url=None, client: SandworldClient | None = None, max_steps: int | None = None,
                 signals: bool | None = None, fault_profile: str | None = None,
                 user_simulator: str | None = None, agent_name: str | None = None):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.environment = environment
        self.task_id = task_id
        self.reward_mode = reward
        self.max_steps = max_steps
        self.signals = reward in _DELTA if signals is None else signals
        if reward in _DELTA and not self.signals:
            raise ValueError(f"reward={reward!r} is computed from signals: leave signals on")
        self.fault_profile = fault_profile
        self.user_simulator = user_simulator
        self.env = SandworldEnv(base_url, client=client, agent_name=agent_name)
        self._collected = 0.0

    # -- the Gymnasium API --------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode: ``(obs, info)``. ``options`` may set ``task_id``
        and any other create field for this episode only."""
        options = dict(options or {})
        task_id = options.pop("task_id", self.task_id)
        obs = self.env.reset(self.environment, task_id=task_id, seed=seed, signals=self.signals,
                             fault_profile=self.fault_profile, user_simulator=self.user_simulator, **options)
        self._collected = 0.0
        view = {"instruction": obs.get("instruction"), "policy": obs.get("policy"), "tools": obs.get("tools")}
        info = {"episode_id": obs.get("episode_id"), "seed": obs.get("seed"), "task_id": obs.get("task_id"),
                "digest": obs.get("seed_digest"), "step_budget": obs.get("step_budget"),
                "step_limit": obs.get("step_limit"),
                "training": obs.training}
        return view, info

    def step(self, action):
        """Run one action: a tool call ``{"tool", "arguments"}`` (or ``(tool,
        arguments)``), or ``submit_action(output)`` to end the episode."""
        if self.env.done:
            raise errors.SandworldError("the episode is over: call reset()", code="episode_closed")
        if isinstance(action, dict) and action.get("submit"):
            return self._finish(action.get("output"), truncated=False)
        tool, arguments = (action["tool"], action.get("arguments")) if isinstance(action, dict) else action
        try:
            result = self.env.step(tool, arguments)
        except errors.StepLimit:
            return self._finish(None, truncated=True)
        signals = result.get("signals")
        if self.signals and signals is None:
            raise errors.SignalsUnavailable(
                "this episode was created with signals but the server's step answer has none: "
                "the server does not support signals (yet)"
            )
        obs = {k: v for k, v in result.items() if k != "signals"}
        reward = 0.0
        if self.reward_mode in _DELTA:
            reward = float(signals[_DELTA[self.reward_mode][0]])
            self._collected += reward
        info = {"episode_id": self.env.episode_id, "step": result.get("step"), "signals": signals}
        digest = result.get("state_digest", result.get("digest"))
        if digest is not None:  # a step answer carries no digest today; reset and the end always do
            info["digest"] = digest
        limit = self.max_steps or self.env.observation.get("step_limit")
        if limit is not None and self.env.steps >= limit:
            _, final, _, _, end = self._finish(None, truncated=True)
            end.update({k: v for k, v in info.items() if k not in end})
            return obs, reward + final, False, True, end
        return obs, reward, False, False, info

    def close(self) -> None:
        self.env.close()

    # -- the end ------------------------------------------------------------------------

    def _finish(self, output, truncated: bool):
        ev = self.env.submit(output)
        score = float(ev.get("score") or 0.0)
        if self.reward_mode == "pass":
            reward = 1.0 if ev.get("pass") else 0.0
        elif self.reward_mode == "score":
            reward = score
        else:
            reward = score - self._collected
        info = {"episode_id": self.env.episode_id, "evaluation": ev, "checks": ev.checks, "pass": ev.get("pass"),
                "score": ev.get("score"), "digest": ev.get("digest"), "mask_sample": ev.get("mask_sample", False)}
        return {}, reward, not truncated, truncated, info
