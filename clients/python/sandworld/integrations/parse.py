"""Tool calls and final answers in a model's generated text.

Text-in/text-out trainers (SkyRL-gym, verl's agent loop) get the model's raw
text. ``parse_tool_calls`` reads the tool calls in the common formats:

- Hermes / Qwen: ``<tool_call>{"name": …, "arguments": {…}}</tool_call>``;
- OpenAI-style JSON: ``{"name": …, "arguments": {…} | "<json>"}``, a list of
  them, ``{"tool_calls": [{"function": {"name", "arguments"}}]}``, or the
  Responses API's ``{"type": "function_call", "name", "arguments"}``, alone or
  in a fenced ``json`` block.

Names come back as the server serves them (``gmail_messages_list`` as it
is; an older server's dotted names from their ``__`` form, ``gmail__messages__list``
→ ``gmail.messages.list``). ``final_answer`` is the text with tool calls and
``<think>`` blocks removed; ``tool_message`` is a step's answer as a chat
``tool`` message.
"""

from __future__ import annotations

import json
import re

from ..tools import served_name

_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


def _arguments(raw):
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return {"_unparsed": raw}  # the server answers invalid_arguments: the model sees its mistake
    return raw if isinstance(raw, dict) else {"_unparsed": raw}


def _calls_in(obj) -> list:
    """The ``(name, arguments)`` calls in one decoded JSON value."""
    if isinstance(obj, list):
        return [c for item in obj for c in _calls_in(item)]
    if not isinstance(obj, dict):
        return []
    if isinstance(obj.get("tool_calls"), list):
        return _calls_in(obj["tool_calls"])
    fn = obj.get("function") if isinstance(obj.get("function"), dict) else obj
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        return []
    raw = fn.get("arguments", fn.get("parameters", fn.get("input", {})))
    return [(served_name(name), _arguments(raw))]


def _decode(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def parse_tool_calls(text: str | None) -> list:
    """Every tool call in ``text``, in order, as ``(served tool name, arguments)``."""
    if not text:
        return []
    text = _THINK.sub("", text)
    hermes = _HERMES.findall(text)
    if hermes:
        return [c for block in hermes for c in _calls_in(_decode(block))]
    for block in _FENCE.findall(text):
        calls = _calls_in(_decode(block.strip()))
        if calls:
            return calls
    stripped = text.strip()
    if stripped[:1] in "{[":
        return _calls_in(_decode(stripped))
    return []


def final_answer(text: str | None) -> str | None:
    """The answer in a turn: its text without tool calls and thinking (``None`` if empty)."""
    if text is None:
        return None
    text = _HERMES.sub("", _THINK.sub("", text)).strip()
    return text or None


def result_text(result) -> str:
    """A step's answer as the model reads it: ``{"ok", "result" | "error"}`` as JSON."""
    body = {"ok": result.get("ok")}
    body.update({"result": result["result"]} if "result" in result else {"error": result.get("error")})
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def tool_message(name: str, result) -> dict:
    """A step's answer as a chat ``tool`` message."""
    return {"role": "tool", "name": name, "content": result_text(result)}


def tools_prompt(tools) -> str:
    """The tool schemas as text for a prompt, in the Hermes format
    (``<tools>`` one JSON function per line, calls as ``<tool_call>``) that
    ``parse_tool_calls`` reads back: for a trainer that applies the chat
    template without ``tools=`` (SkyRL-train), so the model still sees them."""
    lines = [json.dumps({"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                                          "parameters": t.get("parameters") or {}}},
                        ensure_ascii=False) for t in tools or []]
    return ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            + "\n".join(lines) + "\n</tools>\n\nFor each function call, return a json object with function name "
            "and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
            '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')
