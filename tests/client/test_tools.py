"""Tool-schema converters, on the tools a real server serves."""

from __future__ import annotations

import json
import warnings
from types import SimpleNamespace

import pytest
from openai.lib._pydantic import _ensure_strict_json_schema

from sandworld import SandworldEnv
from sandworld.tools import (
    calls_from_anthropic, calls_from_openai, to_anthropic, to_mcp, to_openai_chat, to_openai_responses,
)


@pytest.fixture(scope="module")
def served(api):
    with SandworldEnv(api) as env:
        return env.reset("coinpurse", task_id="cp-13", seed=0)


def test_anthropic_shape(served):
    tools = to_anthropic(served)
    assert [t["name"] for t in tools] == [t["name"] for t in served.tools]
    for mine, theirs in zip(tools, served.tools):
        assert set(mine) == {"name", "description", "input_schema"}
        assert mine["input_schema"] == theirs["parameters"] and mine["input_schema"]["type"] == "object"
    assert "ask_user" in {t["name"] for t in tools}  # the episode's own list, simulated user included


def test_openai_chat_shape(served):
    tools = to_openai_chat(served.tools)
    assert all(set(t) == {"type", "function"} and t["type"] == "function" for t in tools)
    assert all(set(t["function"]) == {"name", "description", "parameters"} for t in tools)
    assert tools[0]["function"]["parameters"] == served.tools[0]["parameters"]


def test_openai_responses_shape_is_flat(served):
    tools = to_openai_responses(served.tools)
    assert all(set(t) == {"type", "name", "description", "parameters", "strict"} for t in tools)
    assert all(t["type"] == "function" and t["strict"] is False for t in tools)


def test_mcp_tools_list_shape(served):
    listing = to_mcp(served.tools)
    assert set(listing) == {"tools"}
    assert all(set(t) == {"name", "description", "inputSchema"} for t in listing["tools"])
    json.dumps(listing)  # a JSON-RPC result as it stands


def test_converted_schemas_are_copies(served):
    tools = to_anthropic(served)
    tools[0]["input_schema"]["properties"]["mutated"] = {}
    assert "mutated" not in served.tools[0]["parameters"]["properties"]


def test_model_tool_calls_read_back_as_steps():
    anthropic_content = [
        SimpleNamespace(type="text", text="Let me look."),
        SimpleNamespace(type="tool_use", id="toolu_1", name="list_requests", input={"status": "pending"}),
        {"type": "tool_use", "id": "toolu_2", "name": "get_balance", "input": {}},
    ]
    assert calls_from_anthropic(anthropic_content) == [("toolu_1", "list_requests", {"status": "pending"}),
                                                      ("toolu_2", "get_balance", {})]
    chat = [{"id": "call_1", "type": "function",
             "function": {"name": "pay_request", "arguments": '{"request_id": "rq-16"}'}}]
    responses = [{"type": "function_call", "call_id": "call_2", "name": "get_balance", "arguments": "{}"}]
    broken = [{"id": "call_3", "function": {"name": "get_balance", "arguments": "{not json"}}]
    assert calls_from_openai(chat) == [("call_1", "pay_request", {"request_id": "rq-16"})]
    assert calls_from_openai(responses) == [("call_2", "get_balance", {})]
    assert calls_from_openai(broken) == [("call_3", "get_balance", {"_unparsed": "{not json"})]


def test_dotted_tool_names_round_trip_through_model_formats():
    served = [{"name": "gmail.messages.list", "description": "List mail.", "parameters": {"type": "object"}},
              {"name": "get_balance", "description": "Balance.", "parameters": {"type": "object"}}]
    import re

    for names in ([t["name"] for t in to_anthropic(served)],
                  [t["function"]["name"] for t in to_openai_chat(served)],
                  [t["name"] for t in to_openai_responses(served)]):
        assert names == ["gmail__messages__list", "get_balance"]
        assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", n) for n in names)
    assert [t["name"] for t in to_mcp(served)["tools"]] == ["gmail.messages.list", "get_balance"]
    assert calls_from_anthropic([{"type": "tool_use", "id": "t1", "name": "gmail__messages__list", "input": {}}]) \
        == [("t1", "gmail.messages.list", {})]
    assert calls_from_openai([{"id": "c1", "function": {"name": "gmail__messages__list", "arguments": "{}"}}]) \
        == [("c1", "gmail.messages.list", {})]
    assert calls_from_openai([{"id": "c2", "function": {"name": "get_balance", "arguments": "{}"}}]) \
        == [("c2", "get_balance", {})]


def _strict_ok(schema, where: str) -> None:
    """OpenAI's strict-mode rules for a schema: every object closed, every property required, no defaults."""
    assert "default" not in schema and "oneOf" not in schema, where
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties", {})
        assert schema.get("additionalProperties") is False, where
        assert sorted(schema.get("required", [])) == sorted(props), where
        for name, sub in props.items():
            _strict_ok(sub, f"{where}.{name}")
    for key in ("items",):
        if isinstance(schema.get(key), dict):
            _strict_ok(schema[key], f"{where}[]")
    for sub in schema.get("anyOf", []):
        _strict_ok(sub, where)


def test_strict_openai_tools_meet_strict_mode_for_every_world(api):
    with SandworldEnv(api) as env:
        for world in ("coinpurse", "offsite-planning", "codehost", "quickbasket", "receivables", "dummy"):
            served = env.reset(world)
            with warnings.catch_warnings(record=True) as said:
                warnings.simplefilter("always")
                converted = to_openai_responses(served, strict=True)
            loose = {t["name"] for t in converted if not t["strict"]}
            assert len(said) == len(loose) and all("free-form" in str(w.message) for w in said)
            for tool, original in zip(converted, served.tools):
                if tool["name"] in loose:
                    continue
                _strict_ok(tool["parameters"], f"{world}.{tool['name']}")
                # the OpenAI SDK's own strict-schema pass finds nothing left to change
                mine = json.loads(json.dumps(tool["parameters"]))
                assert _ensure_strict_json_schema(mine, path=(), root=mine) == tool["parameters"]
                optional = set(original["parameters"].get("properties", {})) - set(
                    original["parameters"].get("required", []))
                for name in optional:  # optional arguments may be null: the model sends null for "left out"
                    prop = tool["parameters"]["properties"][name]
                    types = prop.get("type")
                    assert (isinstance(types, list) and "null" in types) or {"type": "null"} in prop.get("anyOf", [])


def test_strict_calls_read_back_without_their_nulls():
    call = {"call_id": "c1", "name": "list_requests", "arguments": '{"status": null, "limit": 5}'}
    assert calls_from_openai([call], drop_nulls=True) == [("c1", "list_requests", {"limit": 5})]
    assert calls_from_openai([call]) == [("c1", "list_requests", {"status": None, "limit": 5})]
