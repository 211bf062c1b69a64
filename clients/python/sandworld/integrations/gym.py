"""Gymnasium: ``SandworldGymEnv``, a ``gymnasium.Env`` over one world.

``reset(seed=…) -> (obs, info)`` and ``step(action) -> (obs, reward,
terminated, truncated, info)``, with spaces, registration and the seeding
contract Gymnasium's ``check_env`` verifies::

    import gymnasium
    from sandworld.integrations.gym import register_worlds, submit_action

    register_worlds()                                   # sandworld/<world>-v0 for each served world
    env = gymnasium.make("sandworld/coinpurse-v0", task_id="cp-04")
    obs, info = env.reset(seed=1)
    obs, reward, terminated, truncated, info = env.step({"tool": "get_balance", "arguments": "{}"})
    obs, reward, terminated, truncated, info = env.step(submit_action("Paid it."))

**Spaces.** Both are ``Dict`` spaces of ``Text`` (JSON where structured):

- observation: ``instruction``, ``policy``, ``tools`` (the tool definitions
  as JSON) from reset on; ``tool``, ``ok`` (``Discrete(2)``) and ``result``
  (the answer's result or error, as JSON) of the last step (``""`` and 1
  after reset);
- action: ``{"tool": name, "arguments": JSON object text}``; a dict of
  arguments is accepted too, and ``(tool, arguments)``. The tool
  ``submit`` (``submit_action(output)``) ends the episode with the answer.

Arguments that are not a JSON object are refused like any bad call: an
observation with ``ok`` 0, no exception. Signals are never in the observation
(a policy that reads them learns to read the grader); they are in
``info["signals"]``. ``info["digest"]`` is the state digest at reset and at the
end; ``info["checks"]`` and ``info["evaluation"]`` arrive with the end.

**Seeding.** ``reset(seed=n)`` plays seed ``n`` and seeds the env's
``np_random``; ``reset()`` draws the next seed from ``np_random`` (so seeds
vary, reproducibly). Without ``task_id`` each reset draws a task too.

**Rewards** (``reward=``), each summing over an episode to its final score:

- ``"score"`` (default): 0 per step, the evaluation's score at submit;
- ``"pass"``: 0 per step, 1.0 at submit if the episode passed, else 0.0;
- ``"progress"``: each step's ``signals.progress_delta``, and at submit the
  score minus the progress collected (so shaping never changes the return);
- ``"reference_progress"``: the same with ``reference_progress_delta``.

``truncated`` is true when the episode reaches ``max_steps`` (default: the
server's step limit); the env then submits, so the last reward and
``info["checks"]`` still arrive.
"""

from __future__ import annotations

import json
import string

from .. import errors
from ..client import SandworldClient
from ..env import SandworldEnv
from . import require, served_worlds

gymnasium = require("gymnasium", "gym")
spaces = require("gymnasium.spaces", "gym")

REWARDS = ("score", "pass", "progress", "reference_progress")
_DELTA = {"progress": ("progress_delta", "progress"),
          "reference_progress": ("reference_progress_delta", "reference_progress")}


SUBMIT = "submit"
MAX_TEXT = 1 << 20  # characters in one observation text
# Natural text is any character of the Basic Multilingual Plane (less the
# surrogates and controls); JSON texts are written ASCII-only.
CHARSET = frozenset(["\t", "\n", "\r"] + [chr(c) for c in range(0x20, 0xD800) if not 0x7F <= c < 0xA0]
                    + [chr(c) for c in range(0xE000, 0xFFFE)])
NAME_CHARSET = frozenset(string.ascii_letters + string.digits + "_.-")
JSON_CHARSET = frozenset(string.printable)


def submit_action(output: str | None = None) -> dict:
    """The action that ends an episode, with the agent's final answer."""
    return {"tool": SUBMIT, "arguments": json.dumps({"output": output})}


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), sort_keys=True)


def observation_space() -> spaces.Dict:
    text = spaces.Text(MAX_TEXT, min_length=0, charset=CHARSET)
    return spaces.Dict({
        "instruction": text, "policy": text, "tools": spaces.Text(MAX_TEXT, min_length=0, charset=JSON_CHARSET),
        "tool": spaces.Text(256, min_length=0, charset=NAME_CHARSET), "ok": spaces.Discrete(2),
        "result": spaces.Text(MAX_TEXT, min_length=0, charset=JSON_CHARSET),
    })


def action_space() -> spaces.Dict:
    return spaces.Dict({"tool": spaces.Text(64, min_length=1, charset=NAME_CHARSET),
                        "arguments": spaces.Text(4096, min_length=0, charset=JSON_CHARSET)})


def _read_action(action):
    """``(tool, arguments dict | None, refusal message | None)``."""
    if isinstance(action, dict) and action.get("submit"):  # the dict form of earlier versions
        return SUBMIT, {"output": action.get("output")}, None
    tool, arguments = (action["tool"], action.get("arguments")) if isinstance(action, dict) else action
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as e:
            return tool, None, f"arguments are not JSON: {e}"
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return tool, None, "arguments must be a JSON object"
    return tool, arguments, None


class SandworldGymEnv(gymnasium.Env):
    """One Sandworld world (or one task of it) as a Gymnasium environment."""

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
        self._tasks: list | None = None
        self._task_view: dict = {}
        self.observation_space = observation_space()
        self.action_space = action_space()
        self.render_mode = None

    # -- the Gymnasium API --------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start an episode: ``(obs, info)``. ``options`` may set ``task_id``
        and any other create field for this episode only."""
        super().reset(seed=seed)
        options = dict(options or {})
        task_id = options.pop("task_id", self.task_id)
        if task_id is None:
            if self._tasks is None:
                self._tasks = sorted(t["id"] for t in self.env.client.environment(self.environment)["tasks"])
            task_id = self._tasks[int(self.np_random.integers(len(self._tasks)))]
        episode_seed = seed if seed is not None else int(self.np_random.integers(2**31 - 1))
        obs = self.env.reset(self.environment, task_id=task_id, seed=episode_seed, signals=self.signals,
                             fault_profile=self.fault_profile, user_simulator=self.user_simulator, **options)
        self._collected = 0.0
        self._task_view = {"instruction": obs.get("instruction") or "", "policy": obs.get("policy") or "",
                           "tools": _json(obs.get("tools") or []), "tool": "", "ok": 1, "result": ""}
        view = self._blank()
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
        tool, arguments, refusal = _read_action(action)
        if tool == SUBMIT and refusal is None:
            return self._finish(arguments.get("output"), truncated=False)
        if refusal is not None:
            obs = {**self._blank(), "tool": str(tool), "ok": 0,
                   "result": _json({"code": "invalid_arguments", "message": refusal})}
            return obs, 0.0, False, False, {"step": self.env.steps, "signals": None}
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
        obs = {**self._blank(), "tool": str(result.get("tool", tool)), "ok": int(bool(result.get("ok"))),
               "result": _json(result["result"] if "result" in result else result.get("error"))}
        reward = 0.0
        if self.reward_mode in _DELTA:
            reward = float(signals[_DELTA[self.reward_mode][0]])
            self._collected += reward
        # No episode id here: a step's info depends only on the seed and the actions (check_env
        # verifies it). The id is in reset's info, the end's info and ``self.episode_id``.
        info = {"step": result.get("step"), "signals": signals}
        digest = result.get("state_digest", result.get("digest"))
        if digest is not None:  # a step answer carries no digest today; reset and the end always do
            info["digest"] = digest
        limit = self.max_steps or self.env.observation.get("step_limit")
        if limit is not None and self.env.steps >= limit:
            _, final, _, _, end = self._finish(None, truncated=True)
            end.update({k: v for k, v in info.items() if k not in end})
            return obs, reward + final, False, True, end
        return obs, reward, False, False, info

    @property
    def episode_id(self) -> str | None:
        """The current episode's id on the server."""
        return self.env.episode_id

    def close(self) -> None:
        self.env.close()

    def _blank(self) -> dict:
        """A new observation holding the episode's task (as at reset), no step yet."""
        return dict(self._task_view)

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
        obs = {**self._blank(), "tool": SUBMIT, "ok": 1,
               "result": _json({"pass": ev.get("pass"), "score": ev.get("score")})}
        return obs, reward, not truncated, truncated, info


def register_worlds(base_url=None, worlds=None) -> list:
    """Register ``sandworld/<world>-v0`` with Gymnasium for each world (default:
    every world the server at ``base_url`` serves); return the ids."""
    ids = []
    for world in served_worlds(base_url, worlds):
        env_id = f"sandworld/{world}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="sandworld.integrations.gym:SandworldGymEnv",
                               kwargs={"environment": world, "base_url": base_url})
        ids.append(env_id)
    return ids
