"""verl: ``to_verl`` against verl's tool-schema model, and the episode an agent loop drives.

verl cannot be imported without torch, which CI never installs. So the schema
test validates against verl's own model when it is importable, and otherwise
against ``VerlToolSchema`` below: a faithful copy of the constraints of
``OpenAIFunctionToolSchema`` as verl states them in ``verl/tools/schemas.py``
(github.com/verl-project/verl, commit 8c3bee471be0db248b99f066dea5bea52fede882,
identical to the file in the verl 0.9.1 wheel): every property needs a ``type``
that is a string or a list of strings, ``description`` is an optional string,
``enum`` an optional list, ``parameters`` has a string ``type``, a dict of
properties and a list ``required``; the function has a string name and description.

``VerlEpisode`` (the part of the agent loop that talks to Sandworld) is driven
as ``run`` drives it; ``SandworldAgentLoop.run`` itself is driven at the end of
this file on a stand-in of verl's ``agent_loop`` module, described there.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest
from pydantic import BaseModel, Field

from sandworld import AsyncSandworldClient
from sandworld.integrations.verl import AGENT_NAME, VerlEpisode, to_verl
from sandworld.tools import served_name
from tests.integrations.helpers import every_tool, hermes, reference


class _Property(BaseModel):  # verl: OpenAIFunctionPropertySchema
    type: str | list[str]
    description: str | None = None
    enum: list[Any] | None = None


class _Parameters(BaseModel):  # verl: OpenAIFunctionParametersSchema
    type: str
    properties: dict[str, _Property]
    required: list[str] = Field(default_factory=list)


class _Function(BaseModel):  # verl: OpenAIFunctionSchema
    name: str
    description: str
    parameters: _Parameters
    strict: bool = False


class VerlToolSchema(BaseModel):  # verl: OpenAIFunctionToolSchema
    type: str
    function: _Function


def verl_model():
    if importlib.util.find_spec("verl") is not None:
        try:
            from verl.tools.schemas import OpenAIFunctionToolSchema
            return OpenAIFunctionToolSchema
        except ImportError:  # verl is there but its torch is not
            pass
    return VerlToolSchema


def test_the_served_schemas_are_what_verl_refuses(api):
    refused = [t for _, t in every_tool(api) if not _valid_raw(t)]
    assert refused, "no served tool needs converting: the to_verl test below proves nothing"


def _valid_raw(tool) -> bool:
    try:
        verl_model().model_validate({"type": "function", "function": tool})
        return True
    except Exception:
        return False


def test_verls_model_accepts_every_tool_of_every_world_and_enums_and_descriptions_are_kept(api):
    model = verl_model()
    tools = every_tool(api)
    assert {world for world, _ in tools} >= {"coinpurse", "quickbasket", "offsite-planning"}
    for world, tool in tools:
        (converted,) = to_verl([tool])
        parsed = model.model_validate(converted)
        assert served_name(parsed.function.name) == tool["name"]
        for name, prop in tool["parameters"]["properties"].items():
            out = parsed.function.parameters.properties[name]
            assert isinstance(out.type, str), (world, tool["name"], name)
            assert out.description.startswith(prop.get("description", "")), (tool["name"], name)
            enum = prop.get("enum") or next((v["enum"] for v in prop.get("anyOf", []) if "enum" in v), None)
            assert out.enum == enum, (tool["name"], name)
        assert parsed.function.parameters.required == tool["parameters"].get("required", [])


def test_an_optional_argument_is_flattened_to_its_type():
    tool = {"name": "list_contacts", "description": "d", "parameters": {"type": "object", "properties": {
        "query": {"description": "text", "anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}],
                  "default": None}}, "required": []}}
    (out,) = to_verl([tool])
    prop = out["function"]["parameters"]["properties"]["query"]
    assert prop["type"] == "string" and prop["description"] == 'text JSON Schema: {"default":null,"maxLength":9}'


def test_the_episode_an_agent_loop_drives_scores_one_with_a_scripted_policy(api):
    async def rollout():
        async with AsyncSandworldClient(api) as client:
            episode = VerlEpisode(client, "coinpurse")
            obs = await episode.start(task_id="cp-04", seed=1)
            assert [m["role"] for m in episode.messages()] == ["system", "user"]
            setup = reference("coinpurse", obs)
            for tool, arguments in setup.solution:
                (message,) = await episode.act(hermes(tool, arguments))
                assert message["role"] == "tool" and '"ok":true' in message["content"]
            assert await episode.act(setup.output) == []  # no tool call: the answer is final
            return await episode.finish(setup.output)

    assert asyncio.run(rollout()) == 1.0
    assert AGENT_NAME == "sandworld_agent"


def test_the_agent_loop_class_needs_verl():
    import sandworld.integrations.verl as module

    if importlib.util.find_spec("verl") is not None:
        pytest.skip("verl is installed here")
    with pytest.raises(ImportError):
        module.SandworldAgentLoop  # noqa: B018


# -- the agent loop against a stand-in of verl's AgentLoopBase ---------------------------------
# verl's agent_loop.py (github.com/verl-project/verl, commit 7a830f6adb64839a5d798c0e5a790f5314a94993,
# as in the 0.9.1 wheel) imports torch, so ``SandworldAgentLoop`` is built here on a stand-in module
# with the same names and signatures: ``register(name)``, ``AgentLoopOutput``/``AgentLoopMetrics``
# (pydantic models with the fields ``run`` sets), and on ``AgentLoopBase`` the attributes ``run``
# uses (``server_manager.generate(request_id=, prompt_ids=, sampling_params=)`` answering
# ``token_ids``, ``tokenizer.decode``, ``rollout_config.response_length`` and
# ``.multi_turn.max_assistant_turns``) and the Continuous Token helpers ``ct_build_initial_tokens``,
# ``ct_merge_assistant_token`` and ``ct_merge_context_msg``, each returning what verl's do
# (merge result with ``token_ids``, the aligned response mask, the aligned logprobs). Its tokenizer
# is one token per character, so the test can read the tokens back.


class _Merge:
    def __init__(self, token_ids):
        self.token_ids = token_ids


class _CharTokenizer:
    @staticmethod
    def encode(text: str) -> list:
        return [ord(c) for c in text]

    @staticmethod
    def decode(ids, skip_special_tokens=True) -> str:
        return "".join(chr(i) for i in ids)


def _render(messages) -> str:
    return "".join(f"<{m['role']}>{m['content']}\n" for m in messages)


def _standin_module(registry: dict):
    import types

    class AgentLoopMetrics(BaseModel):
        generate_sequences: float = 0.0
        tool_calls: float = 0.0

    class AgentLoopOutput(BaseModel):
        prompt_ids: list[int]
        response_ids: list[int]
        response_mask: list[int]
        reward_score: float | None = None
        num_turns: int = 0
        metrics: AgentLoopMetrics

    class AgentLoopBase:
        def __init__(self, server_manager, tokenizer, rollout_config):
            self.server_manager, self.tokenizer, self.rollout_config = server_manager, tokenizer, rollout_config

        async def ct_build_initial_tokens(self, messages, tools=None, **multimodal):
            assert tools and all(t["type"] == "function" for t in tools)
            return self.tokenizer.encode(_render(messages))

        async def ct_merge_assistant_token(self, runtime_token_ids, assistant_token_ids, response_mask,
                                           response_logprobs=None, assistant_logprobs=None):
            return (_Merge(runtime_token_ids + list(assistant_token_ids)),
                    response_mask + [1] * len(assistant_token_ids), None)

        async def ct_merge_context_msg(self, previous_messages, updated_messages, runtime_token_ids, response_mask,
                                       response_logprobs=None, tools=None):
            added = self.tokenizer.encode(_render(updated_messages[len(previous_messages):]))
            return _Merge(runtime_token_ids + added), response_mask + [0] * len(added), None

    def register(agent_name):
        def decorator(cls):
            registry[agent_name] = {"_target_": f"{cls.__module__}.{cls.__qualname__}"}
            return cls
        return decorator

    module = types.ModuleType("verl.experimental.agent_loop.agent_loop")
    module.AgentLoopBase, module.AgentLoopMetrics, module.AgentLoopOutput = AgentLoopBase, AgentLoopMetrics, \
        AgentLoopOutput
    module.register = register
    return module


def test_the_agent_loop_runs_an_episode_to_its_score_as_verl_calls_it(api, monkeypatch):
    import sys
    import types

    import sandworld.integrations.verl as module

    if importlib.util.find_spec("verl") is not None:
        pytest.skip("verl is installed here: its own AgentLoopBase would be used")
    registry: dict = {}
    for name in ("verl", "verl.experimental", "verl.experimental.agent_loop"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "verl.experimental.agent_loop.agent_loop", _standin_module(registry))
    monkeypatch.setenv("SANDWORLD_API_URL", api)
    loop_cls = module._build_agent_loop()
    assert registry == {AGENT_NAME: {"_target_": "sandworld.integrations.verl.SandworldAgentLoop"}}

    async def rollout():
        async with AsyncSandworldClient(api) as client:
            probe = VerlEpisode(client, "coinpurse")
            setup = reference("coinpurse", await probe.start(task_id="cp-04", seed=1))
        turns = [hermes(tool, arguments) for tool, arguments in setup.solution] + [setup.output]

        class Server:
            async def generate(self, request_id, prompt_ids, sampling_params):
                assert sampling_params == {"temperature": 1.0}
                return types.SimpleNamespace(token_ids=_CharTokenizer.encode(turns.pop(0)))

        config = types.SimpleNamespace(response_length=100_000,
                                       multi_turn=types.SimpleNamespace(max_assistant_turns=None))
        loop = loop_cls(server_manager=Server(), tokenizer=_CharTokenizer(), rollout_config=config)
        out = await loop.run({"temperature": 1.0}, raw_prompt=[], data_source="sandworld",
                             extra_info={"environment": "coinpurse", "task_id": "cp-04", "seed": 1})
        await loop_cls._client.aclose()
        return out, setup

    out, setup = asyncio.run(rollout())
    assert out.reward_score == 1.0
    assert len(out.response_ids) == len(out.response_mask) and set(out.response_mask) == {0, 1}
    generated = _CharTokenizer.decode([t for t, m in zip(out.response_ids, out.response_mask) if m == 1])
    assert generated.endswith(setup.output) and generated.count("<tool_call>") == len(setup.solution)
    tool_text = _CharTokenizer.decode([t for t, m in zip(out.response_ids, out.response_mask) if m == 0])
    assert tool_text.count("<tool>") == len(setup.solution) and '"ok":true' in tool_text
    assert "<user>" in _CharTokenizer.decode(out.prompt_ids) and out.num_turns == 2 * (len(setup.solution) + 1)
