"""``sandworld.ray``: a cluster's shards called as Ray actors, without HTTP.

For a trainer that already runs on Ray, beside a cluster started with
``sandworld serve --replicas N`` (or ``sw_runtime.cluster.Cluster.start``)::

    from sandworld.ray import RayShards, join

    join("auto")                             # the Ray that runs the shards (or a trainer's own ray.init)
    shards = RayShards()                     # finds the shard actors by name
    obs = shards.create("coinpurse", {"task_id": "cp-01", "seed": 3})
    out = shards.batch({"calls": [{"episode_id": obs["episode_id"], "tool": "get_balance", "arguments": {}}]})
    ev = shards.submit(obs["episode_id"])

Each method takes and returns what the HTTP route does: JSON bytes in, JSON
bytes out; or a dict (or list of calls) in, a dict out. A batch is split by
the shard in each episode id, the parts run on their shards at once, and the
results come back in call order. New episodes go to the shards in turn. A
batch for a shard on this machine travels in a block of shared memory the
handle lends for the call (``sandworld.ray_shared``), not in Ray's reply, and
is sent over the shard's local socket (``sandworld.ray_socket``), not as a Ray
task; Ray carries what that socket cannot (a shard restarting, or elsewhere).

Errors are the client's typed errors (``sandworld.errors``): an error answer
raises its ``ApiError``, a slot of a batch stays data. A shard that died is
restarted by Ray; a call made meanwhile is retried with backoff (the
client's ``Retry``) and, if the shard does not come back in time, raises
``ShardUnavailable`` (a ``ServiceUnavailable``, 503). Episodes the dead shard
held are gone: their ids answer ``not_found`` saying the server restarted.

Ray is imported when a ``RayShards`` is made, so ``sandworld`` installs without it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import weakref

import msgspec
import orjson

from . import errors, ray_shared, ray_socket
from .client import environment_name
from .routing import keyed_index, shard_of
from .transport import Retry

NAMESPACE = "sandworld"  # where the server's launcher names its actors
CALL_TIMEOUT = 300.0  # seconds one call may take, restarts included; never a hang
# Actor calls in flight to one shard through shared memory. Batches that come while
# that many are out wait, and go together in the next call (Ray's cost of a call,
# about 0.5 ms on each side, is then paid once for all of them).
LANES = 2


class ShardUnavailable(errors.ServiceUnavailable):
    """A shard's actor is dead or restarting and did not answer in time; retry later."""

    code = "shard_unavailable"


class _Lane:
    """One shard's shared-memory batches: calls in flight, batches waiting for the next;
    and its local socket (``sandworld.ray_socket``): ``UNKNOWN`` until asked, ``NONE``
    when the shard has none this process can reach, else ``(path, token)``, with the
    connections free for a call and whether one was ever made."""

    __slots__ = ("busy", "waiting", "endpoint", "lines", "reached", "pid")

    def __init__(self, endpoint):
        self.busy, self.waiting = 0, []
        self.endpoint, self.lines, self.reached, self.pid = endpoint, [], False, os.getpid()

    def drop_lines(self) -> None:
        while self.lines:
            self.lines.pop().close()


UNKNOWN, NONE = "unknown", "none"


class _Part:
    """One batch in a shared-memory call: its block, its request, where its answer goes."""

    __slots__ = ("block", "size", "body", "answer", "answered")

    def __init__(self, block, size, body, answer):
        self.block, self.size, self.body, self.answer, self.answered = block, size, body, answer, False


class _Results(msgspec.Struct):
    results: list[msgspec.Raw]


# gc=False: a thousand of these per batch, never in a cycle; the collector need not track them.
class _Id(msgspec.Struct, gc=False):
    episode_id: str | None = None


class _Ids(msgspec.Struct, gc=False):
    calls: list[_Id]


class _RawCalls(msgspec.Struct):
    calls: list[msgspec.Raw]


_read_results = msgspec.json.Decoder(_Results).decode
_read_ids = msgspec.json.Decoder(_Ids).decode
_read_raw = msgspec.json.Decoder(_RawCalls).decode


def join(address: str = "auto", **init_options) -> None:
    """Connect this process to the Ray that runs the shards (``auto``, the
    ``host:port`` that ``sandworld serve --replicas`` prints, or ``ray://…``).

    An embedded Ray started by ``sandworld serve`` admits only processes that
    hold its token (``~/.ray/auth_token`` on that machine), so token
    authentication is switched on here when that file exists, unless
    ``RAY_AUTH_MODE`` says otherwise. One served on loopback listens on
    loopback only, and is reached so (``one_machine``).
    """
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report leaves this machine
    ray = _ray()
    if ray.is_initialized():
        return
    if "RAY_AUTH_MODE" not in os.environ:
        _use_token_if_any()
    if _on_loopback(address):
        one_machine()
    init_options.setdefault("logging_level", "WARNING")
    ray.init(address=address, **init_options)


# Ray's switch for a cluster of one machine, read when ``ray`` is imported.
# On (Linux's default), Ray swaps a loopback address for the machine's
# network address, both for its node and for an address it is asked to join.
ONE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def one_machine() -> None:
    """Switch this process's Ray to one machine: a Ray started here takes
    loopback as its node's address, and its servers then listen on loopback
    only; an address on loopback is joined as given. (Children started after
    this inherit the switch.)"""
    import sys

    os.environ[ONE_MACHINE] = "0"
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None:  # Ray is imported: it has read the switch already
        constants.ENABLE_RAY_CLUSTER = False


def _on_loopback(address: str) -> bool:
    """Whether ``address`` (``auto``: the Ray this machine last started) is on loopback."""
    if address == "auto":
        try:  # where ``ray.init(address="auto")`` looks (kept private by Ray, so guarded)
            from ray._private.services import get_ray_address_from_environment

            address = get_ray_address_from_environment("auto", None)
        except Exception:
            return False
    if not isinstance(address, str) or "://" in address:  # ray://: Ray's client server, reached as given
        return False
    return address.rpartition(":")[0].strip("[]") in _LOOPBACK


def _use_token_if_any() -> None:
    # Ray reads its auth mode when it is imported; this is the switch its own
    # ``ray.init()`` uses when a token file exists (kept private by Ray, so guarded).
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # another Ray version: RAY_AUTH_MODE=token does the same
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def _ray():
    try:
        import ray
    except ImportError:
        raise errors.SandworldError("sandworld.ray needs Ray: pip install 'sandworld[ray]' (or: pip install ray)",
                                    code="ray_missing") from None
    return ray


class RayShards:
    """The shard actors of one cluster, called directly.

    ``name``: the cluster's name (``sandworld`` unless it was started with
    another). ``retry``: how calls to a restarting shard are retried.
    ``local_socket``: send batches to a shard on this machine over its local
    socket (``sandworld.ray_socket``) rather than as actor calls; False: every
    batch an actor call. ``paths`` counts the batches each way went.
    """

    def __init__(self, name: str = "sandworld", *, retry: Retry | None = None, timeout: float = CALL_TIMEOUT,
                 local_socket: bool = True):
        ray = _ray()
        if not ray.is_initialized():
            raise errors.SandworldError(
                "Ray is not initialised in this process: call ray.init(address=...) first, "
                "to the Ray that runs the shards", code="ray_not_initialized")
        self.name, self.retry, self.timeout = name, retry or Retry(), timeout
        self.actors = []
        while True:
            try:
                self.actors.append(ray.get_actor(f"{name}-shard-{len(self.actors)}", namespace=NAMESPACE))
            except ValueError:
                break
        if not self.actors:
            raise errors.SandworldError(
                f"no shards of a cluster named {name!r} on this Ray (actors {name}-shard-0… in namespace "
                f"{NAMESPACE!r}): start one with `sandworld serve --replicas N`", code="no_cluster")
        self._turn = 0
        # Shared-memory blocks for batches to shards on this machine; the shards found on another.
        self._blocks = ray_shared.Blocks() if ray_shared.available() else None
        if self._blocks is not None:
            weakref.finalize(self, self._blocks.close)
        self._inline: set = set()
        local = local_socket and self._blocks is not None and ray_socket.available()
        self._lanes = [_Lane(UNKNOWN if local and hasattr(actor, "local_socket") else NONE) for actor in self.actors]
        if self._blocks is not None:
            weakref.finalize(self, _close_lines, self._lanes)
        # Batches answered by each path: "socket" (a shard's local socket), "ray" (an
        # actor call with the batch in a shared block), "inline" (in the actor call).
        self.paths = {"socket": 0, "ray": 0, "inline": 0}

    def __len__(self) -> int:
        return len(self.actors)

    # -- the operations ------------------------------------------------------------------

    def batch(self, body, *, shard: int | None = None):
        """``POST /batch``: ``{"calls": [...]}`` (bytes, or a dict, or the list of
        calls); the answer ``{"results": [...]}`` in call order (bytes for bytes).

        ``shard``: the shard every call's episode lives on, when the caller knows
        it (a batch it split itself, as a client posts to one shard's URL): the
        batch goes there as it is, unread, and that shard answers a call for
        another shard's episode ``not_found``, as that shard's ``/batch`` does."""
        return self._wait(self.batch_async(body, shard=shard))

    async def batch_async(self, body, *, shard: int | None = None, copy: bool = True):
        """``batch``, awaited (from an async Ray actor or any asyncio code).

        ``copy=False`` (bytes in): the answer is a ``memoryview`` of where it lies
        (the shared block the shard wrote it into, or Ray's reply) instead of
        ``bytes`` of its own. Read or decode it before this coroutine's caller next
        awaits: the block is lent to the next batch from then on."""
        raw = isinstance(body, bytes | bytearray | memoryview)
        if shard is not None:
            if not isinstance(shard, int) or not 0 <= shard < len(self.actors):
                raise errors.SandworldError(f"no shard {shard!r} in this cluster ({len(self.actors)} shards)",
                                            code="no_shard")
            data = bytes(body) if raw else orjson.dumps({"calls": body["calls"] if isinstance(body, dict)
                                                         else list(body)})
            return await self._batch(shard, data, (bytes if copy else _view) if raw else orjson.loads)
        if raw:
            body = bytes(body)
            # Only the ids are read (msgspec skips the rest); calls stay the caller's bytes.
            try:
                ids = [c.episode_id for c in _read_ids(body).calls]
            except (msgspec.DecodeError, RecursionError):
                ids = None  # not a batch this handle can split: the shard's own decoder says why
            calls = None
        else:
            calls = body["calls"] if isinstance(body, dict) else list(body)
            ids = [c.get("episode_id") if isinstance(c, dict) else None for c in calls]
        by_shard = self._split(ids or ())
        if len(by_shard) <= 1:  # the whole batch lives on one shard: its bytes go as they are
            shard = next(iter(by_shard), 0)
            return await self._batch(shard, body if raw else orjson.dumps({"calls": calls}),
                                     (bytes if copy else _view) if raw else orjson.loads)
        if raw:
            calls = _read_raw(body).calls
            encode = b",".join
            parts = [(shard, idx, b'{"calls":[' + encode(bytes(calls[i]) for i in idx) + b"]}")
                     for shard, idx in by_shard.items()]
        else:
            parts = [(shard, idx, orjson.dumps({"calls": [calls[i] for i in idx]})) for shard, idx in by_shard.items()]
        answers = await asyncio.gather(*(self._batch(shard, part, _results) for shard, _, part in parts))
        slots: list = [None] * len(ids)
        for (_, idx, _), answer in zip(parts, answers):
            for i, slot in zip(idx, answer):
                slots[i] = slot
        out = b'{"results":[' + b",".join(slots) + b"]}"
        return out if raw else orjson.loads(out)

    def create(self, environment: str, body=None, *, shard: int | None = None, key: str | None = None):
        """``POST /environments/{environment}/episodes`` on the next shard (or
        ``shard``); ``environment`` may list two or three worlds (a composite
        episode). ``key`` is an idempotency key, as the HTTP header: a retry
        with the same key and body answers the first creation again."""
        return self._wait(self.create_async(environment, body, shard=shard, key=key))

    async def create_async(self, environment: str, body=None, *, shard: int | None = None, key: str | None = None):
        snapshot_id = body.get("snapshot_id") if isinstance(body, dict) else None
        if shard is None and isinstance(snapshot_id, str):
            shard = self._shard(snapshot_id)  # a snapshot lives on one shard: start there
        elif shard is None and key is not None:
            shard = keyed_index(key, len(self.actors))  # a retry with the key finds its first answer
        elif shard is None:
            shard = self._turn % len(self.actors)
            self._turn += 1
        raw, data = _encode(body)
        out = await self._call(shard, "create", environment_name(environment), data, key)
        return bytes(out) if raw else orjson.loads(out)

    def submit(self, episode_id: str, body=None, *, key: str | None = None):
        """``POST /episodes/{episode_id}/submit`` (``body``: ``{"output": ...}`` or nothing)."""
        return self._wait(self.submit_async(episode_id, body, key=key))

    async def submit_async(self, episode_id: str, body=None, *, key: str | None = None):
        raw, data = _encode(body)
        out = await self._call(self._shard(episode_id), "submit", episode_id, data, key)
        return bytes(out) if raw else orjson.loads(out)

    # -- calling an actor ----------------------------------------------------------------

    def _split(self, ids) -> dict:
        """``{shard: [call index, ...]}``; a call whose id names no shard of this cluster goes
        to shard 0, which answers it as HTTP would. Ids are grouped by their ``ep_<shard>_``
        head first, so the shard number is parsed once per head, not once per call (this
        runs in the trainer's process for every batch); a batch whose ids all share
        the first one's head (a client's batch for one shard) is seen as such at once."""
        one = _one_head(ids)
        if one is not None:
            shard = shard_of(one)
            return {shard if shard is not None and shard < len(self.actors) else 0: list(range(len(ids)))}
        heads: dict = {}
        for i, eid in enumerate(ids):
            head = eid[:eid.find("_", eid.find("_") + 1) + 1] if isinstance(eid, str) else None
            heads.setdefault(head, []).append(i)
        n = len(self.actors)
        if len(heads) == 1:
            head, idx = heads.popitem()
            shard = shard_of(head) if head else None
            return {shard if shard is not None and shard < n else 0: idx}
        by_shard: dict = {}
        for head, idx in heads.items():
            shard = shard_of(head) if head else None
            by_shard.setdefault(shard if shard is not None and shard < n else 0, []).extend(idx)
        for idx in by_shard.values():
            idx.sort()  # call order within each shard's part
        return by_shard

    def _shard(self, episode_id: str) -> int:
        shard = shard_of(episode_id)
        if shard is None or shard >= len(self.actors):
            raise errors.NotFound(f"no episode {episode_id!r}: its id names no shard of this cluster "
                                  f"({len(self.actors)} shards)", status=404)
        return shard

    async def _batch(self, shard: int, body: bytes, use):
        """``use(answer)`` of one shard's batch, the answer read where it lies: in a
        block of shared memory lent for the call when the shard is on this machine
        (``sandworld.ray_shared``), else in Ray's reply."""
        blocks = self._blocks
        if blocks is None or shard in self._inline or not hasattr(self.actors[shard], "batch_shared_many"):
            return use(await self._inline_call(shard, body))
        block = blocks.lend()
        size = block.put(body)
        if size is None:  # larger than a block
            blocks.take_back(block)
            return use(await self._inline_call(shard, body))
        part = _Part(block, size, body, asyncio.get_running_loop().create_future())
        lane = self._lanes[shard]
        lane.waiting.append(part)
        self._next(shard)
        try:
            out = await part.answer
            if out is None:  # the shard cannot reach this process's memory: another machine
                self._inline.add(shard)
                return use(await self._inline_call(shard, body))
            return use(out)
        finally:
            if part.answered:
                blocks.take_back(block)
            else:  # no answer came (timed out, cancelled, the shard lost): it may yet write there
                lane.waiting = [p for p in lane.waiting if p is not part]
                block.close()

    def _next(self, shard: int) -> None:
        """Send the batches waiting for ``shard``, all in one actor call, unless ``LANES``
        calls to it are in flight already (then the next one to return sends them)."""
        lane = self._lanes[shard]
        if lane.waiting and lane.busy < LANES:
            parts, lane.waiting = lane.waiting, []
            lane.busy += 1
            asyncio.get_running_loop().create_task(self._send(shard, parts))

    async def _inline_call(self, shard: int, body: bytes):
        out = await self._call(shard, "batch", body)
        self.paths["inline"] += 1
        return out

    async def _send(self, shard: int, parts: list) -> None:
        lane = self._lanes[shard]
        try:
            where = [(p.block.where, p.block.token, p.size) for p in parts]
            answers = await self._over_socket(shard, where) if lane.endpoint is not NONE else None
            if answers is None:
                def prepare():
                    for part in parts:  # the shard may have written an answer over a request
                        part.block.put(part.body)

                answers = await self._call(shard, "batch_shared_many", where, prepare=prepare, read=lambda out: out)
                self.paths["ray"] += len(parts)
            for part, (status, out) in zip(parts, answers):
                if part.answer.done():  # its caller gave up waiting
                    continue
                if status == ray_shared.NOT_HERE:
                    part.answer.set_result(None)
                    continue
                part.answered = True
                out = part.block.answer(out)
                if status >= 400:
                    part.answer.set_exception(errors.from_envelope(status, orjson.loads(out), attempts=1))
                else:
                    part.answer.set_result(out)
        except BaseException as e:  # the shard is down, or did not answer in time: each batch says so
            for part in parts:
                if not part.answer.done():
                    part.answer.set_exception(e)
            if not isinstance(e, Exception):
                raise
        finally:
            lane.busy -= 1
            self._next(shard)

    async def _over_socket(self, shard: int, where: list):
        """The answers of a ``batch_shared_many`` call made over the shard's local socket
        (``sandworld.ray_socket``), or None when it cannot be made so: the shard has no
        socket this process reaches, or the connection broke (the shard died; Ray's
        path then waits out its restart, and the next call asks it for its new socket)."""
        lane = self._lanes[shard]
        if lane.pid != os.getpid():  # a forked child: the parent's connections are the parent's
            lane.drop_lines()
            lane.pid = os.getpid()
        line = lane.lines.pop() if lane.lines else await self._connect(shard)
        if line is None:
            return None
        try:
            async with asyncio.timeout(self.timeout):
                answers = await line.call(where)
        except ray_socket.Broken:
            line.close()
            lane.drop_lines()
            lane.endpoint = UNKNOWN
            return None
        except TimeoutError:
            line.close()
            raise errors.RequestTimeout(f"shard {shard} did not answer a batch within {self.timeout:g} s",
                                        maybe_applied=True, attempts=1) from None
        except BaseException:  # cancelled mid-call: the connection may hold half a frame
            line.close()
            raise
        lane.lines.append(line)
        self.paths["socket"] += len(where)
        return answers

    async def _connect(self, shard: int):
        """A new connection to the shard's local socket, asking the shard where it is
        first if need be; None when it has none this process can use."""
        lane = self._lanes[shard]
        if lane.endpoint is UNKNOWN:
            try:  # a shard that is down raises ShardUnavailable here, as Ray's path would
                found = await self._call(shard, "local_socket", read=lambda out: out or NONE)
            except _ray().exceptions.RayTaskError:  # its socket failed to start: Ray's path
                found = NONE
            if lane.endpoint is UNKNOWN:  # (unless another call asked meanwhile)
                lane.endpoint = found if found is NONE else (found["path"], found["token"])
                lane.reached = False
        if lane.endpoint is NONE:
            return None
        try:
            line = await ray_socket.Line.open(*lane.endpoint)
        except ray_socket.Broken:  # a socket nobody listens on: its shard died; ask the next one
            lane.endpoint = UNKNOWN
            return None
        except ray_socket.Refused:
            # another machine's path, or the token refused: Ray's path from now on, unless this
            # process reached that socket before (then it went with its shard: ask the next one)
            lane.endpoint = UNKNOWN if lane.reached else NONE
            return None
        lane.reached = True
        return line

    async def _call(self, shard: int, method: str, *args, prepare=None, read=None):
        """One actor call: its answer's bytes (a view of them where Ray received
        them, not a copy: see ``ShardServer``), or its error raised. A call to a
        dead or restarting shard is tried again, with backoff. ``prepare()`` runs
        before each attempt; ``read(out)`` turns an answer into its bytes (None:
        the call could not be made so, and its caller makes another)."""
        ray = _ray()
        gone = (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError)
        deadline = time.monotonic() + self.timeout
        attempt = 0
        while True:
            attempt += 1
            try:
                if prepare is not None:
                    prepare()  # a shard that died mid-call may have written over the request
                ref = getattr(self.actors[shard], method).remote(*args)
                status, out = await asyncio.wait_for(ref, max(0.0, deadline - time.monotonic()))
            except gone as e:
                wait = self.retry.delay(attempt)
                if attempt >= self.retry.attempts or time.monotonic() + wait > deadline:
                    raise ShardUnavailable(
                        f"shard {shard} of {self.name!r} is down or restarting ({type(e).__name__}) after "
                        f"{attempt} attempt(s); retry later", status=503, attempts=attempt) from None
                await asyncio.sleep(wait)
                continue
            except asyncio.TimeoutError:
                raise errors.RequestTimeout(f"shard {shard} did not answer {method} within {self.timeout:g} s",
                                            maybe_applied=True, attempts=attempt) from None
            if read is not None:
                out = read(out)
                if out is None:
                    return None
            elif not isinstance(out, bytes):  # an out-of-band buffer: read in place
                out = memoryview(out)
            if status >= 400:
                raise errors.from_envelope(status, orjson.loads(out), attempts=attempt)
            return out

    def _wait(self, coro):
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro)
        coro.close()
        raise errors.SandworldError("inside a running event loop, await the *_async method instead",
                                    code="use_async")


def _close_lines(lanes: list) -> None:
    for lane in lanes:
        lane.drop_lines()


def _results(answer) -> list:
    """Each result of a ``/batch`` answer, as bytes of its own."""
    return [bytes(slot) for slot in _read_results(answer).results]


def _view(answer) -> memoryview:
    return answer if isinstance(answer, memoryview) else memoryview(answer)


def _one_head(ids) -> str | None:
    """The ``ep_<shard>_`` head every id starts with, or None (no ids, ids of several
    shards, or one that is not a string)."""
    try:
        first = ids[0]
        head = first[:first.index("_", first.index("_") + 1) + 1]
        return head if all(eid.startswith(head) for eid in ids) else None
    except (IndexError, ValueError, AttributeError, TypeError):
        return None


def _encode(body) -> tuple:
    if body is None:
        return False, b"{}"
    if isinstance(body, bytes | bytearray | memoryview):
        return True, bytes(body)
    return False, orjson.dumps(body)
