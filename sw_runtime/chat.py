"""The one chat-model client of the server: the rubric judge and the llm user both use it.

An endpoint is a base URL, an optional key and an API flavour:

- ``openai`` (the default): any OpenAI-compatible server (vLLM, SGLang,
  Ollama, OpenAI itself). The base URL ends in ``/v1``; we POST
  ``{base}/chat/completions`` with a bearer key and list ``{base}/models``.
- ``anthropic``: the Messages API. The base URL is the API's root
  (``https://api.anthropic.com``, with or without ``/v1``); we POST
  ``…/v1/messages`` with ``x-api-key`` and list ``…/v1/models``.

``ChatEndpoint.from_env("SW_JUDGE")`` reads ``SW_JUDGE_URL``, ``SW_JUDGE_KEY``
and ``SW_JUDGE_API``; an unset API is ``anthropic`` when the URL's host is
anthropic's, else ``openai``. Failures raise ``ChatError``; each caller turns
it into its own API error (503 ``verifier_unavailable``, 503
``user_simulator_unavailable``).
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import httpx
import orjson

APIS = ("openai", "anthropic")
ANTHROPIC_VERSION = "2023-06-01"


class ChatError(Exception):
    """The model could not be reached or answered something unreadable."""


class ChatEndpoint:
    def __init__(self, url: str, key: str = "", api: str = ""):
        self.url = url.rstrip("/")
        self.key = key
        host = urlsplit(self.url).hostname or ""
        self.api = api or ("anthropic" if host.endswith("anthropic.com") else "openai")
        if self.api not in APIS:
            raise ValueError(f"unknown chat API {self.api!r}; use one of {', '.join(APIS)}")

    @classmethod
    def from_env(cls, prefix: str) -> "ChatEndpoint":
        return cls(os.environ.get(f"{prefix}_URL", ""), os.environ.get(f"{prefix}_KEY", ""),
                   os.environ.get(f"{prefix}_API", "").strip().lower())

    @property
    def configured(self) -> bool:
        return bool(self.url)

    def _root(self) -> str:
        """The Anthropic API root with ``/v1``."""
        return self.url if self.url.endswith("/v1") else f"{self.url}/v1"

    def _headers(self) -> dict:
        h = {"content-type": "application/json"}
        if self.api == "anthropic":
            h["anthropic-version"] = ANTHROPIC_VERSION
            if self.key:
                h["x-api-key"] = self.key
        elif self.key:
            h["authorization"] = f"Bearer {self.key}"
        return h

    async def complete(self, model: str, system: str, messages: list, *, max_tokens: int = 512,
                       timeout: float = 60) -> str:
        """The model's text answer to ``messages`` (``{role, content}``, user first) after ``system``."""
        if self.api == "anthropic":
            url = f"{self._root()}/messages"
            body = {"model": model, "system": system, "messages": messages, "max_tokens": max_tokens,
                    "temperature": 0}
        else:
            url = f"{self.url}/chat/completions"
            body = {"model": model, "messages": [{"role": "system", "content": system}, *messages],
                    "temperature": 0, "max_tokens": max_tokens}
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                r = await client.post(url, content=orjson.dumps(body), headers=self._headers())
            r.raise_for_status()
            data = r.json()
            if self.api == "anthropic":
                return "".join(b.get("text", "") for b in data["content"] if b.get("type") == "text").strip()
            return str(data["choices"][0]["message"]["content"]).strip()
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as e:
            raise ChatError(f"{type(e).__name__}: {e}") from None

    async def models(self, *, timeout: float = 5) -> list | None:
        """The model ids the endpoint lists, or None when it has no listing
        (404/405/501: we cannot tell). Raises ``ChatError`` when it is unreachable."""
        url = f"{self._root()}/models" if self.api == "anthropic" else f"{self.url}/models"
        try:
            async with httpx.AsyncClient(timeout=timeout) as client:
                r = await client.get(url, headers=self._headers())
            if r.status_code in (404, 405, 501):
                return None
            r.raise_for_status()
            return [str(m["id"]) for m in r.json()["data"]]
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as e:
            raise ChatError(f"{type(e).__name__}: {e}") from None
