"""Simulated users: ``ask_user`` on tasks with details only the user knows.

A task's ``Setup.hidden_facts`` maps a topic to the user's answer. A topic is
a comma-separated list of keywords ("address, deliver, where"); the scripted
user answers every topic whose keyword appears in the question (case-
insensitive), in the task's order, and says it doesn't know otherwise. Same
question, same answer: deterministic, no model involved.

The ``llm`` user asks a chat model (OpenAI-compatible, ``SW_USER_SIM`` at
``SW_USER_SIM_URL``) to play the person. Its replies are cached by
(world, task, seed, the questions asked before, the question), so replaying an
episode's calls gives the same replies, and digests, without the model.
Because the model is slow and remote, the HTTP layer fetches a reply
(``LlmUsers.prepare``) before the engine runs the call; the engine itself only
reads the cache.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from typing import Annotated

import httpx
import msgspec
import orjson

from .. import errors
from ..worlds.tool import json_schema

ASK_USER = "ask_user"
DONT_KNOW = "I'm not sure what you mean. Could you ask me about something more specific?"


class AskArgs(msgspec.Struct, forbid_unknown_fields=True):
    question: Annotated[
        str, msgspec.Meta(min_length=1, max_length=2000, description="The question, in plain words.")
    ]


# Not a world tool: the engine answers it from the episode's simulated user,
# so only its definition is served (beside the world's tools).
ASK_USER_DEFINITION = {
    "name": ASK_USER,
    "description": (
        "Ask the user (the person you act for) a question about something only they know, "
        "such as a preference or a detail the request leaves out. Answers in their words."
    ),
    "parameters": json_schema(AskArgs),
    "class": "safe",  # it changes nothing: it runs in sandbox episodes too
}


def topic_keywords(topic: str) -> list:
    return [k.strip().casefold() for k in topic.split(",") if k.strip()]


def scripted_reply(hidden_facts: dict, question: str) -> str:
    q = question.casefold()
    answers = [answer for topic, answer in hidden_facts.items() if any(k in q for k in topic_keywords(topic))]
    return " ".join(answers) if answers else DONT_KNOW


def _decode(arguments):
    try:
        return msgspec.convert(arguments, AskArgs), None
    except msgspec.ValidationError as e:
        return None, {"code": "invalid_arguments", "message": f"invalid arguments for ask_user: {e}"}


class ScriptedUser:
    kind = "scripted"

    def answer(self, ep, arguments):
        args, error = _decode(arguments)
        if error is not None:
            return False, error
        return True, {"answer": scripted_reply(ep.setup.hidden_facts, args.question)}


class LlmUser:
    """Reads replies that ``LlmUsers.prepare`` fetched; records the questions."""

    kind = "llm"

    def __init__(self, pool: "LlmUsers"):
        self.pool = pool
        self.questions: list = []

    def answer(self, ep, arguments):
        args, error = _decode(arguments)
        if error is not None:
            return False, error
        reply = self.pool.cached(ep, self.questions, args.question)
        if reply is None:
            return False, {"code": "user_unavailable",
                           "message": "the simulated user did not answer; ask again"}
        self.questions.append(args.question)
        return True, {"answer": reply}


class LlmUsers:
    """The model that plays users, and the cache of its replies."""

    def __init__(self, capacity: int = 100_000):
        self.model = os.environ.get("SW_USER_SIM", "")
        self.url = os.environ.get("SW_USER_SIM_URL", "").rstrip("/")
        self.key = os.environ.get("SW_USER_SIM_KEY", "")
        self._cache: OrderedDict = OrderedDict()
        self.capacity = capacity

    @property
    def available(self) -> bool:
        return bool(self.model and self.url)

    def make(self) -> LlmUser:
        if not self.available:
            raise errors.InvalidRequest(
                'user_simulator "llm" needs a model: start the server with SW_USER_SIM (a model id) and '
                "SW_USER_SIM_URL (an OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1)"
            )
        return LlmUser(self)

    @staticmethod
    def _key(ep, questions: list, question: str) -> str:
        parts = [ep.world.name, ep.world.version, ep.task.id, str(ep.seed), *questions, question]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()

    def cached(self, ep, questions: list, question: str):
        return self._cache.get(self._key(ep, questions, question))

    async def prepare(self, ep, arguments, pending: list | None = None) -> None:
        """Fetch the reply to an ask_user call about to run (no-op when cached
        or malformed). ``pending`` holds questions of earlier calls in the same
        batch that have not run yet."""
        args, error = _decode(arguments)
        if error is not None:
            return
        questions = ep.user.questions + (pending or [])
        key = self._key(ep, questions, args.question)
        if key in self._cache:
            return
        transcript = []
        for i, q in enumerate(questions):
            transcript.append({"role": "user", "content": q})
            transcript.append({"role": "assistant", "content": self._cache.get(self._key(ep, questions[:i], q), "")})
        reply = await self._ask(ep, transcript, args.question)
        self._cache[key] = reply
        if len(self._cache) > self.capacity:
            self._cache.popitem(last=False)

    async def _ask(self, ep, transcript: list, question: str) -> str:
        setup = ep.setup
        facts = "\n".join(f"- {topic}: {answer}" for topic, answer in setup.hidden_facts.items())
        system = (
            "You are role-playing a person who asked an assistant for help. Stay in character and answer the "
            "assistant's question briefly, in the first person. Reveal only what is asked, using only the facts "
            "below; if the question is about something not covered, say you don't know.\n\n"
            f"Who you are: {setup.persona or 'the account owner'}\n"
            f"What you asked the assistant: {setup.instruction}\n"
            f"Facts only you know:\n{facts}"
        )
        # From the simulated person's side, the assistant's questions are the
        # "user" turns of this chat and their own answers the "assistant" ones.
        messages = [{"role": "system", "content": system}, *transcript, {"role": "user", "content": question}]
        body = {"model": self.model, "messages": messages, "temperature": 0}
        headers = {"authorization": f"Bearer {self.key}"} if self.key else {}
        try:
            async with httpx.AsyncClient(timeout=60) as client:
                r = await client.post(f"{self.url}/chat/completions", content=orjson.dumps(body),
                                      headers={"content-type": "application/json", **headers})
            r.raise_for_status()
            return str(r.json()["choices"][0]["message"]["content"]).strip()
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as e:
            raise errors.UserSimulatorUnavailable(
                f"the user simulator model did not answer ({type(e).__name__}: {e}); retry the call"
            ) from None
