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

The agent loop itself (``SandworldAgentLoop.run``) needs verl's tokenizer and
LLM server manager; ``VerlEpisode`` is the part of it that talks to Sandworld,
driven here exactly as ``run`` drives it: start from the row, act on each
generated turn, finish with the last turn's text.
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
