"""Tool definitions in your model's format.

The server serves tools in the Messages API shape ``{name, description,
parameters}`` (``parameters`` is a JSON Schema object). These functions take
that list, or an observation holding it under ``tools``, and return:

- ``to_anthropic``: ``[{name, description, input_schema}]`` for ``messages.create(tools=…)``;
- ``to_openai_chat``: ``[{"type": "function", "function": {name, description, parameters}}]``;
- ``to_openai_responses``: ``[{"type": "function", name, description, parameters, strict}]`` (flat);
- ``to_mcp``: the result of an MCP ``tools/list``: ``{"tools": [{name, description, inputSchema}]}``.

And back: ``calls_from_anthropic`` and ``calls_from_openai`` read the model's
tool calls as ``(call_id, tool, arguments)`` ready for ``env.step``.
Schemas are deep-copied, so a caller may edit what it gets.

Model APIs accept tool names of letters, digits, ``_`` and ``-`` only, and the
server serves only such names: a tool named after a real API method is served
as ``gmail_messages_list``, with ``gmail.messages.list`` as its ``alias``, so
names pass through unchanged. An older server served the dotted names; for
those the model-facing formats (Anthropic, OpenAI) write a dot as ``__``
(``gmail__messages__list``), and the readers turn the names back; MCP keeps
names as served.
"""

from __future__ import annotations

import copy
import json
import warnings


def model_name(name: str) -> str:
    """A served tool name as model APIs accept it: dots become ``__``."""
    return name.replace(".", "__")


def served_name(name: str) -> str:
    """The served tool name of a name from a model: ``__`` becomes a dot."""
    return name.replace("__", ".") if isinstance(name, str) else name


def _tools(tools) -> list:
    if isinstance(tools, dict) and "tools" in tools:
        tools = tools["tools"]
    out = []
    for t in tools:
        if not isinstance(t, dict) or "name" not in t:
            raise ValueError(f"not a tool definition: {t!r}")
        schema = copy.deepcopy(t.get("parameters") or {"type": "object", "properties": {}})
        out.append((t["name"], t.get("description", ""), schema))
    return out


def to_anthropic(tools) -> list:
    """Anthropic Messages API tools: ``{name, description, input_schema}``."""
    return [{"name": model_name(n), "description": d, "input_schema": s} for n, d, s in _tools(tools)]


def to_openai_chat(tools) -> list:
    """OpenAI Chat Completions tools: ``{"type": "function", "function": {…}}``."""
    return [{"type": "function", "function": {"name": model_name(n), "description": d, "parameters": s}}
            for n, d, s in _tools(tools)]


def to_openai_responses(tools, *, strict: bool = False) -> list:
    """OpenAI Responses API tools: flat ``{"type": "function", name, description,
    parameters, strict}``.

    ``strict=True`` converts each schema to what strict mode accepts: every
    object closed (``additionalProperties: false``), every property required,
    an optional one nullable (the model sends ``null`` for "left out": read
    the calls with ``calls_from_openai(..., drop_nulls=True)``), no
    ``default``, ``anyOf`` for ``oneOf``. A tool whose arguments hold a
    free-form object (keys not known in advance) cannot be strict: it is
    sent with ``strict: false``, and a warning names it."""
    out = []
    for n, d, s in _tools(tools):
        on = strict
        if strict:
            try:
                s = _strict(s, n)
            except ValueError as e:
                warnings.warn(str(e), stacklevel=2)
                on = False
        out.append({"type": "function", "name": model_name(n), "description": d, "parameters": s, "strict": on})
    return out


def _strict(schema: dict, where: str) -> dict:
    """``schema`` as OpenAI's strict mode takes it (``to_openai_responses``)."""
    s = {k: v for k, v in schema.items() if k != "default"}
    if "oneOf" in s:
        s["anyOf"] = s.pop("oneOf")
    if "anyOf" in s:
        s["anyOf"] = [_strict(x, where) for x in s["anyOf"]]
    if isinstance(s.get("items"), dict):
        s["items"] = _strict(s["items"], f"{where}[]")
    props = s.get("properties")
    if s.get("type") == "object" or props is not None:
        if not props and s.get("additionalProperties", True) is not False:
            raise ValueError(f"{where} takes a free-form object (keys not known in advance), which OpenAI's "
                             "strict mode cannot describe; it is sent with strict: false")
        props = props or {}
        required = set(s.get("required", ()))
        s["properties"] = {name: _strict(p, f"{where}.{name}") if name in required
                           else _nullable(_strict(p, f"{where}.{name}")) for name, p in props.items()}
        s["required"] = list(props)
        s["additionalProperties"] = False
    return s


def _nullable(p: dict) -> dict:
    kind = p.get("type")
    if isinstance(kind, str):
        p = {**p, "type": [kind, "null"]}
    elif isinstance(kind, list):
        p = p if "null" in kind else {**p, "type": [*kind, "null"]}
    else:
        return {"anyOf": [p, {"type": "null"}]}
    if "enum" in p and None not in p["enum"]:
        p["enum"] = [*p["enum"], None]
    return p


def to_mcp(tools) -> dict:
    """The result of an MCP ``tools/list`` request: ``{"tools": [{name, description, inputSchema}]}``."""
    return {"tools": [{"name": n, "description": d, "inputSchema": s} for n, d, s in _tools(tools)]}


def calls_from_anthropic(content) -> list:
    """``(id, name, input)`` of each ``tool_use`` block of a Messages API
    response's ``content`` (SDK objects or plain dicts)."""
    out = []
    for block in content:
        get = block.get if isinstance(block, dict) else lambda k, b=block: getattr(b, k, None)
        if get("type") == "tool_use":
            out.append((get("id"), served_name(get("name")), get("input") or {}))
    return out


def calls_from_openai(tool_calls, *, drop_nulls: bool = False) -> list:
    """``(id, name, arguments)`` of OpenAI tool calls: chat ``message.tool_calls``
    (``{id, function: {name, arguments}}``) or Responses ``function_call`` items
    (``{call_id, name, arguments}``); ``arguments`` is parsed from its JSON text.
    ``drop_nulls``: leave out the arguments the model sent as ``null`` (strict
    mode's "left out": ``to_openai_responses(strict=True)``)."""
    out = []
    for call in tool_calls or []:
        c = call if isinstance(call, dict) else _as_dict(call)
        fn = c.get("function") or c
        raw = fn.get("arguments") or "{}"
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError:
            args = {"_unparsed": raw}  # the server answers invalid_arguments: the model sees its mistake
        if drop_nulls and isinstance(args, dict):
            args = {k: v for k, v in args.items() if v is not None}
        out.append((c.get("call_id") or c.get("id"), served_name(fn.get("name")), args))
    return out


def _as_dict(obj) -> dict:
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    return {k: getattr(obj, k) for k in ("id", "call_id", "name", "arguments", "function") if hasattr(obj, k)}
