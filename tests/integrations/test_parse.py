"""Tool calls and final answers in generated text, in the formats models write."""

from __future__ import annotations

import json

from sandworld.integrations.parse import final_answer, parse_tool_calls, result_text, tool_message


def test_hermes_tool_calls_in_order_with_dotted_names_restored():
    text = ('<think>pay first</think>Sure.\n<tool_call>\n{"name": "pay_request", "arguments": {"request_id": "rq-1"}}'
            '\n</tool_call>\n<tool_call>{"name": "gmail__messages__list", "arguments": {"q": "from:x"}}</tool_call>')
    assert parse_tool_calls(text) == [("pay_request", {"request_id": "rq-1"}),
                                      ("gmail.messages.list", {"q": "from:x"})]


def test_openai_style_json_in_its_shapes():
    chat = {"tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "get_balance", "arguments": "{}"}}]}
    assert parse_tool_calls(json.dumps(chat)) == [("get_balance", {})]
    assert parse_tool_calls('{"name": "list_contacts", "arguments": "{\\"query\\": \\"Maya\\"}"}') == [
        ("list_contacts", {"query": "Maya"})]
    responses = [{"type": "function_call", "call_id": "c", "name": "get_balance", "arguments": "{}"}]
    assert parse_tool_calls(json.dumps(responses)) == [("get_balance", {})]
    fenced = 'Calling:\n```json\n{"name": "get_balance", "parameters": {}}\n```'
    assert parse_tool_calls(fenced) == [("get_balance", {})]


def test_bad_arguments_reach_the_server_to_be_refused_and_prose_is_no_call():
    assert parse_tool_calls('<tool_call>{"name": "pay_request", "arguments": "{oops"}</tool_call>') == [
        ("pay_request", {"_unparsed": "{oops"})]
    assert parse_tool_calls("I paid the request {as asked}.") == []
    assert parse_tool_calls("") == [] and parse_tool_calls(None) == []


def test_final_answer_drops_thinking_and_calls():
    assert final_answer("<think>hmm</think>\nPaid rq-16.") == "Paid rq-16."
    assert final_answer('<tool_call>{"name": "x"}</tool_call>') is None


def test_a_step_answer_as_a_tool_message():
    ok = {"ok": True, "result": {"balance": 5}, "step": 1}
    refused = {"ok": False, "error": {"code": "not_found", "message": "no such request"}}
    assert result_text(ok) == '{"ok":true,"result":{"balance":5}}'
    assert tool_message("get_balance", refused) == {"role": "tool", "name": "get_balance", "content": (
        '{"ok":false,"error":{"code":"not_found","message":"no such request"}}')}
