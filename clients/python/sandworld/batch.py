"""``BatchStepper``: many envs, one request per server.

Creating, stepping and submitting a thousand episodes one request at a time
spends the time on HTTP, not on the worlds. A stepper does each in one request
per server: ``/batch/episodes`` to start them, ``/batch`` to step them,
``/batch/submit`` to score them (servers without the batched create and submit
routes get one request per episode instead, transparently)::

    stepper = BatchStepper()
    envs = stepper.group("coinpurse", 8, task_id="cp-04", seed=1)   # a GRPO group
    results = stepper.step(envs, [("list_requests", {"status": "pending"})] * 8)
    evaluations = stepper.submit(envs)

The envs it returns are ordinary ``SandworldEnv``s on the stepper's client,
so any of them can also be stepped on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import errors
from .client import BATCH_CALLS, AsyncSandworldClient, SandworldClient
from .env import AsyncSandworldEnv, SandworldEnv


def _action(action):
    if action is None:
        return None
    if isinstance(action, dict):
        return action["tool"], action.get("arguments")
    tool, *rest = action
    return tool, (rest[0] if rest else None)


class _Stepper:
    env_class: type

    def _specs(self, specs) -> list:
        out = []
        for spec in specs:
            spec = dict(spec)
            if self.agent_name is not None:
                spec.setdefault("agent_name", self.agent_name)
            out.append(spec)
        return out

    def _envs(self, created: list, return_exceptions: bool) -> list:
        out = []
        for i, (url, obs) in enumerate(created):
            if isinstance(obs, errors.SandworldError):
                if not return_exceptions:
                    obs.index = i
                    raise obs
                out.append(obs)
                continue
            env = self.env_class(client=self.client, agent_name=self.agent_name)
            env._started(url, obs)
            out.append(env)
        return out

    @staticmethod
    def _calls(envs: Sequence, actions: Sequence) -> tuple:
        if len(envs) != len(actions):
            raise ValueError(f"{len(envs)} envs but {len(actions)} actions: give one action (or None) per env")
        slots, calls = [], []
        for i, (env, action) in enumerate(zip(envs, actions)):
            act = _action(action)
            if act is not None:
                slots.append(i)
                calls.append((env.url, env._require(), act[0], act[1]))
        return slots, calls

    @staticmethod
    def _placed(envs, slots, results) -> list:
        out = [None] * len(envs)
        for i, res in zip(slots, results):
            out[i] = envs[i]._stepped(res)
        return out

    @staticmethod
    def _submit_items(envs, outputs) -> list:
        if outputs is None:
            outputs = [None] * len(envs)
        if len(outputs) != len(envs):
            raise ValueError(f"{len(envs)} envs but {len(outputs)} outputs")
        return [(env.url, env._require(), out) for env, out in zip(envs, outputs)]

    @staticmethod
    def _submitted(envs, evaluations, return_exceptions) -> list:
        for i, (env, ev) in enumerate(zip(envs, evaluations)):
            if isinstance(ev, errors.SandworldError):
                if not return_exceptions:
                    ev.index = i
                    raise ev
            else:
                env.evaluation = ev
        return evaluations


class BatchStepper(_Stepper):
    """Create, step and submit many ``SandworldEnv``s in one request per server."""

    env_class = SandworldEnv

    def __init__(self, client: SandworldClient | None = None, *, base_url=None, agent_name: str | None = None,
                 max_calls: int = BATCH_CALLS, **client_options):
        self._owns_client = client is None
        self.client = client or SandworldClient(base_url, **client_options)
        self.agent_name = agent_name
        self.max_calls = max_calls

    def reset(self, specs, *, return_exceptions: bool = False) -> list:
        """Start one episode per spec (a dict: ``environment`` plus the fields of
        ``SandworldEnv.reset``); returns envs in order. With ``return_exceptions``
        a failed spec holds its ``ApiError`` instead of raising it."""
        created = self.client._run(self.client._create_many(self._specs(specs)))
        return self._envs(created, return_exceptions)

    def group(self, environment: str, n: int, **fields) -> list:
        """``n`` episodes of one spec, e.g. a GRPO group of one (task, seed)."""
        return self.reset([{"environment": environment, **fields}] * n)

    def step(self, envs: Sequence, actions: Sequence) -> list:
        """One action per env (``(tool, arguments)``, ``{"tool", "arguments"}``, or
        ``None`` to leave that env alone); one ``StepResult`` (or ``None``) per env."""
        slots, calls = self._calls(envs, actions)
        return self._placed(envs, slots, self.client._run(self.client._batch(calls, self.max_calls)))

    def step_many(self, calls: Sequence) -> list:
        """Any number of ``(env, tool, arguments)`` calls, applied in order; results in order."""
        flat = [(env.url, env._require(), tool, args) for env, tool, args in calls]
        results = self.client._run(self.client._batch(flat, self.max_calls))
        for (env, _, _), res in zip(calls, results):
            env._stepped(res)
        return results

    def submit(self, envs: Sequence, outputs: Sequence | None = None, *, return_exceptions: bool = False) -> list:
        """Submit every env (with its output, if given); ``Evaluation``s in order."""
        evaluations = self.client._run(self.client._submit_many(self._submit_items(envs, outputs)))
        return self._submitted(envs, evaluations, return_exceptions)

    def close(self) -> None:
        if self._owns_client:
            self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class AsyncBatchStepper(_Stepper):
    """The asyncio twin of ``BatchStepper``."""

    env_class = AsyncSandworldEnv

    def __init__(self, client: AsyncSandworldClient | None = None, *, base_url=None, agent_name: str | None = None,
                 max_calls: int = BATCH_CALLS, **client_options):
        self._owns_client = client is None
        self.client = client or AsyncSandworldClient(base_url, **client_options)
        self.agent_name = agent_name
        self.max_calls = max_calls

    async def reset(self, specs, *, return_exceptions: bool = False) -> list:
        created = await self.client._run(self.client._create_many(self._specs(specs)))
        return self._envs(created, return_exceptions)

    async def group(self, environment: str, n: int, **fields) -> list:
        return await self.reset([{"environment": environment, **fields}] * n)

    async def step(self, envs: Sequence, actions: Sequence) -> list:
        slots, calls = self._calls(envs, actions)
        return self._placed(envs, slots, await self.client._run(self.client._batch(calls, self.max_calls)))

    async def step_many(self, calls: Sequence) -> list:
        flat = [(env.url, env._require(), tool, args) for env, tool, args in calls]
        results = await self.client._run(self.client._batch(flat, self.max_calls))
        for (env, _, _), res in zip(calls, results):
            env._stepped(res)
        return results

    async def submit(self, envs: Sequence, outputs: Sequence | None = None, *,
                     return_exceptions: bool = False) -> list:
        evaluations = await self.client._run(self.client._submit_many(self._submit_items(envs, outputs)))
        return self._submitted(envs, evaluations, return_exceptions)

    async def close(self) -> None:
        if self._owns_client:
            await self.client.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()
