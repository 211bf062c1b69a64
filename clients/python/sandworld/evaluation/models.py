"""Model agents for ``sandworld eval --agent anthropic:MODEL`` and ``--agent openai:MODEL``.

Each runs the usual tool loop with the provider's official SDK: the episode's
policy as the system prompt, its instruction as the first user turn, its own
tool list (``ask_user`` included when the task has one) in the provider's
shape; every tool call the model makes is one ``env.step``, whose answer goes
back as the tool's result; the loop ends when the model answers without a
tool call (its text is the output) or the episode's steps run out.

Endpoints: ``base_url`` (``sandworld eval --base-url``), else the SDKs' own
``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``; keys from ``OPENAI_API_KEY`` /
``ANTHROPIC_API_KEY``. An OpenAI-compatible server that needs no key (vLLM,
SGLang, Ollama) gets a placeholder one. The SDKs are imported only here,
from the ``models`` extra (``pip install 'sandworld[models]'``).
"""

from __future__ import annotations

import json
import os

from .. import errors
from ..tools import calls_from_anthropic, calls_from_openai, to_anthropic, to_openai_chat

PROVIDERS = ("anthropic", "openai")
MAX_TOKENS = 4096


def parse(spec: str) -> tuple | None:
    """``(provider, model)`` for ``anthropic:MODEL`` / ``openai:MODEL``, else None."""
    provider, sep, model = spec.partition(":")
    if sep and provider in PROVIDERS:
        if not model:
            raise errors.SandworldError(f"agent {spec!r}: name a model after {provider}:", code="bad_agent")
        return provider, model
    return None


def _sdk(name: str):
    try:
        return __import__(name)
    except ImportError:
        raise errors.SandworldError(
            f"--agent {name}:… needs the {name} package: pip install '{name}' "
            "(or pip install 'sandworld[models]')", code="bad_agent") from None


def _result_text(result) -> str:
    """What the model reads back from one step: the result, or the refusal."""
    body = {"ok": True, "result": result.get("result")} if result.ok else {"ok": False, "error": result.error}
    return json.dumps(body, ensure_ascii=False)


class OpenAIAgent:
    """The Chat Completions tool loop (OpenAI, or any OpenAI-compatible server)."""

    def __init__(self, model: str, base_url: str | None = None, max_turns: int = 60):
        openai = _sdk("openai")
        key = os.environ.get("OPENAI_API_KEY")
        if not key and (base_url or os.environ.get("OPENAI_BASE_URL")):
            key = "not-needed"  # a local server that takes no key
        self.model, self.max_turns = model, max_turns
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key=key)

    async def __call__(self, env, obs):
        tools = to_openai_chat(obs["tools"])
        messages = [{"role": "system", "content": obs.get("policy") or ""},
                    {"role": "user", "content": obs.get("instruction") or ""}]
        answer, steps = "", 0
        for _ in range(self.max_turns):
            response = await self.client.chat.completions.create(model=self.model, messages=messages, tools=tools,
                                                                 max_tokens=MAX_TOKENS)
            message = response.choices[0].message
            answer = message.content or answer
            turn = {"role": "assistant", "content": message.content or ""}
            if message.tool_calls:
                turn["tool_calls"] = [tc.model_dump() for tc in message.tool_calls]
            messages.append(turn)
            calls = calls_from_openai(message.tool_calls or [])
            if not calls:
                break
            for call_id, name, arguments in calls:
                if steps >= int(obs.get("step_limit") or 200):
                    return answer
                result = await env.step(name, arguments)
                steps += 1
                messages.append({"role": "tool", "tool_call_id": call_id, "content": _result_text(result)})
        return answer


class AnthropicAgent:
    """The Messages API tool loop."""

    def __init__(self, model: str, base_url: str | None = None, max_turns: int = 60):
        anthropic = _sdk("anthropic")
        self.model, self.max_turns = model, max_turns
        self.client = anthropic.AsyncAnthropic(base_url=base_url) if base_url else anthropic.AsyncAnthropic()

    async def __call__(self, env, obs):
        tools = to_anthropic(obs["tools"])
        messages = [{"role": "user", "content": obs.get("instruction") or ""}]
        answer, steps = "", 0
        for _ in range(self.max_turns):
            response = await self.client.messages.create(model=self.model, max_tokens=MAX_TOKENS,
                                                         system=obs.get("policy") or "", tools=tools,
                                                         messages=messages)
            messages.append({"role": "assistant", "content": response.content})
            answer = "".join(b.text for b in response.content if b.type == "text") or answer
            calls = calls_from_anthropic(response.content)
            if response.stop_reason != "tool_use" or not calls:
                break
            results = []
            for call_id, name, arguments in calls:
                if steps >= int(obs.get("step_limit") or 200):
                    return answer
                result = await env.step(name, arguments)
                steps += 1
                results.append({"type": "tool_result", "tool_use_id": call_id, "content": _result_text(result),
                                "is_error": not result.ok})
            messages.append({"role": "user", "content": results})
        return answer


def make(spec: str, base_url: str | None = None):
    """The model agent ``spec`` names, or None when it names none."""
    parsed = parse(spec)
    if parsed is None:
        return None
    provider, model = parsed
    return (OpenAIAgent if provider == "openai" else AnthropicAgent)(model, base_url)
