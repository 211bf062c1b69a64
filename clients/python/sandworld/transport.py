"""HTTP under the clients: servers, timeouts, connections, retries.

Every env made from one ``SandworldClient`` shares its connections, so 10,000
concurrent episodes share one bounded set of keep-alive connections instead
of opening 10,000.

The defaults, and why (docs/CLIENT.md repeats them):

- **Connections**: at most 64 per server URL (``max_connections`` sets the
  total), opened as needed and kept alive. Each is a "lane": a one-connection
  ``httpx`` client lent to one request at a time. Requests beyond that wait
  for a free lane in an O(1) queue; waiting there is not a failure, so there
  is no pool timeout. (httpx's own pool does per-request bookkeeping that
  grows with connections and waiters: at 64 connections and 2,000 waiting
  requests it cost several times the request itself.) One server process is
  one event loop: more connections add queueing on its side, not throughput;
  batch through ``/batch`` to go faster.
- **Connect** 10 s, **read** 120 s (a 100,000-call ``/batch`` or a submit whose
  rubric asks a judge model can take a while), **write** 60 s.
- **Keep-alive expiry** 5 s: idle connections are dropped well before the
  server's own 30 s keep-alive, so a request never races the server closing it.

Retries (``Retry``): a connection that could not be made, a 429 (after its
``retry-after``) and a 503 are retried with exponential backoff and full
jitter: the server did not run those requests. So is a 409
``idempotency_in_progress``: an earlier try of the same keyed request is still
running, and the retry will get its answer replayed. Failures after the request may
have reached the server (a read timeout, a dropped connection, a 502/504) are
retried only for requests that are safe to replay: reads, and requests that
carry an ``Idempotency-Key`` (create, fork, submit, batch create and submit).
A step is never replayed blindly: it may already have moved money.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import random
import threading
import time
import uuid
from dataclasses import dataclass, field

import httpx
import orjson

from . import errors

DEFAULT_URL = "http://127.0.0.1:8787/api/v1"
URL_ENV = "SANDWORLD_API_URL"
KEY_ENV = "SANDWORLD_API_KEY"
CONNECTIONS_PER_SERVER = 64
# A server that is there accepts in milliseconds: 2 s to connect, so a wrong
# URL is said at once, not after a long silent wait. Lanes queue: no pool wait.
DEFAULT_TIMEOUT = httpx.Timeout(connect=2.0, read=120.0, write=60.0, pool=None)
API_SUFFIX = "/api/v1"

try:
    from importlib.metadata import version as _version

    __version__ = _version("sandworld")  # the client distribution
except Exception:  # running from a source tree that was never installed
    __version__ = "0.0.0"

USER_AGENT = f"sandworld-python/{__version__}"


@dataclass(frozen=True)
class Retry:
    """How requests are retried. ``attempts`` counts the first try."""

    attempts: int = 8
    backoff: float = 0.25  # the first wait's ceiling, seconds; doubles each retry
    max_backoff: float = 8.0
    max_retry_after: float = 60.0  # a longer retry-after is not waited for: the error is raised
    # Refused connections to a server never reached yet are retried this long
    # (a server starting), then "no server at URL" is raised. A server that
    # answered before and now refuses (restarting) gets every attempt.
    connect_wait: float = 1.5

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 1)."""
        ceiling = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        if retry_after is not None:
            # Honour the server, plus a little jitter so a crowd of clients
            # told the same retry-after does not come back in one burst.
            return retry_after + random.uniform(0, min(ceiling, 1.0))
        return random.uniform(0, ceiling)


NO_RETRY = Retry(attempts=1)


def resolve_urls(base_url=None) -> list:
    """The server URLs: the argument (a URL, a comma-separated list or a
    list), else ``$SANDWORLD_API_URL`` (same forms), else the local default."""
    if base_url is None:
        base_url = os.environ.get(URL_ENV) or DEFAULT_URL
    if isinstance(base_url, str):
        base_url = base_url.split(",")
    urls = [str(u).strip().rstrip("/") for u in base_url if str(u).strip()]
    if not urls:
        raise errors.SandworldError("no server URL: pass base_url or set SANDWORLD_API_URL")
    for u in urls:
        if not u.startswith(("http://", "https://")):
            raise errors.SandworldError(f"server URL {u!r} must start with http:// or https://")
    return urls


def new_key() -> str:
    return uuid.uuid4().hex


@dataclass
class Call:
    """One request to send: what the clients build, and what the transports run."""

    method: str
    url: str  # the server's API base URL
    path: str  # under the API base, starting with /
    body: object = None  # encoded as JSON when not None
    params: dict | None = None
    idempotency_key: str | None = None
    replay_safe: bool = False  # may be resent after a failure that happened mid-request
    expect: tuple = (200, 201)
    headers: dict = field(default_factory=dict)
    attempts: int | None = None  # tries at most, when fewer than the client's Retry allows

    @property
    def safe(self) -> bool:
        return self.replay_safe or self.method == "GET" or self.idempotency_key is not None


@dataclass
class Answer:
    status: int
    body: object
    headers: dict
    attempts: int

    @property
    def replayed(self) -> bool:
        """The server replayed a stored answer for this idempotency key."""
        return self.headers.get("idempotent-replayed", "").lower() == "true"


def pool_size(n_servers: int, max_connections: int | None) -> int:
    return max(1, max_connections or CONNECTIONS_PER_SERVER * max(1, n_servers))


def base_headers(api_key: str | None, extra: dict | None) -> dict:
    headers = {"user-agent": USER_AGENT, "accept": "application/json"}
    key = api_key if api_key is not None else os.environ.get(KEY_ENV)
    if key:
        headers["authorization"] = f"Bearer {key}"
    headers.update(extra or {})
    return headers


def _request_parts(call: Call) -> dict:
    headers = dict(call.headers)
    content = None
    if call.body is not None:
        content = orjson.dumps(call.body)
        headers["content-type"] = "application/json"
    if call.idempotency_key is not None:
        headers["idempotency-key"] = call.idempotency_key
    return {"method": call.method, "url": call.url + call.path, "params": call.params,
            "content": content, "headers": headers}


# Failures before the request left (nothing ran on the server) and after (maybe it did).
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
_RETRY_ALWAYS = (429, 503)
_RETRY_IF_SAFE = (502, 504)


def _decode(response: httpx.Response):
    if not response.content:
        return None
    try:
        return orjson.loads(response.content)
    except orjson.JSONDecodeError:
        raise errors.ProtocolError(
            f"{response.request.method} {response.request.url} answered HTTP {response.status_code} that is not "
            f"JSON: {response.text[:200]!r}"
        ) from None


class _Plan:
    """The retry decision shared by the sync and async transports."""

    def __init__(self, call: Call, retry: Retry, reached: set | None = None):
        self.call = call
        self.retry = retry
        # Servers this client has had an answer from: one that stops answering
        # is restarting (retried as long as the Retry allows); one never
        # reached is probably not there at all (said within connect_wait).
        self.reached = reached if reached is not None else set()
        self.attempt = 0
        self.began = time.monotonic()
        self.limit = min(retry.attempts, call.attempts or retry.attempts)

    def on_response(self, response: httpx.Response):
        """An ``Answer`` to return, or a delay in seconds before trying again."""
        status = response.status_code
        headers = {k.lower(): v for k, v in response.headers.items()}
        if status in self.call.expect:
            return Answer(status, _decode(response), headers, self.attempt)
        try:
            body = _decode(response)
        except errors.ProtocolError:  # a proxy's HTML error page, say
            body = response.text
        err = errors.from_envelope(status, body, headers, self.attempt)
        if status == 404 and self.call.path != "/healthz" and not self.call.url.rstrip("/").endswith(API_SUFFIX):
            err.message += (f" (the server URL {self.call.url} does not end in {API_SUFFIX}: "
                            f"try {self.call.url.rstrip('/')}{API_SUFFIX})")
            err.args = (err.message,)
        retryable = (status in _RETRY_ALWAYS or (status in _RETRY_IF_SAFE and self.call.safe)
                     # the first try of this keyed request is still running: its answer will be replayed
                     or err.code == "idempotency_in_progress")
        if err.code == "shard_draining":  # it will not take one later either: the client starts it elsewhere
            retryable = False
        if retryable and self.attempt < self.limit:
            retry_after = _retry_after(headers) if status in (429, 503) else None
            if retry_after is None or retry_after <= self.retry.max_retry_after:
                return self.retry.delay(self.attempt, retry_after)
        raise err

    def on_error(self, exc: httpx.HTTPError) -> float:
        """A delay before trying again, or raise the transport error."""
        sent = not isinstance(exc, _NOT_SENT)
        target = f"{self.call.method} {self.call.url}{self.call.path}"
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)) and _server(self.call.url) not in self.reached:
            delay = self.retry.delay(self.attempt)
            if self.attempt < self.limit and time.monotonic() - self.began + delay <= self.retry.connect_wait:
                return delay
            raise errors.TransportError(
                f"no server at {self.call.url}; start one with ./scripts/serve (or `sandworld serve`), "
                f"or point SANDWORLD_API_URL at a running one ({type(exc).__name__} after {self.attempt} "
                "attempt(s))", maybe_applied=False, attempts=self.attempt) from exc
        if (not sent or self.call.safe) and self.attempt < self.limit:
            return self.retry.delay(self.attempt)
        cls = errors.RequestTimeout if isinstance(exc, httpx.TimeoutException) else errors.TransportError
        what = "timed out" if cls is errors.RequestTimeout else f"failed ({type(exc).__name__}: {exc})"
        hint = "; it may or may not have been applied" if sent else ""
        raise cls(f"{target} {what} after {self.attempt} attempt(s){hint}",
                  maybe_applied=sent, attempts=self.attempt) from exc


def _server(url: str) -> str:
    """A server's root URL, whether a call went to its API or to /healthz."""
    return url.rstrip("/").removesuffix(API_SUFFIX)


def _retry_after(headers: dict) -> float | None:
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        return None


class SyncLanes:
    """The connections of a blocking client: ``size`` single-connection
    ``httpx.Client``s, each lent to one request at a time (safe across threads).

    One pool of ``size`` connections would do the same, but httpcore's pool
    does bookkeeping per request that grows with the number of connections
    and waiting requests; lanes cost O(1) per request at any size. The most
    recently used lane is lent first, so under light load the others idle out.
    """

    def __init__(self, size: int, make):
        self.size, self.make = size, make
        self.clients: list = []
        self._free: queue.LifoQueue = queue.LifoQueue()
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def lane(self):
        try:
            client = self._free.get_nowait()
        except queue.Empty:
            with self._lock:
                client = self.make() if len(self.clients) < self.size else None
                if client is not None:
                    self.clients.append(client)
            if client is None:
                client = self._free.get()
        try:
            yield client
        finally:
            self._free.put(client)

    def close(self) -> None:
        for client in self.clients:
            client.close()


class AsyncLanes:
    """The asyncio twin of ``SyncLanes``: requests beyond ``size`` wait for a
    free lane in an O(1) queue (10,000 waiters in httpcore's own pool queue
    made every request crawl)."""

    def __init__(self, size: int, make):
        self.size, self.make = size, make
        self.clients: list = []
        self._free: asyncio.LifoQueue | None = None

    @contextlib.asynccontextmanager
    async def lane(self):
        if self._free is None:
            self._free = asyncio.LifoQueue()
        if not self._free.empty():
            client = self._free.get_nowait()
        elif len(self.clients) < self.size:
            client = self.make()
            self.clients.append(client)
        else:
            client = await self._free.get()
        try:
            yield client
        finally:
            self._free.put_nowait(client)

    async def close(self) -> None:
        for client in self.clients:
            await client.aclose()


def lane_options(timeout, headers: dict, http_options: dict | None) -> dict:
    """What each lane's httpx client is made with: one keep-alive connection."""
    return {"timeout": timeout, "headers": headers,
            "limits": httpx.Limits(max_connections=1, max_keepalive_connections=1, keepalive_expiry=5.0),
            **(http_options or {})}


class SyncTransport:
    def __init__(self, lanes: SyncLanes, retry: Retry):
        self.lanes = lanes
        self.reached: set = set()  # server URLs that have answered (see _Plan)
        self.retry = retry

    def send(self, call: Call) -> Answer:
        plan = _Plan(call, self.retry, self.reached)
        parts = _request_parts(call)
        while True:
            plan.attempt += 1
            try:
                with self.lanes.lane() as http:
                    response = http.request(**parts)
            except httpx.HTTPError as exc:
                if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
                    raise errors.TransportError(f"bad URL {call.url}{call.path}: {exc}") from exc
                time.sleep(plan.on_error(exc))
                continue
            self.reached.add(_server(call.url))
            outcome = plan.on_response(response)
            if isinstance(outcome, Answer):
                return outcome
            time.sleep(outcome)


class AsyncTransport:
    def __init__(self, lanes: AsyncLanes, retry: Retry):
        self.lanes = lanes
        self.reached: set = set()  # server URLs that have answered (see _Plan)
        self.retry = retry

    async def send(self, call: Call) -> Answer:
        plan = _Plan(call, self.retry, self.reached)
        parts = _request_parts(call)
        while True:
            plan.attempt += 1
            try:
                async with self.lanes.lane() as http:  # never held while backing off
                    response = await http.request(**parts)
            except httpx.HTTPError as exc:
                if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
                    raise errors.TransportError(f"bad URL {call.url}{call.path}: {exc}") from exc
                await asyncio.sleep(plan.on_error(exc))
                continue
            self.reached.add(_server(call.url))
            outcome = plan.on_response(response)
            if isinstance(outcome, Answer):
                return outcome
            await asyncio.sleep(outcome)
