"""The HTTP clients: every route of the API, sync and async.

``SandworldClient`` and ``AsyncSandworldClient`` hold the server URLs, the
connections and the retry policy. Envs made from one client share its
connections (see ``transport`` for the defaults and why).

Each route is written once, as a generator that yields the requests it needs
(``Call``, or a list of them to send concurrently) and returns the result;
the sync client runs it with blocking sends, the async one with awaited ones.
So the two clients cannot drift apart.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import Iterable

import httpx

from . import errors
from .compat import check_server_version
from .records import Evaluation, Observation, Record, StepResult
from .routing import Servers
from .transport import (
    DEFAULT_TIMEOUT, AsyncLanes, AsyncTransport, Call, Retry, SyncLanes, SyncTransport, base_headers, lane_options,
    new_key, pool_size, resolve_urls,
)

BATCH_CALLS = 10_000  # calls per /batch request; bigger batches are split, in order
BATCH_EPISODES = 1024  # episodes per /batch/episodes or /batch/submit request (servers take 4,096)


def _root(url: str) -> str:
    return url[: -len("/api/v1")] if url.endswith("/api/v1") else url


def environment_name(environment) -> str:
    """A world's name, or a composite's from its worlds: ``["codehost",
    "offsite-planning"]`` is ``"codehost+offsite-planning"`` (the server
    puts them in name order; docs/API.md, "Composite episodes")."""
    if isinstance(environment, (list, tuple)):
        return "+".join(environment)
    return environment


def create_body(task_id=None, seed=None, signals=False, fault_profile=None, user_simulator=None,
                agent_name=None, **fields) -> dict:
    """A create-episode body with only the fields that were set, so a server
    that refuses unknown fields never sees one it does not need."""
    body = {}
    for name, value in (("task_id", task_id), ("seed", seed), ("fault_profile", fault_profile),
                        ("user_simulator", user_simulator), ("agent_name", agent_name)):
        if value is not None:
            body[name] = value
    if signals:
        body["signals"] = True
    body.update({k: v for k, v in fields.items() if v is not None})
    return body


def _slot(slot, kind):
    """One slot of a batched answer: the record, or the typed error in its place.

    A /batch call that could not run stays data (a ``StepResult`` with ``ok:
    false``), as the server answers it; a create or submit that failed becomes
    its ``ApiError``.
    """
    if not isinstance(slot, dict):
        return errors.ProtocolError(f"a batch slot is not an object: {str(slot)[:200]}")
    if kind is not StepResult and slot.get("ok") is False and isinstance(slot.get("error"), dict):
        err = errors.from_slot(slot["error"])
        if slot.get("episode_id"):
            err.details.setdefault("episode_id", slot["episode_id"])
        return err
    return kind(slot)


def _results(answer, n: int) -> list:
    body = answer.body if isinstance(answer.body, dict) else {}
    results = body.get("results")
    if not isinstance(results, list) or len(results) != n:
        raise errors.ProtocolError(f"expected {n} results in order, got: {str(answer.body)[:200]}")
    return results


def _chunks(items: list, size: int) -> list:
    return [items[i:i + size] for i in range(0, len(items), size)]


class _Routes:
    """Every route as a generator of requests (see the module docstring)."""

    def __init__(self, base_url=None, *, retry: Retry | None = None, spread: str = "round_robin"):
        self.servers = Servers(resolve_urls(base_url), spread)
        self.retry = retry or Retry()
        self._missing: set = set()  # (url, route) the server answered 404 for: older servers

    @property
    def urls(self) -> list:
        """The servers new episodes go to: the shards of the cluster, once known."""
        return self.servers.urls

    def _url(self, episode_id: str, url: str | None) -> str:
        return url or self.servers.for_episode(episode_id)

    def _home(self, body) -> str | None:
        """Where an episode must start: a start from a snapshot on the snapshot's shard."""
        snapshot_id = body.get("snapshot_id") if isinstance(body, dict) else None
        return self.servers.for_episode(snapshot_id) if isinstance(snapshot_id, str) else None

    def _cluster(self):
        """Read ``GET /cluster`` of the URL given, once, before the client's
        first request (see ``routing``). The drivers run it, one at a time."""
        if self.servers.discovered:
            return
        try:
            # One try: a server that is down fails the request that follows
            # with its own retries and its own message.
            answer = yield Call("GET", self.servers.given[0], "/cluster", attempts=1)
        except errors.NotFound:
            self.servers.alone()
        except errors.SandworldError:
            return  # ask again next time
        else:
            self.servers.adopt(answer.body)

    def _relist(self):
        """Read the cluster's listing again, from the URL given or, when that
        one does not answer, from any other shard; answer it (None: no shard answered)."""
        tried = []
        for url in [self.servers.given[0], *self.servers.shards().values()]:
            if url in tried:
                continue
            tried.append(url)
            try:
                answer = yield Call("GET", url, "/cluster", attempts=1)
            except errors.SandworldError:
                continue
            self.servers.adopt(answer.body)
            return answer.body
        return None

    def _rerouted(self, call, error):
        """``call`` found no server at its URL: when that URL is a shard of a
        cluster, read the listing again and answer the call at the shard's URL
        now (a shard whose node was lost comes back elsewhere); raise an error
        naming the shard when the cluster lists it as down, else ``error``."""
        shard = self.servers.shard_at(call.url)
        if shard is None or not isinstance(error, errors.TransportError):
            raise error
        listing = yield from self._relist()
        if listing is None:
            raise error
        if self.servers.state(shard) == "down":
            raise errors.ShardDown(
                f"shard {shard} of the cluster is down (its node is gone and it has not come back; it was at "
                f"{call.url}): its episodes answer again when it does; start new ones on the others",
                shard=shard, maybe_applied=error.maybe_applied, attempts=error.attempts) from error
        url = self.servers.shards().get(shard)
        if url is None or url == call.url or (error.maybe_applied and not call.safe):
            raise error
        return dataclasses.replace(call, url=url)

    def shards(self) -> dict:
        """``{shard: url}`` of the servers this client knows (after its first request)."""
        return self.servers.shards()

    # -- reading -----------------------------------------------------------------------

    def _health(self, url):
        root = _root(url or self.servers.given[0])
        answer = yield Call("GET", root, "/healthz")
        check_server_version(answer.body.get("version"), where=root)  # warns on another API generation
        return Record(answer.body)

    def _environments(self, url):
        answer = yield Call("GET", url or self.servers.given[0], "/environments")
        return [Record(e) for e in answer.body["environments"]]

    def _environment(self, name, url):
        answer = yield Call("GET", url or self.servers.given[0], f"/environments/{environment_name(name)}")
        return Record(answer.body)

    def _episode(self, episode_id, url):
        answer = yield Call("GET", self._url(episode_id, url), f"/episodes/{episode_id}")
        return Record(answer.body)

    def _state(self, episode_id, collections, url):
        params = None
        if collections:
            params = {"collections": collections if isinstance(collections, str) else ",".join(collections)}
        answer = yield Call("GET", self._url(episode_id, url), f"/episodes/{episode_id}/state", params=params)
        return Record(answer.body)

    # -- the lifecycle -----------------------------------------------------------------

    def _create(self, environment, body, url, key):
        given = url
        url = url or self._home(body) or self.servers.pick(key)
        path = f"/environments/{environment_name(environment)}/episodes"
        key = key or new_key()
        try:
            answer = yield Call("POST", url, path, body=body, idempotency_key=key, expect=(200, 201))
        except errors.ServiceUnavailable as e:
            if e.code != "shard_draining" or given is not None:
                raise
            # that shard is draining: read the listing again and start the episode on one that serves
            yield from self._relist()
            url = self._home(body) or self.servers.pick()
            answer = yield Call("POST", url, path, body=body, idempotency_key=key, expect=(200, 201))
        obs = Observation(answer.body)
        self.servers.learn(obs.get("episode_id"), url)
        return url, obs

    def _step(self, episode_id, tool, arguments, url):
        answer = yield Call("POST", self._url(episode_id, url), f"/episodes/{episode_id}/step",
                            body={"tool": tool, "arguments": {} if arguments is None else arguments})
        return StepResult(answer.body)

    def _submit(self, episode_id, output, url, key):
        url = self._url(episode_id, url)
        body = {"output": output} if output is not None else {}
        try:
            answer = yield Call("POST", url, f"/episodes/{episode_id}/submit", body=body,
                                idempotency_key=key or new_key())
        except errors.EpisodeClosed as closed:
            # An earlier try of this very submit went through but its answer was
            # lost (a server without idempotency keys cannot replay it): read the
            # evaluation back. A first-try 409 is the caller's double submit.
            if closed.attempts <= 1:
                raise
            answer = yield Call("GET", url, f"/episodes/{episode_id}")
            if not answer.body.get("evaluation"):
                raise closed
            self.servers.finished(url)
            return Evaluation(answer.body["evaluation"])
        self.servers.finished(url)
        return Evaluation(answer.body)

    def _fork(self, episode_id, n, url, key):
        url = self._url(episode_id, url)
        answer = yield Call("POST", url, f"/episodes/{episode_id}/fork", body={"n": n},
                            idempotency_key=key or new_key(), expect=(200, 201))
        body = answer.body
        items = body.get("episodes", body.get("results")) if isinstance(body, dict) else body
        if not isinstance(items, list) or len(items) != n:
            raise errors.ProtocolError(f"fork of {n} answered: {str(body)[:200]}")
        children = [Observation(item) for item in items]
        for child in children:
            self.servers.learn(child.get("episode_id"), url)
        return url, children

    # -- batches -----------------------------------------------------------------------

    def _batch(self, calls: list, max_calls: int = BATCH_CALLS):
        """``calls``: ``(url, episode_id, tool, arguments)``. One /batch per server
        (split past ``max_calls``), the servers concurrently, results in call order."""
        by_url: dict = {}
        for i, (url, eid, tool, arguments) in enumerate(calls):
            url = self._url(eid, url)
            by_url.setdefault(url, []).append(
                (i, {"episode_id": eid, "tool": tool, "arguments": {} if arguments is None else arguments}))
        plans = {url: _chunks(items, max_calls) for url, items in by_url.items()}
        out: list = [None] * len(calls)
        for r in range(max((len(p) for p in plans.values()), default=0)):
            # Chunks of one server go one after the other, so calls to an
            # episode keep their order; different servers run at once.
            round_ = [(url, p[r]) for url, p in plans.items() if r < len(p)]
            answers = yield [Call("POST", url, "/batch", body={"calls": [c for _, c in chunk]})
                             for url, chunk in round_]
            for (_, chunk), answer in zip(round_, answers):
                if isinstance(answer, BaseException):
                    raise answer
                for (i, _), slot in zip(chunk, _results(answer, len(chunk))):
                    out[i] = _slot(slot, StepResult)
        return out

    def _create_many(self, specs: list):
        """``specs``: dicts with ``environment`` and the create fields. Returns
        ``[(url, Observation | ApiError)]`` in order: one /batch/episodes per
        server, or one create per episode on a server without that route."""
        out: list = [None] * len(specs)
        by_url: dict = {}
        for i, spec in enumerate(specs):
            spec = dict(spec)
            url = spec.pop("url", None) or self._home(spec) or self.servers.pick()
            env = environment_name(spec.pop("environment", None))
            if not env:
                raise errors.SandworldError(f"episode spec {i} names no environment")
            by_url.setdefault(url, []).append((i, env, create_body(**spec)))
        batched = {u: _chunks(items, BATCH_EPISODES) for u, items in by_url.items()
                   if (u, "batch/episodes") not in self._missing}
        singles = [(u, item) for u, items in by_url.items() if (u, "batch/episodes") in self._missing
                   for item in items]
        for r in range(max((len(p) for p in batched.values()), default=0)):
            round_ = [(u, p[r]) for u, p in batched.items() if r < len(p)]
            answers = yield [
                Call("POST", u, "/batch/episodes", idempotency_key=new_key(),
                     body={"episodes": [{"environment": env, **body} for _, env, body in chunk]})
                for u, chunk in round_
            ]
            for (u, chunk), answer in zip(round_, answers):
                if isinstance(answer, errors.NotFound):
                    self._missing.add((u, "batch/episodes"))
                    singles += [(u, item) for item in chunk]
                    continue
                if isinstance(answer, BaseException):
                    raise answer
                for (i, _, _), slot in zip(chunk, _results(answer, len(chunk))):
                    got = _slot(slot, Observation)
                    if isinstance(got, Observation):
                        self.servers.learn(got.get("episode_id"), u)
                    out[i] = (u, got)
        if singles:
            answers = yield [Call("POST", u, f"/environments/{env}/episodes", body=body,
                                  idempotency_key=new_key(), expect=(200, 201)) for u, (_, env, body) in singles]
            for (u, (i, _, _)), answer in zip(singles, answers):
                if isinstance(answer, errors.ApiError):
                    out[i] = (u, answer)
                elif isinstance(answer, BaseException):
                    raise answer
                else:
                    obs = Observation(answer.body)
                    self.servers.learn(obs.get("episode_id"), u)
                    out[i] = (u, obs)
        return out

    def _submit_many(self, items: list):
        """``items``: ``(url, episode_id, output)``. Returns ``Evaluation | ApiError``
        per item, in order."""
        out: list = [None] * len(items)
        by_url: dict = {}
        for i, (url, eid, output) in enumerate(items):
            url = self._url(eid, url)
            body = {"episode_id": eid}
            if output is not None:
                body["output"] = output
            by_url.setdefault(url, []).append((i, body))
        batched = {u: _chunks(v, BATCH_EPISODES) for u, v in by_url.items() if (u, "batch/submit") not in self._missing}
        singles = [(u, item) for u, v in by_url.items() if (u, "batch/submit") in self._missing for item in v]
        for r in range(max((len(p) for p in batched.values()), default=0)):
            round_ = [(u, p[r]) for u, p in batched.items() if r < len(p)]
            answers = yield [Call("POST", u, "/batch/submit", idempotency_key=new_key(),
                                  body={"episodes": [b for _, b in chunk]}) for u, chunk in round_]
            for (u, chunk), answer in zip(round_, answers):
                if isinstance(answer, errors.NotFound):
                    self._missing.add((u, "batch/submit"))
                    singles += [(u, item) for item in chunk]
                    continue
                if isinstance(answer, BaseException):
                    raise answer
                for (i, _), slot in zip(chunk, _results(answer, len(chunk))):
                    out[i] = _slot(slot, Evaluation)
                    if isinstance(out[i], Evaluation):
                        self.servers.finished(u)
        if singles:
            answers = yield [Call("POST", u, f"/episodes/{b['episode_id']}/submit", idempotency_key=new_key(),
                                  body={k: v for k, v in b.items() if k == "output"}) for u, (_, b) in singles]
            for (u, (i, _)), answer in zip(singles, answers):
                if isinstance(answer, errors.ApiError):
                    out[i] = answer
                elif isinstance(answer, BaseException):
                    raise answer
                else:
                    out[i] = Evaluation(answer.body)
                    self.servers.finished(u)
        return out


def _as_calls(calls: Iterable) -> list:
    """Accept ``{"episode_id", "tool", "arguments"}`` dicts or ``(episode_id, tool, arguments)`` tuples."""
    out = []
    for c in calls:
        if isinstance(c, dict):
            out.append((c.get("url"), c["episode_id"], c["tool"], c.get("arguments")))
        else:
            eid, tool, *rest = c
            out.append((None, eid, tool, rest[0] if rest else None))
    return out


def _finish(specs_out: list, return_exceptions: bool) -> list:
    if not return_exceptions:
        for i, item in enumerate(specs_out):
            err = item[1] if isinstance(item, tuple) else item
            if isinstance(err, errors.SandworldError):
                err.index = i
                raise err
    return specs_out


class SandworldClient(_Routes):
    """A blocking client for one or many Sandworld servers.

    ``base_url`` is a URL, a comma-separated list or a list of URLs (default:
    ``$SANDWORLD_API_URL``, else ``http://127.0.0.1:8787/api/v1``). Given one
    URL of a cluster, it finds the other shards (``GET /cluster``), spreads
    new episodes over them (``spread``: ``"round_robin"`` or
    ``"least_loaded"``) and routes each call by the shard in its episode id.
    It is safe to share between threads. Close it, or use it as a context manager.
    """

    def __init__(self, base_url=None, *, timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
                 max_connections: int | None = None, retry: Retry | None = None, api_key: str | None = None,
                 headers: dict | None = None, http_options: dict | None = None, spread: str = "round_robin"):
        super().__init__(base_url, retry=retry, spread=spread)
        options = lane_options(timeout, base_headers(api_key, headers), http_options)
        self.max_connections = pool_size(len(self.urls), max_connections)
        self.lanes = SyncLanes(self.max_connections, lambda: httpx.Client(**options))
        self.transport = SyncTransport(self.lanes, self.retry)
        self._discovery = threading.Lock()

    def _run(self, gen):
        if not self.servers.discovered:
            with self._discovery:
                if not self.servers.discovered:
                    self._drive(self._cluster())
        elif self.servers.stale():
            with self._discovery:
                if self.servers.stale():
                    self._drive(self._relist())
        return self._drive(gen)

    def _send(self, call):
        try:
            return self.transport.send(call)
        except errors.TransportError as e:
            if call.path == "/cluster":  # the listing itself: _relist tries the next shard
                raise
            # a shard that stopped answering may be elsewhere now
            return self.transport.send(self._drive(self._rerouted(call, e)))

    def _drive(self, gen):
        try:
            request = next(gen)
            while True:
                if isinstance(request, list):
                    results = []
                    for call in request:
                        try:
                            results.append(self._send(call))
                        except errors.SandworldError as e:
                            results.append(e)
                    request = gen.send(results)
                    continue
                try:
                    answer = self._send(request)
                except errors.SandworldError as e:
                    request = gen.throw(e)
                else:
                    request = gen.send(answer)
        except StopIteration as stop:
            return stop.value

    def health(self, url: str | None = None) -> Record:
        """``GET /healthz`` of a server: ``{ok, version, core, episodes}``."""
        return self._run(self._health(url))

    def environments(self, url: str | None = None) -> list:
        return self._run(self._environments(url))

    def environment(self, name: str, url: str | None = None) -> Record:
        return self._run(self._environment(name, url))

    def create_episode(self, environment: str, *, url: str | None = None, idempotency_key: str | None = None,
                       **fields) -> Observation:
        """Start an episode (fields as ``SandworldEnv.reset``). On a list of
        servers, new episodes go to each in turn."""
        return self._run(self._create(environment, create_body(**fields), url, idempotency_key))[1]

    def step(self, episode_id: str, tool: str, arguments: dict | None = None, *, url: str | None = None) -> StepResult:
        return self._run(self._step(episode_id, tool, arguments, url))

    def submit(self, episode_id: str, output: str | None = None, *, url: str | None = None,
               idempotency_key: str | None = None) -> Evaluation:
        return self._run(self._submit(episode_id, output, url, idempotency_key))

    def fork(self, episode_id: str, n: int, *, url: str | None = None, idempotency_key: str | None = None) -> list:
        return self._run(self._fork(episode_id, n, url, idempotency_key))[1]

    def state(self, episode_id: str, collections=None, *, url: str | None = None) -> Record:
        return self._run(self._state(episode_id, collections, url))

    def episode(self, episode_id: str, *, url: str | None = None) -> Record:
        """``GET /episodes/{id}``: status, steps, digests, the trace and the evaluation."""
        return self._run(self._episode(episode_id, url))

    def batch(self, calls: Iterable, *, max_calls: int = BATCH_CALLS) -> list:
        """Run many calls in one ``/batch`` per server; ``StepResult``s in call order.

        A call that could not run (closed episode, step limit) is a result with
        ``ok: false`` in its slot, as the server answers it.
        """
        return self._run(self._batch(_as_calls(calls), max_calls))

    def create_episodes(self, specs: Iterable, *, return_exceptions: bool = False) -> list:
        """Start many episodes (dicts with ``environment`` and the create fields),
        through ``/batch/episodes`` where the server has it. With
        ``return_exceptions`` a failed item holds its ``ApiError``; otherwise
        the first one is raised (its ``index`` says which)."""
        got = _finish(self._run(self._create_many(list(specs))), return_exceptions)
        return [obs for _, obs in got]

    def submit_episodes(self, items: Iterable, *, return_exceptions: bool = False) -> list:
        """Submit many: ``episode_id`` strings, ``(episode_id, output)`` pairs or dicts."""
        return _finish(self._run(self._submit_many(_submit_items(items))), return_exceptions)

    def close(self) -> None:
        self.lanes.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class AsyncSandworldClient(_Routes):
    """The asyncio twin of ``SandworldClient`` (same methods, awaited).

    Share one between all the episodes of a process: its pool bounds the
    connections (64 per server by default), and requests beyond that wait
    their turn instead of failing.
    """

    def __init__(self, base_url=None, *, timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
                 max_connections: int | None = None, retry: Retry | None = None, api_key: str | None = None,
                 headers: dict | None = None, http_options: dict | None = None, spread: str = "round_robin"):
        super().__init__(base_url, retry=retry, spread=spread)
        options = lane_options(timeout, base_headers(api_key, headers), http_options)
        self.max_connections = pool_size(len(self.urls), max_connections)
        self.lanes = AsyncLanes(self.max_connections, lambda: httpx.AsyncClient(**options))
        self.transport = AsyncTransport(self.lanes, self.retry)
        self._discovery: asyncio.Lock | None = None  # made in the loop that first needs it

    async def _run(self, gen):
        if not self.servers.discovered or self.servers.stale():
            # Concurrent first requests wait for one GET /cluster, so even
            # the first burst of new episodes is spread over every shard.
            if self._discovery is None:
                self._discovery = asyncio.Lock()
            async with self._discovery:
                if not self.servers.discovered:
                    await self._drive(self._cluster())
                elif self.servers.stale():
                    await self._drive(self._relist())
        return await self._drive(gen)

    async def _send(self, call):
        try:
            return await self.transport.send(call)
        except errors.TransportError as e:
            if call.path == "/cluster":
                raise
            # a shard that stopped answering may be elsewhere now
            return await self.transport.send(await self._drive(self._rerouted(call, e)))

    async def _drive(self, gen):
        async def one(call):
            try:
                return await self._send(call)
            except errors.SandworldError as e:
                return e

        try:
            request = next(gen)
            while True:
                if isinstance(request, list):
                    request = gen.send(list(await asyncio.gather(*(one(c) for c in request))))
                    continue
                try:
                    answer = await self._send(request)
                except errors.SandworldError as e:
                    request = gen.throw(e)
                else:
                    request = gen.send(answer)
        except StopIteration as stop:
            return stop.value

    async def health(self, url: str | None = None) -> Record:
        return await self._run(self._health(url))

    async def environments(self, url: str | None = None) -> list:
        return await self._run(self._environments(url))

    async def environment(self, name: str, url: str | None = None) -> Record:
        return await self._run(self._environment(name, url))

    async def create_episode(self, environment: str, *, url: str | None = None, idempotency_key: str | None = None,
                             **fields) -> Observation:
        return (await self._run(self._create(environment, create_body(**fields), url, idempotency_key)))[1]

    async def step(self, episode_id: str, tool: str, arguments: dict | None = None, *,
                   url: str | None = None) -> StepResult:
        return await self._run(self._step(episode_id, tool, arguments, url))

    async def submit(self, episode_id: str, output: str | None = None, *, url: str | None = None,
                     idempotency_key: str | None = None) -> Evaluation:
        return await self._run(self._submit(episode_id, output, url, idempotency_key))

    async def fork(self, episode_id: str, n: int, *, url: str | None = None,
                   idempotency_key: str | None = None) -> list:
        return (await self._run(self._fork(episode_id, n, url, idempotency_key)))[1]

    async def state(self, episode_id: str, collections=None, *, url: str | None = None) -> Record:
        return await self._run(self._state(episode_id, collections, url))

    async def episode(self, episode_id: str, *, url: str | None = None) -> Record:
        return await self._run(self._episode(episode_id, url))

    async def batch(self, calls: Iterable, *, max_calls: int = BATCH_CALLS) -> list:
        return await self._run(self._batch(_as_calls(calls), max_calls))

    async def create_episodes(self, specs: Iterable, *, return_exceptions: bool = False) -> list:
        got = _finish(await self._run(self._create_many(list(specs))), return_exceptions)
        return [obs for _, obs in got]

    async def submit_episodes(self, items: Iterable, *, return_exceptions: bool = False) -> list:
        return _finish(await self._run(self._submit_many(_submit_items(items))), return_exceptions)

    async def aclose(self) -> None:
        await self.lanes.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.aclose()


def _submit_items(items: Iterable) -> list:
    out = []
    for item in items:
        if isinstance(item, str):
            out.append((None, item, None))
        elif isinstance(item, dict):
            out.append((item.get("url"), item["episode_id"], item.get("output")))
        else:
            eid, *rest = item
            out.append((None, eid, rest[0] if rest else None))
    return out
