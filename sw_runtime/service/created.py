"""A batch create's answer, ``{"results": [...]}``, encoded in pieces.

Each slot is the same bytes as the episode's create answer encoded whole
(``Service._created``), made for a fraction of its cost. The episodes
started from one plan (a GRPO group: one item repeated) differ only in their
id and what is made of it, which are a create answer's first and last
fields: what lies between (the policy and the tools, 11 KB on coinpurse) is
encoded once per plan. The last fields (the links and the tools token) are
the first episode's, with its id and token swapped for each next one's: ids
and tokens are plain ASCII, which JSON writes as it is, and nothing else in
those fields is made of them. (``expires_at`` is the same for all: the
episodes of one batch create share their birth, ``Engine.create_many``.) Encoding every answer whole was a third of a
batch create.
"""

from __future__ import annotations

import orjson

_dumps = orjson.dumps

# A create answer's fields made of its id: the first, and the last ones.
FIRST, LAST = "episode_id", ("next", "tools_token", "tools_url", "mcp_url")


class CreatedAnswers:
    """The slots of one batch create, in order: ``episode`` or ``refused`` per
    item, then ``body``. ``created(ep)``: an episode's create answer as a
    dict; ``issue(episode_id)``: its tools token, as that answer holds it."""

    def __init__(self, created, issue):
        self._created = created
        self._issue = issue
        self._middles: dict = {}  # a plan -> the JSON between its episodes' ids and their links
        self._links = None  # (id, token, the last fields' JSON) of the first episode
        self._parts = [b'{"results":[']

    def episode(self, ep, plan) -> None:
        eid = ep.id.encode()
        middle = self._middles.get(plan)
        if middle is None:
            body = self._created(ep)
            assert next(iter(body)) == FIRST and tuple(body)[-len(LAST):] == LAST
            inner = _dumps({k: v for k, v in body.items() if k != FIRST and k not in LAST})
            middle = self._middles[plan] = b'",' + inner[1:-1] + b","
            if self._links is None:
                last = {k: body[k] for k in LAST}
                self._links = (eid, last["tools_token"].encode(), _dumps(last)[1:])
        first, token, links = self._links
        if eid != first:
            links = links.replace(first, eid).replace(token, self._issue(ep.id).encode())
        self._parts += (b',{"episode_id":"' if len(self._parts) > 1 else b'{"episode_id":"', eid, middle, links)

    def refused(self, error) -> None:
        """An item that could not start: ``{"ok": false, "error"}``."""
        if len(self._parts) > 1:
            self._parts.append(b",")
        self._parts.append(_dumps({"ok": False, "error": error.slot()}))

    def body(self) -> bytes:
        self._parts.append(b"]}")
        return b"".join(self._parts)
