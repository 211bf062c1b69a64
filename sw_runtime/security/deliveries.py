"""Webhook deliveries: a bounded queue, a background sender, retries, a log.

``emit`` never waits: it puts one message per matching subscription on a
bounded queue and returns, so a slow or dead receiver never slows stepping.
When the queue is full the message is dropped and the log says so.

Each message is signed per the Standard Webhooks spec with the
``standardwebhooks`` library: headers ``webhook-id`` (the same on every
attempt, so the receiver can drop duplicates), ``webhook-timestamp`` and
``webhook-signature`` (``v1,`` + base64 HMAC-SHA256 of ``id.timestamp.body``).
While a rotated secret overlaps (``Subscriptions.rotate``) a message carries
one signature per secret, space-separated, as the spec allows: a receiver
holding either verifies it. ``webhook-attempt`` numbers the attempts of one
message from 1 (the id stays the same). ``ping`` sends one
``webhook.ping`` to one subscription, whatever its events, to test it.
A 2xx answer is a delivery; anything else (another status, a timeout, a
refused connection) is retried after ``backoff[i]`` seconds, then given up.
Redirects are not followed: a receiver must answer at the registered URL.

The delivery log is in memory, per server, the last ``keep`` messages of
each subscription, readable through ``GET /webhooks/{id}/deliveries``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict, deque
from datetime import datetime, timezone
from itertools import count

import httpx
import orjson
from standardwebhooks import Webhook

from ..pagination import PageRequest, paginate

log = logging.getLogger("sandworld.webhooks")

BACKOFF = (1.0, 5.0, 30.0, 120.0, 600.0)  # seconds before retries 1..5
PING = "webhook.ping"  # the test event ``ping`` sends
TIMEOUT = 5.0  # seconds a receiver has to answer
# Attempts in flight at once: a burst of events (a 4,096-episode batch create)
# must not turn into thousands of simultaneous connections that starve the
# event loop the episodes are stepped on.
SENDING = 16


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Delivery:
    """One message to one subscription, and what became of it."""

    __slots__ = ("seq", "id", "sub", "event", "body", "status", "attempts", "created_at")

    def __init__(self, seq: int, sub, event: str, body: bytes):
        self.seq, self.sub, self.event, self.body = seq, sub, event, body
        self.id = "msg_" + secrets.token_hex(12)
        self.status = "pending"  # pending | delivered | failed | dropped
        self.attempts: list = []
        self.created_at = time.time()

    def describe(self) -> dict:
        return {
            "delivery_id": self.id,
            "webhook_id": self.sub.id,
            "event": self.event,
            "status": self.status,
            "attempts": self.attempts,
            "created_at": _iso(self.created_at),
        }


class Dispatcher:
    """Sends the webhooks of one server from a background task."""

    def __init__(self, subscriptions, *, queue_size: int = 10_000, keep: int = 1000,
                 backoff: tuple = BACKOFF, timeout: float = TIMEOUT, concurrency: int = SENDING):
        self.subscriptions = subscriptions
        self.concurrency = concurrency
        self._sending: asyncio.Semaphore | None = None
        self.backoff = backoff
        self.timeout = timeout
        self.keep = keep
        self._queue: asyncio.Queue | None = None
        self._queue_size = queue_size
        self._log: dict = {}  # webhook id -> OrderedDict(seq -> Delivery)
        self._seq = count(1)
        self._tasks: set = set()
        self._worker = None
        self._client: httpx.AsyncClient | None = None
        self.dropped = 0

    async def start(self) -> None:
        self._queue = asyncio.Queue(self._queue_size)
        self._sending = asyncio.Semaphore(self.concurrency)
        self._client = httpx.AsyncClient(timeout=self.timeout, follow_redirects=False, trust_env=False)
        self._worker = asyncio.create_task(self._work())

    async def stop(self) -> None:
        for t in [self._worker, *self._tasks]:
            if t is not None:
                t.cancel()
        for t in [self._worker, *self._tasks]:
            if t is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
        if self._client is not None:
            await self._client.aclose()

    def emit(self, event: str, project: str | None, data: dict) -> None:
        """Queue ``event`` for every subscription that hears it. Never blocks."""
        subs = self.subscriptions.matching(event, project)
        if not subs:
            return
        body = orjson.dumps({"type": event, "timestamp": _iso(time.time()), "data": data})
        for sub in subs:
            d = Delivery(next(self._seq), sub, event, body)
            self._remember(d)
            if self._queue is None:
                d.status = "dropped"
                continue
            try:
                self._queue.put_nowait(d)
            except asyncio.QueueFull:
                d.status = "dropped"
                self.dropped += 1
                log.warning("webhook queue full: dropped %s for %s", event, sub.url)

    def ping(self, sub) -> dict:
        """Queue a ``webhook.ping`` for ``sub`` alone; answer its delivery record."""
        body = orjson.dumps({"type": PING, "timestamp": _iso(time.time()),
                             "data": {"webhook_id": sub.id, "url": sub.url}})
        d = Delivery(next(self._seq), sub, PING, body)
        self._remember(d)
        if self._queue is None:
            d.status = "dropped"
        else:
            try:
                self._queue.put_nowait(d)
            except asyncio.QueueFull:
                d.status = "dropped"
                self.dropped += 1
        return d.describe()

    def hears(self, event: str, project: str | None) -> bool:
        """Whether ``emit`` would queue anything for ``event`` about ``project``'s episodes now."""
        return bool(self.subscriptions.matching(event, project))

    def page(self, webhook_id: str, page: PageRequest) -> dict:
        items = self._log.get(webhook_id, {}).values()
        return paginate(list(items), key=lambda d: (d.seq,), page=page, render=Delivery.describe)

    def pending(self) -> int:
        return (self._queue.qsize() if self._queue is not None else 0) + len(self._tasks)

    def _remember(self, d: Delivery) -> None:
        kept = self._log.setdefault(d.sub.id, OrderedDict())
        kept[d.seq] = d
        while len(kept) > self.keep:
            kept.popitem(last=False)

    async def _work(self) -> None:
        while True:
            d = await self._queue.get()
            # Each message is sent in its own task, so one slow receiver
            # holds up neither the queue nor the other receivers (up to
            # SENDING attempts at once; a message waiting out its backoff
            # holds no slot).
            task = asyncio.create_task(self._deliver(d))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _deliver(self, d: Delivery) -> None:
        for attempt in range(len(self.backoff) + 1):
            if attempt:
                await asyncio.sleep(self.backoff[attempt - 1])
            async with self._sending:
                ok = await self._attempt(d, attempt + 1)
            if ok:
                d.status = "delivered"
                return
        d.status = "failed"

    async def _attempt(self, d: Delivery, number: int = 1) -> bool:
        now = datetime.now(timezone.utc)
        started = time.perf_counter()
        entry = {"attempt": number, "at": _iso(now.timestamp()), "status_code": None, "error": None}
        try:
            sub = self.subscriptions.current(d.sub)  # a rotation since it was queued signs with the new secret
            text = d.body.decode()
            signature = " ".join(Webhook(s).sign(d.id, now, text) for s in sub.secrets(now.timestamp()))
            r = await self._client.post(sub.url, content=d.body, headers={
                "content-type": "application/json",
                "user-agent": "sandworld-webhooks",
                "webhook-id": d.id,
                "webhook-timestamp": str(int(now.timestamp())),
                "webhook-signature": signature,
                "webhook-attempt": str(number),
            })
            entry["status_code"] = r.status_code
            ok = 200 <= r.status_code < 300
            if not ok:
                entry["error"] = f"the receiver answered HTTP {r.status_code}"
        except httpx.HTTPError as e:
            entry["error"] = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            ok = False
        entry["duration_ms"] = round((time.perf_counter() - started) * 1000, 1)
        d.attempts.append(entry)
        return ok
