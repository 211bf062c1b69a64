"""``AsyncStepBatcher`` and ``StepBatcher``: steps issued at once go out as one ``/batch``.

A trainer runs many episodes at once, each stepping on its own: verl runs its
agent loops as tasks of one event loop, SkyRL runs each env's ``step`` in a
thread pool. One request per step spends the time on HTTP. A batcher gathers
the steps its callers issue within ``window`` seconds (or until ``max_calls``
are waiting), sends them as one ``/batch`` (one per server), and hands each
caller its own answer::

    batcher = AsyncStepBatcher(client)
    result = await batcher.step(env, "list_requests", {"status": "pending"})   # from many tasks at once

One batch is in flight at a time: steps issued meanwhile wait for the next,
so an episode's calls keep their order, and the busier the trainer the fuller
the batches. Each caller gets what ``env.step`` would give it: a
``StepResult`` (a refused tool call is one, ``ok: false``), or the error a
``/step`` would raise for a call that cannot run (``EpisodeClosed``,
``StepLimit``, ``NotFound``), raised to that caller only. A call whose
arguments cannot be encoded fails before it is queued; only a failure of the
whole request (the server unreachable) fails every call it carried.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time

import orjson

from . import errors
from .records import StepResult

WINDOW = 0.002  # seconds a batch waits for more steps after its first one
MAX_CALLS = 256  # calls per batch


def _call(env, tool: str, arguments) -> tuple:
    """The /batch call of one step; raises here, for this caller only, if it cannot be sent."""
    eid = env._require()
    arguments = {} if arguments is None else arguments
    orjson.dumps(arguments)  # arguments that cannot be encoded would fail the whole request
    return env.url, eid, tool, arguments


def _answer(slot):
    """A slot as ``env.step`` would answer it: the result of a call that ran (it
    counted as a step), else the error ``/step`` raises for a call that cannot run."""
    if isinstance(slot, StepResult) and slot.get("ok") is False and "step" not in slot \
            and isinstance(slot.get("error"), dict):
        return errors.from_slot(slot["error"])
    return slot


class _Counts:
    """What a batcher sent: ``requests`` (batches) and ``calls`` (steps)."""

    requests = 0
    calls = 0

    def _counted(self, n: int) -> None:
        self.requests += 1
        self.calls += n


class AsyncStepBatcher(_Counts):
    """Coalesce concurrent ``step``s of ``AsyncSandworldEnv``s (or any env on
    ``client``) into ``/batch`` requests. Use it from one event loop."""

    def __init__(self, client, *, window: float = WINDOW, max_calls: int = MAX_CALLS):
        self.client = client
        self.window = window
        self.max_calls = max_calls
        self._pending: list = []  # (call, future, env)
        self._flusher: asyncio.Task | None = None

    async def step(self, env, tool: str, arguments: dict | None = None) -> StepResult:
        """One step of ``env``, sent with whatever else is stepping now."""
        (result,) = await self.step_many([(env, tool, arguments)])
        return result

    async def step_many(self, calls, *, return_exceptions: bool = False) -> list:
        """``(env, tool, arguments)`` calls, queued together and in order (one
        turn's calls to one episode stay in one batch); results in order."""
        futures = self._queue(calls)
        return list(await asyncio.gather(*futures, return_exceptions=return_exceptions))

    def _queue(self, calls) -> list:
        loop = asyncio.get_running_loop()
        futures = []
        for env, tool, arguments in calls:
            future = loop.create_future()
            try:
                self._pending.append((_call(env, tool, arguments), future, env))
            except Exception as e:  # noqa: BLE001 - this call's own failure
                future.set_exception(e)
            futures.append(future)
        if self._pending and (self._flusher is None or self._flusher.done()):
            self._flusher = loop.create_task(self._flush())
        return futures

    async def _flush(self) -> None:
        while self._pending:
            if len(self._pending) < self.max_calls:
                await asyncio.sleep(self.window)
            batch, self._pending = self._pending[:self.max_calls], self._pending[self.max_calls:]
            self._counted(len(batch))
            try:
                results = await self.client._run(self.client._batch([c for c, _, _ in batch], self.max_calls))
            except Exception as e:  # noqa: BLE001 - the request failed: every call it carried
                results = [e] * len(batch)
            for (_, future, env), slot in zip(batch, results):
                if future.done():
                    continue  # its caller was cancelled
                got = _answer(slot)
                if isinstance(got, BaseException):
                    future.set_exception(got)
                else:
                    future.set_result(env._stepped(got))


class StepBatcher(_Counts):
    """The blocking twin: coalesce ``step``s issued from many threads (SkyRL's
    env workers) into ``/batch`` requests sent by one sender thread."""

    def __init__(self, client, *, window: float = WINDOW, max_calls: int = MAX_CALLS):
        self.client = client
        self.window = window
        self.max_calls = max_calls
        self._pending: list = []
        self._ready = threading.Condition()
        self._sender: threading.Thread | None = None
        self._closed = False

    def step(self, env, tool: str, arguments: dict | None = None) -> StepResult:
        (result,) = self.step_many([(env, tool, arguments)])
        return result

    def step_many(self, calls, *, return_exceptions: bool = False) -> list:
        futures = []
        with self._ready:
            if self._closed:
                raise RuntimeError("the step batcher is closed")
            for env, tool, arguments in calls:
                future = concurrent.futures.Future()
                try:
                    self._pending.append((_call(env, tool, arguments), future, env))
                except Exception as e:  # noqa: BLE001 - this call's own failure
                    future.set_exception(e)
                futures.append(future)
            if self._sender is None:
                self._sender = threading.Thread(target=self._send_loop, name="sandworld-step-batcher", daemon=True)
                self._sender.start()
            self._ready.notify()
        out = []
        for future in futures:
            error = future.exception()
            if error is not None and not return_exceptions:
                raise error
            out.append(error if error is not None else future.result())
        return out

    def _send_loop(self) -> None:
        while True:
            with self._ready:
                while not self._pending and not self._closed:
                    self._ready.wait()
                if not self._pending:
                    return  # closed and drained
                deadline = time.monotonic() + self.window
                while len(self._pending) < self.max_calls and (left := deadline - time.monotonic()) > 0:
                    self._ready.wait(left)
                batch, self._pending = self._pending[:self.max_calls], self._pending[self.max_calls:]
            self._counted(len(batch))
            try:
                results = self.client._run(self.client._batch([c for c, _, _ in batch], self.max_calls))
            except Exception as e:  # noqa: BLE001 - the request failed: every call it carried
                results = [e] * len(batch)
            for (_, future, env), slot in zip(batch, results):
                got = _answer(slot)
                if isinstance(got, BaseException):
                    future.set_exception(got)
                else:
                    future.set_result(env._stepped(got))

    def close(self) -> None:
        """Send what is queued, then stop the sender thread."""
        with self._ready:
            self._closed = True
            self._ready.notify()
        if self._sender is not None:
            self._sender.join()


__all__ = ["AsyncStepBatcher", "StepBatcher", "MAX_CALLS", "WINDOW"]
