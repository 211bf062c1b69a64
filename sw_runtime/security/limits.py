"""Rate limits: a token bucket per API key and one per client IP.

A bucket holds up to ``burst`` tokens and refills at ``rate`` tokens a
second. A request costs one token; a ``/batch`` request costs one per call
(the batch doors charge the rest once they know how many calls there are).
A charge of ``n`` passes when the bucket holds ``min(n, burst)`` tokens: a
batch larger than the whole bucket still runs once the bucket is full, and
leaves it in debt, so the next requests wait for the refill. That keeps the
average at ``rate`` calls a second whatever the batch size.

When a bucket refuses, the answer is 429 ``rate_limited`` with ``retry-after``
(whole seconds until the charge would pass) and the IETF draft's
``RateLimit-Limit``, ``RateLimit-Remaining`` and ``RateLimit-Reset`` headers;
every other answer carries those three headers too, for the tighter bucket.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass

from .. import errors

# Buckets remembered per kind; the least recently used go first (a full
# bucket forgotten and made again is the same bucket).
MAX_BUCKETS = 100_000


@dataclass(frozen=True, slots=True)
class Rule:
    """``rate`` tokens a second, up to ``burst`` (0 rate: no limit)."""

    rate: float
    burst: int

    @property
    def on(self) -> bool:
        return self.rate > 0

    def describe(self) -> dict:
        return {"rate_per_second": self.rate, "burst": self.burst}


class Bucket:
    __slots__ = ("rule", "tokens", "stamp", "kind")

    def __init__(self, rule: Rule, now: float, kind: str):
        self.rule, self.tokens, self.stamp, self.kind = rule, float(rule.burst), now, kind

    def refill(self, now: float) -> None:
        rule = self.rule
        self.tokens = min(rule.burst, self.tokens + (now - self.stamp) * rule.rate)
        self.stamp = now

    def wait(self, n: float) -> float:
        """Seconds until a charge of ``n`` would pass (0 if it passes now)."""
        need = min(n, self.rule.burst) - self.tokens
        return max(0.0, need / self.rule.rate)

    def status(self) -> dict:
        remaining = max(0, math.floor(self.tokens))
        reset = math.ceil((self.rule.burst - self.tokens) / self.rule.rate) if self.tokens < self.rule.burst else 0
        return {"limit": self.rule.burst, "remaining": remaining, "reset": reset}


class Buckets:
    """The buckets of one kind (keys, or IPs), by name."""

    def __init__(self, rule: Rule, kind: str):
        self.rule, self.kind = rule, kind
        self._items: OrderedDict = OrderedDict()

    def get(self, name: str, now: float) -> Bucket:
        b = self._items.get(name)
        if b is None:
            b = self._items[name] = Bucket(self.rule, now, self.kind)
            if len(self._items) > MAX_BUCKETS:
                self._items.popitem(last=False)
        else:
            self._items.move_to_end(name)
            b.refill(now)
        return b


class Limiter:
    """Both kinds of bucket of one server."""

    def __init__(self, per_key: Rule, per_ip: Rule, clock=time.monotonic):
        self.keys = Buckets(per_key, "key")
        self.ips = Buckets(per_ip, "ip")
        self.clock = clock

    @property
    def on(self) -> bool:
        return self.keys.rule.on or self.ips.rule.on

    def buckets(self, ip: str | None, key_id: str | None) -> list:
        now = self.clock()
        out = []
        if self.ips.rule.on and ip is not None:
            out.append(self.ips.get(ip, now))
        if self.keys.rule.on and key_id is not None:
            out.append(self.keys.get(key_id, now))
        return out

    @staticmethod
    def charge(buckets: list, n: float) -> None:
        """Take ``n`` tokens from every bucket, or none and raise ``rate_limited``."""
        if n <= 0 or not buckets:
            return
        waits = [b.wait(n) for b in buckets]
        worst = max(waits)
        if worst > 0:
            b = buckets[waits.index(worst)]
            what = "calls" if n > 1 else "a request"
            raise errors.RateLimited(
                f"rate limit of this {'API key' if b.kind == 'key' else 'client IP'} "
                f"reached ({b.rule.rate:g} calls/s, bursts of {b.rule.burst}); {what} can run in "
                f"{worst:.2f} s: wait for retry-after",
                retry_after=max(1, math.ceil(worst)),
            )
        for b in buckets:
            b.tokens -= n


def headers(buckets: list) -> list:
    """The ``RateLimit-*`` headers of the tighter bucket, as ASGI header pairs."""
    tight = min(buckets, key=lambda b: b.tokens / b.rule.burst)
    s = tight.status()
    return [
        (b"ratelimit-limit", str(s["limit"]).encode()),
        (b"ratelimit-remaining", str(s["remaining"]).encode()),
        (b"ratelimit-reset", str(s["reset"]).encode()),
    ]


def call_counter(request):
    """What a batch door hands the service as ``on_count``: charge the calls
    of the batch once it is decoded (None when limits are off).

    The gate already charged the request itself; this takes the other
    ``n - 1`` tokens, or raises ``rate_limited``.
    """
    buckets = request.scope.get("sw.buckets")
    if not buckets:
        return None

    def charge(n: int) -> None:
        if n > 1:
            Limiter.charge(buckets, n - 1)

    return charge
