"""Colleagues who answer: Erik and Mari reply in the thread of the assistant's
offsite post in #leadership (reference 001).

They answer the assistant's first top-level post in #leadership that
mentions the offsite ("offsite", "off-site" or "off site"), once each, with the replies recorded in the reference;
their replies are ``ts`` + 1 ms and + 2 ms after the post. Other posts (in
other channels, in threads, or about something else) get no answer.
"""

from __future__ import annotations

from ..world import Reaction
from .office import ASSISTANT, ERIK, LEADERSHIP, MARI
from .slack import insert

ERIK_REPLY = "Thu 12 is out for me, I'm at the partner day in Stockholm. Fri 13 works."
MARI_REPLY = "13th works for me too. Book it and tell #general."


def _ts_plus(ts: str, ms: int) -> str:
    sec, _, frac = ts.partition(".")
    total = int(sec) * 1_000_000 + int(frac) + ms * 1000
    return f"{total // 1_000_000}.{total % 1_000_000:06d}"


def _answers(ctx, result) -> bool:
    """Whether this post is one Erik and Mari answer."""
    msg = result["message"]
    text = msg["text"].casefold()
    return (result["channel"] == LEADERSHIP.id and msg["user"] == ASSISTANT.uid and "thread_ts" not in msg
            and any(word in text for word in ("offsite", "off-site", "off site")))


def _reply(rx_id: str, person, text: str, offset_ms: int):
    def fire(ctx, args, result):
        if not _answers(ctx, result):
            return []
        done = ctx.store.scan("slack_messages", {"channelId": LEADERSHIP.id, "user": person.uid, "text": text})
        if done:  # they answer once
            return []
        ts = _ts_plus(result["ts"], offset_ms)
        if ctx.store.get("slack_messages", ts) is not None:
            return []
        insert(ctx, LEADERSHIP.id, person.uid, text, result["ts"], ts)
        return [{"id": rx_id, "user": person.uid, "ts": ts, "text": text}]

    return Reaction(id=rx_id, on="slack.chat.postMessage", fire=fire)


REACTIONS = [
    _reply("rx_erik_date", ERIK, ERIK_REPLY, 1),
    _reply("rx_mari_go", MARI, MARI_REPLY, 2),
]
