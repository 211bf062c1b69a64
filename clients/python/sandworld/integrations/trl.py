"""TRL: an ``environment_factory`` class per world, a reward function and a dataset.

``GRPOTrainer(environment_factory=…)`` makes instances with no arguments,
calls ``reset(**row)`` with each dataset row, offers every public method as
a tool (its JSON Schema comes from ``transformers.utils.get_json_schema``:
the type hints and the ``Args:`` docstring) and calls the methods the model
picks. So ``environment_class(world)`` builds a class whose methods are the
world's tools::

    SandworldEnv = environment_class("coinpurse")            # asks the server for the tools
    trainer = GRPOTrainer(model=…, train_dataset=Dataset.from_list(dataset_rows("coinpurse", seeds=range(8))),
                          reward_funcs=reward_func, environment_factory=SandworldEnv)

- ``reset(**row)`` starts an episode from the row's ``task_id`` and ``seed``
  and returns its instruction (and policy), which TRL appends to the prompt;
- each tool method returns the step's answer as JSON text (``{"ok", "result"
  | "error"}``); a refusal is an answer, never an exception;
- ``reward_func`` submits each episode with the completion's final answer and
  returns the scores. Or, with ``environment_class(world, get_reward=True)``,
  the class has TRL's ``get_reward`` hook and owns the reward: it submits the
  episode with no output (TRL gives the hook no completion) and returns the
  score, so ``reward_funcs`` may be left out; use one of the two, not both
  (each would count the score);
- with ``environment_class(world, batch=True)`` the tool methods are async
  and step through an ``AsyncStepBatcher`` on TRL's event loop: the calls TRL
  gathers together go out as one ``/batch``.

Schema constraints survive: an ``enum`` becomes a ``Literal`` type (a real
``enum`` in the schema); what ``get_json_schema`` has no place for
(``minimum``, ``maxLength``, nested ``properties``, defaults…) is written
after the argument's description as ``JSON Schema: {…}``, so the model reads
every constraint the server enforces. Tool names with dots are written with
``__`` (``gmail__messages__list``), as model APIs require.
"""

from __future__ import annotations

import inspect
import re
import threading
from typing import Literal, Optional, Union

from ..client import AsyncSandworldClient, SandworldClient, environment_name
from ..coalesce import AsyncStepBatcher
from ..env import SandworldEnv
from ..tools import model_name
from . import EPISODE_OPTIONS, _schema
from .parse import result_text

PROMPT = ("Use the tools to complete the task below, following the policy. When you are done, reply with your "
          "final answer and call no tool.")
_SCALARS = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict, "null": type(None)}
_RESERVED = {"reset", "close", "aclose", "get_reward", "environment", "base_url", "max_result_chars"}

_CLOSED = '{"ok":false,"error":{"code":"episode_closed","message":"the episode was submitted"}}'
_DOC_HEADERS = re.compile(r"\b(Args|Returns|Raises):")  # get_json_schema splits the docstring at these


def _safe(text: str) -> str:
    return _DOC_HEADERS.sub(r"\1 -", " ".join((text or "").split()))


def _annotation(prop: dict):
    """``(type hint, schema keys the hint gives)`` for a flattened property."""
    kind = prop["type"]
    if "enum" in prop:
        return Literal[tuple(prop["enum"])], {"type", "enum"}
    if isinstance(kind, list):
        return Union[tuple(_SCALARS.get(k, dict) if k != "array" else list for k in kind)], {"type"}
    if kind == "array":
        items = prop.get("items")
        if isinstance(items, dict) and set(items) == {"type"} and items["type"] in _SCALARS:
            return list[_SCALARS[items["type"]]], {"type", "items"}
        return list, {"type"}
    return _SCALARS.get(kind, dict), {"type"}


def _tool_method(tool: dict, batch: bool = False):
    """A method with the tool's typed signature and ``Args:`` docstring
    (a coroutine function with ``batch``: TRL awaits those on its event loop)."""
    served = tool["name"]
    params = tool.get("parameters") or {}
    required = set(params.get("required") or [])
    parameters, annotations, lines = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)], {}, []
    properties = params.get("properties") or {}
    for name in sorted(properties, key=lambda n: n not in required):  # required ones first, as Python wants
        flat, nullable = _schema.flatten(properties[name])
        hint, kept = _annotation(flat)
        if nullable or name not in required:
            hint = Optional[hint]
        default = inspect.Parameter.empty if name in required else flat.get("default")
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint))
        annotations[name] = hint
        lines.append(f"    {name}: {_safe(_schema.note(flat, kept)) or name}")

    if batch:
        async def call(self, **arguments):
            return await self._call_batched(served, arguments)
    else:
        def call(self, **arguments):
            return self._call(served, arguments)

    call.__name__ = call.__qualname__ = model_name(served)
    call.__signature__ = inspect.Signature(parameters, return_annotation=str)
    call.__annotations__ = {**annotations, "return": str}
    doc = _safe(tool.get("description") or served)
    call.__doc__ = doc + ("\n\nArgs:\n" + "\n".join(lines) if lines else "") + \
        "\n\nReturns:\n    The tool's answer as JSON: ok, and result or error."
    return call


class SandworldTRLEnv:
    """The base of the classes ``environment_class`` makes. Its only public
    method is ``reset``: every other public method is a tool for TRL."""

    environment: str = ""
    base_url = None
    # Tool results longer than this are cut (0: never): TRL counts them in max_completion_length.
    max_result_chars = 8192
    _client: SandworldClient | None = None
    _batcher: AsyncStepBatcher | None = None  # with batch=True: made on TRL's event loop, on first use
    _lock = threading.Lock()

    def __init__(self):
        cls = type(self)
        with cls._lock:
            if cls._client is None:
                cls._client = SandworldClient(cls.base_url)  # one connection pool for every instance
        self._env = SandworldEnv(client=cls._client)
        self._score: float | None = None

    def reset(self, task_id: str | None = None, seed: int | None = None, **row) -> str:
        """Start an episode for the row's ``task_id`` and ``seed`` (and its episode
        options: ``scoring``, ``signals``, ``fault_profile``, ``user_simulator``,
        ``agent_name``, ``mode``); return its instruction and policy."""
        options = {k: row[k] for k in EPISODE_OPTIONS if row.get(k) is not None}
        obs = self._env.reset(self.environment, task_id=task_id, seed=seed, **options)
        self._score = None
        policy = obs.get("policy")
        return f"\n\n{obs.get('instruction') or ''}" + (f"\n\nPolicy:\n{policy}" if policy else "")

    @classmethod
    def close(cls) -> None:
        """Close the connection pool the class's instances share (a classmethod:
        TRL lists functions only, so this is not offered as a tool)."""
        with cls._lock:
            if cls._client is not None:
                cls._client.close()
                cls._client = None

    @classmethod
    async def aclose(cls) -> None:
        """With ``batch=True``: close the batcher's client, on the event loop the tools ran on."""
        batcher, cls._batcher = cls._batcher, None
        if batcher is not None:
            await batcher.client.aclose()

    def _call(self, tool: str, arguments: dict) -> str:
        if self._env.done:
            return _CLOSED
        return self._capped(result_text(self._env.step(tool, arguments)))

    async def _call_batched(self, tool: str, arguments: dict) -> str:
        if self._env.done:
            return _CLOSED
        cls = type(self)
        if cls._batcher is None:
            cls._batcher = AsyncStepBatcher(AsyncSandworldClient(cls.base_url))
        return self._capped(result_text(await cls._batcher.step(self._env, tool, arguments)))

    def _capped(self, text: str) -> str:
        most = self.max_result_chars
        if most and len(text) > most:  # TRL counts tool results in max_completion_length
            text = f"{text[:most]}… ({len(text) - most} characters cut)"
        return text

    def _submit(self, answer: str | None) -> float:
        if self._score is None:
            self._score = float(self._env.submit(answer).get("score") or 0.0)
        return self._score


def environment_class(environment: str | list, base_url=None, tools: list | None = None, *,
                      get_reward: bool = False, batch: bool = False) -> type:
    """An ``environment_factory`` for TRL: a class, made with no arguments,
    whose public methods are ``environment``'s tools (a world, or a list of
    two or three for a composite episode). The tools are read from
    the server at ``base_url`` (default ``$SANDWORLD_API_URL``) unless given.
    ``get_reward``: the class owns the reward (TRL's hook; see the module
    docstring). ``batch``: async tool methods whose calls coalesce into ``/batch``."""
    environment = environment_name(environment)
    if tools is None:
        with SandworldClient(base_url) as client:
            tools = client.environment(environment)["tools"]
    namespace = {"environment": environment, "base_url": base_url, "_client": None, "_batcher": None,
                 "_lock": threading.Lock()}
    if get_reward:
        namespace["get_reward"] = _get_reward
    for tool in tools:
        method = _tool_method(tool, batch)
        if method.__name__ in _RESERVED or method.__name__.startswith("_"):
            raise ValueError(f"{environment}'s tool {tool['name']!r} cannot be a TRL tool method")
        namespace[method.__name__] = method
    title = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", environment))
    return type(f"Sandworld{title}Env", (SandworldTRLEnv,), namespace)


def _get_reward(self) -> float:
    """TRL's ``get_reward`` hook: submit the rollout's episode (with no output:
    the hook gets no completion) and return its score, 0.0 to 1.0."""
    return self._submit(None)


def completion_text(completion) -> str | None:
    """The final answer of a completion: its last assistant message's text
    (conversational), or the text itself."""
    if isinstance(completion, str):
        return completion.strip() or None
    for message in reversed(completion or []):
        if message.get("role") == "assistant" and not message.get("tool_calls"):
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return (content or "").strip() or None
    return None


def reward_func(completions, environments=None, **kwargs) -> list:
    """TRL reward function: submit each rollout's episode with its completion's
    final answer; its score (0.0 to 1.0) is the reward."""
    if environments is None:
        raise ValueError("reward_func needs environments: pass environment_factory=environment_class(...)")
    return [env._submit(completion_text(c)) for c, env in zip(completions, environments, strict=True)]


def dataset_rows(environment: str, seeds=range(4), tasks=None, base_url=None, prompt: str = PROMPT) -> list:
    """Dataset rows ``{prompt, task_id, seed}``: one per task and seed (every
    task of the world unless ``tasks`` is given). ``reset`` appends the
    instruction to the prompt. Wrap with ``datasets.Dataset.from_list``."""
    if tasks is None:
        with SandworldClient(base_url) as client:
            tasks = [t["id"] for t in client.environment(environment)["tasks"]]
    return [{"prompt": [{"role": "user", "content": prompt}], "task_id": task, "seed": int(seed)}
            for task in tasks for seed in seeds]


__all__ = ["PROMPT", "SandworldTRLEnv", "completion_text", "dataset_rows", "environment_class", "reward_func"]
