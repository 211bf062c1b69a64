"""OpenEnv: any world served through OpenEnv's contract, by OpenEnv's own server.

``make_app(world)`` is an ``openenv.core.create_app`` application whose
environment is a thin door onto a Sandworld server: every OpenEnv session is
one Sandworld episode, reached through the client. The routes are OpenEnv's
(``/reset``, ``/step``, ``/state``, ``/health``, ``/schema``, ``/ws``…):

- ``reset`` (``task_id``, ``seed``) creates the episode; its observation
  holds ``instruction``, ``policy``, ``task_id``, ``seed``, ``episode_id``
  and ``tools`` (MCP ``Tool`` shape: ``name, description, input_schema``);
- ``step`` takes ``ListToolsAction`` (the tools) or ``CallToolAction``
  (``tool_name``, ``arguments``); a call's observation has ``result``, the
  step's answer (``ok``, ``result`` | ``error``): a refusal is data;
- the tool ``submit`` (``{"output": answer}``) ends the episode: the
  observation has ``done: true``, the score as ``reward`` and the evaluation
  as ``result``. Reaching the step limit submits too.

``SUPPORTS_CONCURRENT_SESSIONS`` is true: sessions are separate episodes, so
``max_concurrent_envs`` may be anything the Sandworld server can hold. Run it::

    python -m sandworld.integrations.openenv --world coinpurse --port 8000

(``$SANDWORLD_API_URL`` names the Sandworld server). ``openenv.yaml`` and a
``Dockerfile`` for the facade are beside this module.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from ... import errors
from ...client import SandworldClient
from ...env import SandworldEnv
from .. import require

# openenv-core's metadata pulls its web UI (gradio), so the extra lists what it imports and
# openenv-core itself goes in without its dependencies.
_core = require("openenv.core", "openenv", then="pip install --no-deps 'openenv-core==0.3.0'")
create_app, Environment, State = _core.create_app, _core.Environment, _core.State
CallToolAction, CallToolObservation, Tool = _core.CallToolAction, _core.CallToolObservation, _core.Tool
ListToolsAction, ListToolsObservation = _core.ListToolsAction, _core.ListToolsObservation
Field = require("pydantic", "openenv").Field
WebSocketDisconnect = require("starlette.websockets", "openenv").WebSocketDisconnect

SUBMIT = "submit"
SUBMIT_TOOL = {"name": SUBMIT, "description": "End the episode with your final answer; it is scored.",
               "parameters": {"type": "object", "properties": {"output": {
                   "type": "string", "description": "Your final answer to the user."}}, "required": []}}


class SandworldObservation(CallToolObservation):
    """The observation at reset: the task (``tool_name`` is ``reset``). Tool
    calls answer plain ``CallToolObservation``s, so OpenEnv's MCP client reads them."""

    instruction: Optional[str] = Field(default=None, description="The task, at reset")
    policy: Optional[str] = Field(default=None, description="The policy the agent must follow, at reset")
    task_id: Optional[str] = Field(default=None, description="The task's id")
    seed: Optional[int] = Field(default=None, description="The episode's seed")
    episode_id: Optional[str] = Field(default=None, description="The Sandworld episode")
    tools: Optional[list[Tool]] = Field(default=None, description="The tools, at reset")


def _tools(served: list) -> list:
    return [Tool(name=t["name"], description=t.get("description") or "",
                 input_schema=t.get("parameters") or {"type": "object", "properties": {}})
            for t in [*served, SUBMIT_TOOL]]


class SandworldEnvironment(Environment):
    """One OpenEnv session = one Sandworld episode of ``world`` (a class attribute,
    set by ``environment_class``)."""

    SUPPORTS_CONCURRENT_SESSIONS = True
    world: str = "coinpurse"
    base_url: Any = None
    _client: SandworldClient | None = None
    _lock = threading.Lock()

    def __init__(self):
        super().__init__()
        cls = type(self)
        with cls._lock:
            if cls._client is None:
                cls._client = SandworldClient(cls.base_url)
        self.env = SandworldEnv(client=cls._client)
        self._tools: list | None = None

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, task_id: Optional[str] = None,
              **kwargs: Any) -> SandworldObservation:
        obs = self.env.reset(self.world, task_id=task_id, seed=seed)
        self._tools = _tools(obs.get("tools") or [])
        return SandworldObservation(tool_name="reset", instruction=obs.get("instruction"), policy=obs.get("policy"),
                                    task_id=obs.get("task_id"), seed=obs.get("seed"),
                                    episode_id=obs.get("episode_id"), tools=self._tools, reward=0.0, done=False)

    def step(self, action, timeout_s: Optional[float] = None, **kwargs: Any):
        if isinstance(action, ListToolsAction):
            if self._tools is None:
                self._tools = _tools(self.env.client.environment(self.world)["tools"])
            return ListToolsObservation(tools=self._tools, done=self.env.done, reward=0.0)
        if self.env.observation is None:
            return self._refused(action.tool_name, "no episode yet: reset first")
        if self.env.done:
            return self._refused(action.tool_name, "the episode was submitted: reset for a new one")
        if action.tool_name == SUBMIT:
            return self._end(SUBMIT, (action.arguments or {}).get("output"))
        try:
            result = self.env.step(action.tool_name, action.arguments)
        except errors.StepLimit:
            return self._end(action.tool_name, None)
        return CallToolObservation(tool_name=action.tool_name, result=dict(result), done=False, reward=0.0)

    def _end(self, tool: str, output) -> CallToolObservation:
        evaluation = self.env.submit(output)
        return CallToolObservation(tool_name=tool, result=dict(evaluation), done=True,
                                   reward=float(evaluation.get("score") or 0.0))

    def _refused(self, tool: str, message: str) -> CallToolObservation:
        return CallToolObservation(tool_name=tool, done=self.env.done, reward=0.0,
                                   result={"ok": False, "error": {"code": "episode_closed", "message": message}})

    @property
    def state(self) -> State:
        return State(episode_id=self.env.episode_id, step_count=self.env.steps, world=self.world,
                     done=self.env.done)

    def close(self) -> None:
        pass  # the connection pool is the class's, shared by every session


def environment_class(world: str, base_url=None) -> type:
    """A ``SandworldEnvironment`` subclass for one world (OpenEnv makes one per session)."""
    return type(f"Sandworld{world.title().replace('-', '')}Environment", (SandworldEnvironment,),
                {"world": world, "base_url": base_url, "_client": None, "_lock": threading.Lock()})


class QuietSessionEnd:
    """ASGI middleware: a WebSocket session whose client has left ends without a traceback.

    openenv-core 0.3.0's ``/ws`` handler always closes the socket at the end, also when the
    client already has; Starlette answers that with ``WebSocketDisconnect``, which escaped as
    a 60-line "Exception in ASGI application" at every session's end. Nobody is left to answer,
    so that one exception ends the connection quietly; any other still propagates."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        try:
            await self.app(scope, receive, send)
        except WebSocketDisconnect:
            pass


def make_app(world: str, base_url=None, max_concurrent_envs: int = 64):
    """The OpenEnv server application (FastAPI) for ``world``."""
    app = create_app(environment_class(world, base_url), CallToolAction, SandworldObservation,
                     env_name=f"sandworld-{world}", max_concurrent_envs=max_concurrent_envs)
    app.add_middleware(QuietSessionEnd)
    return app


__all__ = ["SUBMIT", "SandworldEnvironment", "SandworldObservation", "environment_class", "make_app"]
