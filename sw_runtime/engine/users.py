"""Simulated users: ``ask_user`` on tasks with details only the user knows.

A task's ``Setup.hidden_facts`` maps a topic to the user's answer. A topic is
a comma-separated list of keywords ("address, deliver, where"); the scripted
user answers every topic whose keyword appears in the question (case-
insensitive), in the task's order, and says it doesn't know otherwise. Same
question, same answer: deterministic, no model involved.

The ``llm`` user asks a chat model to play the person: the model named by
``"user_simulator": {"model": id}``, or by ``SW_USER_SIM`` for ``"llm"``, at
``SW_USER_SIM_URL`` (``SW_USER_SIM_KEY``, ``SW_USER_SIM_API``: an
OpenAI-compatible or an Anthropic endpoint, see ``sw_runtime/chat.py``). At
create the endpoint is asked for its models (``LlmUsers.check``): an
unreachable one is a 503 and a model it does not list a 400, so a run never
starts with a simulator that cannot answer. Replies are cached by (model,
world, task, seed, the questions asked before, the question), so replaying an
episode's calls gives the same replies, and digests, without the model; and
each reply a step uses is kept in the action log beside the step (record
``u``), so a server restarted on its data folder replays it without asking.
Because the model is slow and remote, the HTTP layer fetches a reply
(``LlmUsers.prepare``) before the engine runs the call; the engine itself only
reads the cache.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import OrderedDict
from typing import Annotated

import msgspec

from .. import errors
from ..chat import ChatEndpoint, ChatError
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

    def __init__(self, pool: "LlmUsers", model: str):
        self.pool = pool
        self.model = model
        self.questions: list = []

    def answer(self, ep, arguments):
        args, error = _decode(arguments)
        if error is not None:
            return False, error
        key = self.pool.key(ep, self.questions, args.question)
        reply = self.pool.reply(key)
        if reply is None:
            return False, {"code": "user_unavailable",
                           "message": "the simulated user did not answer; ask again"}
        if self.pool.on_reply is not None:
            self.pool.on_reply(ep.id, key, reply)
        self.questions.append(args.question)
        return True, {"answer": reply}


_CONFIGURE = ("start the server with SW_USER_SIM_URL (an OpenAI-compatible base URL such as "
              "http://127.0.0.1:8000/v1, or an Anthropic one with SW_USER_SIM_API=anthropic)")
_PROBE_TTL = 60.0  # seconds a successful look at the endpoint's models is trusted


class LlmUsers:
    """The models that play users, and the cache of their replies."""

    def __init__(self, capacity: int = 100_000):
        self.model = os.environ.get("SW_USER_SIM", "")  # the model of user_simulator "llm"
        self.endpoint = ChatEndpoint.from_env("SW_USER_SIM")
        self._cache: OrderedDict = OrderedDict()
        self._probed: dict = {}  # model -> monotonic time it was last seen listed
        self.capacity = capacity
        # Called ``(episode id, key, reply)`` with each reply a step uses: the
        # action log keeps it beside the step, so a replay after a restart
        # reads the reply from the log (``remember``) instead of asking again.
        self.on_reply = None

    @property
    def available(self) -> bool:
        return bool(self.model and self.endpoint.configured)

    def chosen_model(self, user_simulator) -> str | None:
        """The model an episode's ``user_simulator`` asks for; None for the
        scripted user. Raises ``InvalidRequest`` for an unknown simulator or
        one this server is not configured to run."""
        if user_simulator in (None, "scripted"):
            return None
        if user_simulator == "llm":
            if not self.available:
                raise errors.InvalidRequest(
                    'user_simulator "llm" needs a model: ' + _CONFIGURE + " and SW_USER_SIM (a model id), "
                    'or ask for one with "user_simulator": {"model": "<id>"}')
            return self.model
        model = getattr(user_simulator, "model", None)
        if model is None:
            raise errors.InvalidRequest(
                f"unknown user_simulator {user_simulator!r}; use \"scripted\" (the default), \"llm\", "
                'or {"model": "<model id>"}')
        if not model.strip():
            raise errors.InvalidRequest("user_simulator.model: name a model")
        if not self.endpoint.configured:
            raise errors.InvalidRequest(f"user_simulator.model {model!r}: this server has no user simulator "
                                        f"endpoint; {_CONFIGURE}")
        return model

    async def check(self, user_simulator) -> None:
        """Make sure the endpoint answers and lists the model (before create):
        503 ``user_simulator_unavailable`` when it cannot be reached, 400 when
        it does not list the model. A successful look is trusted for a minute."""
        model = self.chosen_model(user_simulator)
        if model is None:
            return
        seen = self._probed.get(model)
        if seen is not None and time.monotonic() - seen < _PROBE_TTL:
            return
        try:
            listed = await self.endpoint.models()
        except ChatError as e:
            raise errors.UserSimulatorUnavailable(
                f"the user simulator endpoint {self.endpoint.url} did not answer ({e}); "
                "check SW_USER_SIM_URL and that the model server is up, then retry") from None
        if listed is not None and model not in listed:
            shown = ", ".join(listed[:10]) + (" …" if len(listed) > 10 else "")
            raise errors.InvalidRequest(
                f"user_simulator.model: {self.endpoint.url} has no model {model!r}; it serves {shown or 'none'}")
        self._probed[model] = time.monotonic()

    def make(self, model: str) -> LlmUser:
        return LlmUser(self, model)

    @staticmethod
    def key(ep, questions: list, question: str) -> str:
        """The cache key of the reply to ``question`` after ``questions``."""
        parts = [ep.user.model, ep.world.name, ep.world.version, ep.task.id, str(ep.seed), *questions, question]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()

    def reply(self, key: str):
        return self._cache.get(key)

    def remember(self, key: str, reply: str) -> None:
        """Keep a reply under its key (a replay restoring what the log holds)."""
        self._cache[key] = reply
        self._cache.move_to_end(key)
        if len(self._cache) > self.capacity:
            self._cache.popitem(last=False)

    async def prepare(self, ep, arguments, pending: list | None = None) -> None:
        """Fetch the reply to an ask_user call about to run (no-op when cached
        or malformed). ``pending`` holds questions of earlier calls in the same
        batch that have not run yet."""
        args, error = _decode(arguments)
        if error is not None:
            return
        questions = ep.user.questions + (pending or [])
        key = self.key(ep, questions, args.question)
        if key in self._cache:
            return
        transcript = []
        for i, q in enumerate(questions):
            transcript.append({"role": "user", "content": q})
            transcript.append({"role": "assistant", "content": self._cache.get(self.key(ep, questions[:i], q), "")})
        self.remember(key, await self._ask(ep, transcript, args.question))

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
        messages = [*transcript, {"role": "user", "content": question}]
        try:
            return await self.endpoint.complete(ep.user.model, system, messages)
        except ChatError as e:
            raise errors.UserSimulatorUnavailable(
                f"the user simulator model did not answer ({e}); retry the call"
            ) from None
