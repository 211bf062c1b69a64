"""The rubric judge: a chat model that answers yes or no.

Configured by ``SW_JUDGE_URL`` (a base URL such as http://127.0.0.1:8000/v1)
and ``SW_JUDGE_MODEL`` (``SW_JUDGE_KEY`` if the endpoint wants a key,
``SW_JUDGE_API=anthropic`` for the Messages API: see ``sw_runtime/chat.py``).
Without them a rubric check is undecided. When the judge is configured but
fails, the verifier is unavailable: submit answers 503 and the episode stays
open for a retry.
"""

from __future__ import annotations

import os

import orjson

from .. import errors
from ..chat import ChatEndpoint, ChatError
from . import checks as C

_MAX_TRACE = 60  # calls shown to the judge; the rest are summarised


class Judge:
    def __init__(self):
        self.endpoint = ChatEndpoint.from_env("SW_JUDGE")
        self.url = self.endpoint.url
        self.model = os.environ.get("SW_JUDGE_MODEL", "")

    @property
    def configured(self) -> bool:
        return bool(self.endpoint.configured and self.model)

    async def decide(self, ep, output: str) -> dict | None:
        """Verdicts ``{check_id: (passed, detail)}`` for the episode's rubric
        checks, or None when there is nothing to ask (no rubric, no judge)."""
        rubrics = [c for c in ep.checks if isinstance(c, C.Rubric)]
        if not rubrics or not self.configured:
            return None
        verdicts = {}
        for check in rubrics:
            verdicts[check.id] = await self._ask(ep, check, output)
        return verdicts

    def _prompt(self, ep, check, output: str) -> str:
        calls = []
        for e in ep.trace.entries(0, _MAX_TRACE):
            if "restored" in e or e.get("undone"):
                continue  # a restore took these back: not the episode's history
            outcome = "ok" if e["ok"] else f"error {e['error'].get('code')}"
            calls.append(f"{e['seq']}. {e['tool']} {orjson.dumps(e['arguments']).decode()[:300]} -> {outcome}")
        if len(ep.trace) > _MAX_TRACE:
            calls.append(f"... and {len(ep.trace) - _MAX_TRACE} more calls")
        diff = orjson.dumps(ep.store.diff(ep.start)).decode()
        task = ep.setup.instruction if ep.setup else "(free play)"
        user = (
            f"Task given to the assistant:\n{task}\n\n"
            f"Tool calls it made:\n" + ("\n".join(calls) or "(none)") + "\n\n"
            f"What changed in the app's state (ids per collection): {diff}\n\n"
            f"The assistant's final answer:\n{output or '(empty)'}\n\n"
            f"Question: {check.text}\n"
            "Answer 'yes' or 'no' on the first line, then one sentence saying why."
        )
        return user

    async def _ask(self, ep, check, output: str):
        try:
            text = await self.endpoint.complete(
                self.model, "You grade an AI assistant's work strictly and briefly.",
                [{"role": "user", "content": self._prompt(ep, check, output)}], timeout=120)
        except ChatError as e:
            raise errors.VerifierUnavailable(
                f"the rubric judge at {self.url} failed ({str(e).split(':')[0]}); "
                f"episode {ep.id} stays open: retry the submit"
            ) from None
        first = text.split(None, 1)[0].strip(".,:;!*").casefold() if text else ""
        reason = text.split("\n", 1)[1].strip() if "\n" in text else text
        if first == "yes":
            return True, f"judge {self.model}: yes. {reason}"[:500]
        if first == "no":
            return False, f"judge {self.model}: no. {reason}"[:500]
        return None, f"undecided: the judge answered neither yes nor no ({text[:100]!r})"
