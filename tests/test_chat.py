"""The one chat client (sw_runtime/chat.py) against a model stand-in on loopback, in both API flavours."""

from __future__ import annotations

import asyncio

import pytest

from sw_runtime.chat import ChatEndpoint, ChatError
from tests.fakes import fake_model


def test_the_flavour_is_chosen_by_setting_or_by_the_host():
    assert ChatEndpoint("http://127.0.0.1:8000/v1").api == "openai"
    assert ChatEndpoint("https://api.anthropic.com").api == "anthropic"
    assert ChatEndpoint("http://127.0.0.1:9/v1", api="anthropic").api == "anthropic"
    with pytest.raises(ValueError):
        ChatEndpoint("http://127.0.0.1:9", api="gemini")


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_complete_and_models_in_both_flavours(api):
    with fake_model(lambda messages: f"{messages[0]['content']} / {messages[-1]['content']}", models=["m-1"]) as m:
        url = m.url if api == "openai" else m.url.removesuffix("/v1")
        chat = ChatEndpoint(url, key="k", api=api)
        text = asyncio.run(chat.complete("m-1", "be brief", [{"role": "user", "content": "hi"}]))
        assert text == "be brief / hi"
        assert asyncio.run(chat.models()) == ["m-1"]
        auth = m.headers[-1].get("authorization") if api == "openai" else m.headers[-1].get("x-api-key")
        assert auth in ("Bearer k", "k")
    with fake_model(None, models=None) as m:  # no listing: cannot tell; a failing model: ChatError
        chat = ChatEndpoint(m.url)
        assert asyncio.run(chat.models()) is None
        with pytest.raises(ChatError):
            asyncio.run(chat.complete("m-1", "s", [{"role": "user", "content": "hi"}]))
