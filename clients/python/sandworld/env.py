"""``SandworldEnv`` and ``AsyncSandworldEnv``: one episode at a time.

An env is a handle on one episode: ``reset`` starts it, ``step`` calls a tool,
``submit`` ends and scores it; ``fork`` branches it, ``state`` dumps it. Envs
made with the same ``client`` share its connection pool, which is how
thousands of them run at once::

    with SandworldClient() as client:
        envs = [SandworldEnv(client=client) for _ in range(64)]

An env made without a client opens its own and closes it in ``close()``. The
server has no "delete episode": an episode left open is evicted after its idle
timeout, so ``close()`` releases client resources only.
"""

from __future__ import annotations

from . import errors
from .client import AsyncSandworldClient, SandworldClient, create_body
from .records import Evaluation, Observation, Record, StepResult


class _EnvState:
    """What both envs track about their episode."""

    def __init__(self, client, agent_name):
        self.client = client
        self.agent_name = agent_name
        self.url: str | None = None
        self.observation: Observation | None = None
        self.evaluation: Evaluation | None = None
        self.steps = 0

    @property
    def episode_id(self) -> str | None:
        """The current episode's id (``None`` before the first ``reset``)."""
        return self.observation.get("episode_id") if self.observation else None

    @property
    def done(self) -> bool:
        """The episode was submitted."""
        return self.evaluation is not None

    def _require(self) -> str:
        if self.observation is None:
            raise errors.SandworldError("no episode yet: call reset() first", code="no_episode")
        return self.episode_id

    def _started(self, url: str, obs: Observation) -> Observation:
        self.url, self.observation, self.evaluation = url, obs, None
        self.steps = int(obs.get("steps") or 0)  # a fork carries its source's steps
        return obs

    def _stepped(self, result: StepResult) -> StepResult:
        if isinstance(result.get("step"), int):
            self.steps = result["step"]
        return result

    def _create_body(self, task_id, seed, signals, fault_profile, user_simulator, options) -> dict:
        options.setdefault("agent_name", self.agent_name)
        return create_body(task_id=task_id, seed=seed, signals=signals, fault_profile=fault_profile,
                           user_simulator=user_simulator, **options)

    def _children(self, url: str, children: list, cls) -> list:
        out = []
        for child in children:
            env = cls(client=self.client, agent_name=self.agent_name)
            # A fork answers the new episode's fields; the task's text is the source's.
            merged = Observation({**(self.observation or {}), **child})
            env._started(url, merged)
            out.append(env)
        return out

    def __repr__(self) -> str:
        state = "no episode" if self.observation is None else f"{self.episode_id}, step {self.steps}"
        return f"{type(self).__name__}({state}{', submitted' if self.done else ''})"


class SandworldEnv(_EnvState):
    """A blocking handle on one episode.

    ``base_url`` and the keyword options go to a ``SandworldClient`` of its own
    unless ``client`` is given (share one client between many envs).
    """

    def __init__(self, base_url=None, *, client: SandworldClient | None = None, agent_name: str | None = None,
                 **client_options):
        self._owns_client = client is None
        super().__init__(client or SandworldClient(base_url, **client_options), agent_name)

    def reset(self, environment: str, task_id: str | None = None, seed: int | None = None, signals: bool = False,
              fault_profile: str | None = None, user_simulator: str | None = None, **options) -> Observation:
        """Start a new episode and return its observation: ``instruction``,
        ``policy``, ``tools`` and the episode's fields.

        ``task_id=None`` is free play; ``seed=None`` is the server's default (0).
        ``signals`` and ``fault_profile`` make a training episode (kept out of
        evaluations). Other keyword options (``agent_name``, ``checks``,
        ``snapshot_id``, ``state``…) are sent as given.
        """
        key = options.pop("idempotency_key", None)
        body = self._create_body(task_id, seed, signals, fault_profile, user_simulator, options)
        url, obs = self.client._run(self.client._create(environment, body, None, key))
        return self._started(url, obs)

    def step(self, tool: str, arguments: dict | None = None) -> StepResult:
        """Call one tool. A refusal is a result with ``ok: false``, not an exception."""
        eid = self._require()
        return self._stepped(self.client._run(self.client._step(eid, tool, arguments, self.url)))

    def submit(self, output: str | None = None) -> Evaluation:
        """End the episode and return its evaluation (``pass``, ``score``, ``checks``…)."""
        eid = self._require()
        self.evaluation = self.client._run(self.client._submit(eid, output, self.url, None))
        return self.evaluation

    def fork(self, n: int = 1) -> list:
        """``n`` new envs, each on a copy-on-write copy of this episode as it stands now."""
        eid = self._require()
        url, children = self.client._run(self.client._fork(eid, n, self.url, None))
        return self._children(url, children, SandworldEnv)

    def state(self, collections=None) -> Record:
        """The episode's state: ``{collections, digest}`` (optionally only some collections)."""
        return self.client._run(self.client._state(self._require(), collections, self.url))

    def episode(self) -> Record:
        """The episode as the server holds it: status, steps, digests, trace, evaluation."""
        return self.client._run(self.client._episode(self._require(), self.url))

    def close(self) -> None:
        """Release the client if this env made it (the episode is left to the server)."""
        if self._owns_client:
            self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class AsyncSandworldEnv(_EnvState):
    """The asyncio twin of ``SandworldEnv``: the same methods, awaited."""

    def __init__(self, base_url=None, *, client: AsyncSandworldClient | None = None, agent_name: str | None = None,
                 **client_options):
        self._owns_client = client is None
        super().__init__(client or AsyncSandworldClient(base_url, **client_options), agent_name)

    async def reset(self, environment: str, task_id: str | None = None, seed: int | None = None,
                    signals: bool = False, fault_profile: str | None = None, user_simulator: str | None = None,
                    **options) -> Observation:
        key = options.pop("idempotency_key", None)
        body = self._create_body(task_id, seed, signals, fault_profile, user_simulator, options)
        url, obs = await self.client._run(self.client._create(environment, body, None, key))
        return self._started(url, obs)

    async def step(self, tool: str, arguments: dict | None = None) -> StepResult:
        eid = self._require()
        return self._stepped(await self.client._run(self.client._step(eid, tool, arguments, self.url)))

    async def submit(self, output: str | None = None) -> Evaluation:
        eid = self._require()
        self.evaluation = await self.client._run(self.client._submit(eid, output, self.url, None))
        return self.evaluation

    async def fork(self, n: int = 1) -> list:
        eid = self._require()
        url, children = await self.client._run(self.client._fork(eid, n, self.url, None))
        return self._children(url, children, AsyncSandworldEnv)

    async def state(self, collections=None) -> Record:
        return await self.client._run(self.client._state(self._require(), collections, self.url))

    async def episode(self) -> Record:
        return await self.client._run(self.client._episode(self._require(), self.url))

    async def close(self) -> None:
        if self._owns_client:
            await self.client.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.close()
