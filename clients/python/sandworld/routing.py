"""Which server a request goes to: shards, spreading and routing.

A client given one URL reads that server's ``GET /api/v1/cluster`` once, on
its first request that needs it, and learns every shard's URL. New episodes
are then spread over the shards, and every call on an episode goes to the
shard named in its id (``ep_<shard>_<boot>_<random>``, see the server's
``engine/ids.py``). A server that is alone answers a cluster of one, itself,
and nothing changes: every request goes to the URL given.

A cluster on Ray changes: a shard that lost its node comes back elsewhere
(a new URL), a shard is added, another drains (``draining``: no new
episodes) or is down. Such a listing names each shard's ``state``; new
episodes go only to shards that serve, and the client reads the listing
again when a shard it calls stops answering (``relist``) and every
``REFRESH`` seconds before it starts an episode, so it follows the cluster
without a restart.

A client given several URLs (servers started by hand, each with its own
``--shard``) spreads over them and learns which shard each one is from the
episodes it creates there.

Spreading: ``"round_robin"`` (the default) gives each shard the next new
episode in turn, each client starting its turn at a shard of its own (a
random point per process, then the next for each client); ``"least_loaded"`` gives it to the shard holding the fewest
of this client's open episodes (created and not yet submitted), which evens
out groups that finish at different speeds.
"""

from __future__ import annotations

import itertools
import random
import re
import time
import zlib

from . import errors

SPREADS = ("round_robin", "least_loaded")
REFRESH = 30.0  # seconds after which a client reads a cluster's listing again before it starts an episode

_SHARD = re.compile(r"^(?:ep|snap)_(\d{1,9})_")


def shard_of(some_id: str) -> int | None:
    """The shard number in an episode or snapshot id, or ``None`` for an id of another form."""
    m = _SHARD.match(some_id) if isinstance(some_id, str) else None
    return int(m.group(1)) if m else None


# Where each new client's turn starts: a random point per process, then the
# next one for each client the process makes. One env (so one client) per
# rollout worker is the common pattern; were every client to start at shard
# 0, every worker's first episode (and a one-episode worker's every episode)
# would land on shard 0. Within a process clients alternate exactly; across
# processes the random base spreads them.
_FIRST_TURNS = itertools.count(random.SystemRandom().randrange(1 << 20))


def keyed_index(key: str, n: int) -> int:
    """Which of ``n`` servers an idempotency key belongs to: the same in every process."""
    return zlib.crc32(key.encode()) % n


class Servers:
    """The servers of one client, and where each request goes."""

    def __init__(self, urls: list, spread: str = "round_robin"):
        if spread not in SPREADS:
            raise errors.SandworldError(f"spread must be one of {', '.join(SPREADS)}, not {spread!r}")
        self.given = list(urls)
        self.urls = list(urls)  # where new episodes go: the shards once known
        self.spread = spread
        self._turn = next(_FIRST_TURNS)  # see _FIRST_TURNS
        self._shards: dict = {}  # shard -> url, or None when two servers share a shard number
        self._open: dict = {u: 0 for u in self.urls}  # this client's open episodes per server
        # One URL may be any shard of a cluster: ask it (see ``adopt``).
        self.discovered = len(self.given) > 1
        self.listed_at = 0.0  # when the cluster's listing was last read (time.monotonic)
        self._listed: dict = {}  # shard -> the URL the listing gave
        self._states: dict = {}  # shard -> its state as listed (serving, draining, down)

    # -- the cluster -----------------------------------------------------------------

    def adopt(self, listing) -> None:
        """Take a ``GET /cluster`` answer from the (one) given URL: that server
        keeps the URL the caller gave; the others are reached at theirs."""
        self.discovered = True
        self.listed_at = time.monotonic()
        if not isinstance(listing, dict) or not isinstance(listing.get("shards"), list):
            return
        own = listing.get("shard")
        shards, states, listed = {}, {}, {}
        for item in listing["shards"]:
            if isinstance(item, dict) and isinstance(item.get("shard"), int) and isinstance(item.get("url"), str):
                shard, url = item["shard"], item["url"].rstrip("/")
                listed[shard] = url
                # The shard that answered keeps the URL the caller gave, until the listing moves it.
                first = shard == own and self._listed.get(shard, url) == url and not self._shards
                kept = self._shards.get(shard) if self._listed.get(shard) == url else None
                shards[shard] = self.given[0] if first else (kept or url)
                states[shard] = item.get("state", "serving")
        if len(shards) <= 1 and not self._shards:
            return  # alone: every request goes to the URL given, as it always did
        self._shards, self._states, self._listed = shards, states, listed
        serving = [shards[s] for s in sorted(shards) if states[s] == "serving"]
        self.urls = serving or [shards[s] for s in sorted(shards)]
        self._open = {u: self._open.get(u, 0) for u in self.urls}

    def stale(self) -> bool:
        """Whether a cluster's listing is old enough to read again (never for
        servers given by hand, nor for a lone server)."""
        return len(self.given) == 1 and bool(self._shards) and time.monotonic() - self.listed_at > REFRESH

    def shard_at(self, url: str) -> int | None:
        """The shard this client reaches at ``url``, if it knows one."""
        return next((s for s, u in self._shards.items() if u == url), None)

    def state(self, shard: int) -> str | None:
        return self._states.get(shard)

    def alone(self) -> None:
        """The server has no ``/cluster`` (an older one): it is the only server."""
        self.discovered = True

    def shards(self) -> dict:
        """``{shard: url}`` as known so far (a lone server: ``{0: the URL given}``)."""
        return {k: v for k, v in self._shards.items() if v is not None} or {0: self.given[0]}

    # -- new episodes ----------------------------------------------------------------

    def pick(self, key: str | None = None) -> str:
        """The server for a new episode. One created with an idempotency key of
        the caller's goes where that key points, so a retry with the key reaches
        the server that holds the first answer."""
        if key is not None:
            return self.urls[keyed_index(key, len(self.urls))]
        if self.spread == "least_loaded":
            # Ties go in turn, so equal servers still take episodes alternately.
            start = self._turn
            self._turn += 1
            n = len(self.urls)
            return min((self.urls[(start + i) % n] for i in range(n)), key=lambda u: self._open.get(u, 0))
        url = self.urls[self._turn % len(self.urls)]
        self._turn += 1
        return url

    def learn(self, episode_id: str, url: str) -> None:
        """An episode was created (or forked) on ``url``."""
        self._open[url] = self._open.get(url, 0) + 1
        shard = shard_of(episode_id)
        if shard is not None and len(self.given) > 1:
            known = self._shards.get(shard, url)
            self._shards[shard] = url if known == url else None

    def finished(self, url: str) -> None:
        """An episode on ``url`` was submitted."""
        if self._open.get(url, 0) > 0:
            self._open[url] -= 1

    # -- calls -----------------------------------------------------------------------

    def for_episode(self, episode_id: str) -> str:
        """The server that holds ``episode_id``."""
        if len(self.urls) == 1:
            return self.urls[0]
        shard = shard_of(episode_id)
        url = self._shards.get(shard) if shard is not None else None
        if url is None:
            if len(self.given) == 1:
                why = (f"its id names no shard of this cluster (shards {', '.join(map(str, sorted(self._shards)))})"
                       if shard is not None else "its id carries no shard number")
                raise errors.SandworldError(f"cannot tell which server holds {episode_id}: {why}",
                                            code="unknown_server")
            raise errors.SandworldError(
                f"cannot tell which of {len(self.urls)} servers holds {episode_id}: call it through the env "
                "that created it, or give each server its own --shard number",
                code="unknown_server",
            )
        return url
