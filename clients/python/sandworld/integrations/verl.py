"""verl: tool schemas its model accepts, and the ``sandworld_agent`` agent loop.

``to_verl(tools)`` turns served tools into verl's ``OpenAIFunctionToolSchema``
shape (``verl/tools/schemas.py``): every property has a string ``type`` (an
optional ``anyOf: [X, null]`` becomes X), keeps its ``enum`` and
description, and the constraints verl's model drops (``minimum``,
``maxLength``, nested ``properties``…) are written into the description.

``SandworldAgentLoop`` is an ``AgentLoopBase`` registered as
``sandworld_agent``: it creates the episode when a sample starts, runs the
multi-turn tool loop against it (Hermes ``<tool_call>`` JSON, as verl's own
tool agent loop parses it), and submits at the end, returning the score as
``reward_score``. One episode per sample, not a tool instance per call. It
follows verl 0.9.1's ``ToolAgentLoop`` (the ``verl`` extra pins
``verl>=0.9.1,<0.10``: earlier releases lack the Continuous Token helpers it
calls): ``response_logprobs``, tool messages cut to
``max_tool_response_length``, ``extra_fields`` with ``tool_rewards`` (each
call's ``progress_delta`` when the row asks for signals). The samples share an
``AsyncStepBatcher``, so their steps go out together as ``/batch``. verl
itself imports torch, so the class is built on first access::

    from sandworld.integrations.verl import SandworldAgentLoop  # imports verl

Its episode logic is ``VerlEpisode``, which needs no verl.
"""

from __future__ import annotations

from .. import errors
from ..client import AsyncSandworldClient
from ..coalesce import AsyncStepBatcher
from ..env import AsyncSandworldEnv
from ..tools import model_name
from . import EPISODE_OPTIONS, _schema
from .parse import final_answer, parse_tool_calls, tool_message

AGENT_NAME = "sandworld_agent"
_KEPT = {"type", "enum"}


def to_verl(tools) -> list:
    """Served tools (or an observation holding them) as verl tool schemas:
    ``[{"type": "function", "function": {name, description, parameters}}]``."""
    if isinstance(tools, dict) and "tools" in tools:
        tools = tools["tools"]
    out = []
    for tool in tools:
        params = tool.get("parameters") or {}
        properties = {}
        for name, prop in (params.get("properties") or {}).items():
            flat, _ = _schema.flatten(prop)
            entry = {"type": flat["type"], "description": _schema.note(flat, _KEPT)}
            if "enum" in flat:
                entry["enum"] = list(flat["enum"])
            properties[name] = entry
        parameters = {"type": "object", "properties": properties, "required": list(params.get("required") or [])}
        out.append({"type": "function", "function": {"name": model_name(tool["name"]),
                                                      "description": tool.get("description") or "",
                                                      "parameters": parameters}})
    return out


class VerlEpisode:
    """One sample's episode, as the agent loop drives it: ``start`` from the
    dataset row, ``act`` on each generated turn, ``finish`` with the score.

    With a ``batcher`` (an ``AsyncStepBatcher`` the samples share), a turn's
    calls go out with the other samples' in one ``/batch``. With signals on,
    ``tool_rewards`` holds each call's ``progress_delta``: verl's per-tool reward."""

    def __init__(self, client: AsyncSandworldClient, environment: str, batcher: AsyncStepBatcher | None = None):
        self.env = AsyncSandworldEnv(client=client)
        self.environment = environment
        self.batcher = batcher
        self.observation = None
        self.tool_rewards: list = []
        self.out_of_steps = False

    async def start(self, task_id: str | None = None, seed: int | None = None, **create) -> dict:
        """Create the episode (``create``: the row's episode options); return its observation."""
        self.observation = await self.env.reset(self.environment, task_id=task_id, seed=seed, **create)
        return self.observation

    def messages(self, system: str | None = None) -> list:
        """The first chat messages of the sample: the policy as system, the instruction as user."""
        obs = self.observation
        system = system if system is not None else obs.get("policy") or ""
        return ([{"role": "system", "content": system}] if system else []) + [
            {"role": "user", "content": obs.get("instruction") or ""}]

    async def act(self, text: str) -> list:
        """Run the tool calls in one generated turn; return the tool messages
        (empty when the turn called no tool: the answer is final)."""
        calls = parse_tool_calls(text)
        if self.batcher is not None:
            results = await self.batcher.step_many([(self.env, name, arguments) for name, arguments in calls],
                                                   return_exceptions=True)
        else:
            results = []
            for name, arguments in calls:
                try:
                    results.append(await self.env.step(name, arguments))
                except errors.StepLimit as e:
                    results.append(e)
                    break
        out = []
        for (name, _), result in zip(calls, results):
            if isinstance(result, errors.StepLimit):
                self.out_of_steps = True  # the episode takes no more calls: the loop submits it
                break
            if isinstance(result, BaseException):
                raise result
            signals = result.get("signals")
            if signals is not None:
                self.tool_rewards.append(float(signals.get("progress_delta") or 0.0))
            out.append(tool_message(name, result))
        return out

    async def finish(self, text: str | None) -> float:
        """Submit with the final answer of the last turn; return the score."""
        if self.env.done:
            return float(self.env.evaluation.get("score") or 0.0)
        evaluation = await self.env.submit(final_answer(text))
        return float(evaluation.get("score") or 0.0)


def _cut(text: str, most: int, side: str) -> str:
    """A tool message cut to verl's ``max_tool_response_length`` as ToolAgentLoop cuts it."""
    if not most or len(text) <= most:
        return text
    if side == "left":
        return "(truncated)..." + text[-most:]
    if side == "right":
        return text[:most] + "...(truncated)"
    return text[:most // 2] + "...(truncated)..." + text[-(most // 2):]


def _build_agent_loop():
    """``SandworldAgentLoop``, made when first asked for (it imports verl)."""
    from uuid import uuid4

    from verl.experimental.agent_loop.agent_loop import (
        AgentLoopBase, AgentLoopMetrics, AgentLoopOutput, register,
    )

    class SandworldAgentLoop(AgentLoopBase):
        """One Sandworld episode per sample. The dataset row's ``extra_info``
        (or the row) gives ``environment``, ``task_id``, ``seed`` and the
        episode options (``scoring``, ``signals``, ``fault_profile``,
        ``user_simulator``…); the server URL is ``$SANDWORLD_API_URL``. The
        samples of a worker share one client and one ``AsyncStepBatcher``, so
        their steps go out together as ``/batch`` requests (``batch_window``
        in the row: seconds, 0 for one request per step)."""

        _client = None
        _batcher = None

        async def run(self, sampling_params, **kwargs):
            # Written after verl 0.9.1's ToolAgentLoop (tool_agent_loop.py): the Continuous Token
            # builder of AgentLoopBase renders the prompt and merges each generated turn (mask 1, its
            # logprobs) and each batch of tool messages (mask 0, logprob 0); the output carries
            # response_logprobs, and extra_fields turn_scores and tool_rewards as ToolAgentLoop's do.
            row = {**kwargs, **(kwargs.get("extra_info") or {})}
            cls = type(self)
            if cls._client is None:
                cls._client = AsyncSandworldClient()
            window = row.get("batch_window")
            if cls._batcher is None:
                cls._batcher = AsyncStepBatcher(cls._client)
            batcher = cls._batcher if window != 0 else None
            if batcher is not None and window is not None:
                batcher.window = float(window)
            episode = VerlEpisode(cls._client, row["environment"], batcher)
            options = {k: row[k] for k in EPISODE_OPTIONS if row.get(k) is not None}
            obs = await episode.start(task_id=row.get("task_id"), seed=row.get("seed"), **options)
            messages, tools = episode.messages(), to_verl(obs)
            runtime_ids = list(await self.ct_build_initial_tokens(messages, tools=tools))
            response_mask, response_logprobs, text = [], [], ""
            assistant_turns = user_turns = 0
            config = self.rollout_config
            limit = config.response_length
            multi_turn = config.multi_turn
            max_turns = int(row.get("max_turns") or multi_turn.max_assistant_turns or 16)
            most = getattr(multi_turn, "max_tool_response_length", 0)
            side = getattr(multi_turn, "tool_response_truncate_side", "middle")
            while True:
                output = await self.server_manager.generate(request_id=uuid4().hex, prompt_ids=runtime_ids,
                                                            sampling_params=sampling_params)
                assistant_turns += 1
                logprobs = getattr(output, "log_probs", None)
                merged, response_mask, aligned = await self.ct_merge_assistant_token(
                    runtime_ids, output.token_ids, response_mask,
                    response_logprobs if (response_logprobs or logprobs) else None,
                    assistant_logprobs=logprobs or None)
                runtime_ids = merged.token_ids
                if aligned is not None:
                    response_logprobs = aligned
                text = self.tokenizer.decode(output.token_ids, skip_special_tokens=True)
                messages.append({"role": "assistant", "content": text})
                if len(response_mask) >= limit or assistant_turns >= max_turns:
                    break
                tool_messages = await episode.act(text)
                if not tool_messages or episode.out_of_steps:
                    break  # no tool call: this turn is the answer (or the episode's steps are used up)
                for message in tool_messages:
                    message["content"] = _cut(message["content"], most, side)
                previous = list(messages)
                messages.extend(tool_messages)
                merged, mask, aligned = await self.ct_merge_context_msg(
                    previous, messages, runtime_ids, response_mask, response_logprobs or None, tools=tools)
                if len(mask) >= limit:
                    break
                runtime_ids, response_mask = merged.token_ids, mask
                if response_logprobs:
                    response_logprobs = aligned or []
                user_turns += 1
            score = await episode.finish(text)
            cut = len(runtime_ids) - len(response_mask)
            out = AgentLoopOutput(prompt_ids=runtime_ids[:cut], response_ids=runtime_ids[cut:][:limit],
                                  response_mask=response_mask[:limit],
                                  response_logprobs=response_logprobs[:limit] if response_logprobs else None,
                                  reward_score=score, num_turns=user_turns + assistant_turns + 1,
                                  metrics=AgentLoopMetrics(),
                                  extra_fields={"turn_scores": [], "tool_rewards": episode.tool_rewards,
                                                "episode_id": episode.env.episode_id})
            return out

    # verl's registry records ``module.qualname`` for hydra to import: the name this module
    # answers (through ``__getattr__``), not the function that made the class.
    SandworldAgentLoop.__qualname__ = "SandworldAgentLoop"
    return register(AGENT_NAME)(SandworldAgentLoop)


def __getattr__(name):
    if name == "SandworldAgentLoop":
        loop = _build_agent_loop()
        globals()[name] = loop
        return loop
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["AGENT_NAME", "VerlEpisode", "to_verl", "SandworldAgentLoop"]
