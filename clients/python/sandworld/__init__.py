"""The Python client of Sandworld runtime.

- ``SandworldEnv`` / ``AsyncSandworldEnv``: one episode (reset, step, submit, fork, state);
- ``SandworldClient`` / ``AsyncSandworldClient``: the connection pool envs share, and every route;
- ``BatchStepper`` / ``AsyncBatchStepper``: many episodes, one request per server;
- ``StepBatcher`` / ``AsyncStepBatcher``: concurrent steps of many episodes coalesced into ``/batch``;
- ``sandworld.gym``: a Gymnasium-style wrapper; ``sandworld.tools``: tool schemas for model APIs;
- ``sandworld.errors``: the typed errors (``SandworldError`` is the root);
- ``sandworld.evaluation``: the benchmark runner behind ``sandworld eval``.
- ``sandworld.ray``: the shards of a cluster called as Ray actors, without HTTP (needs Ray).

The server URL comes from ``base_url`` or ``$SANDWORLD_API_URL`` (default
``http://127.0.0.1:8787/api/v1``). See docs/CLIENT.md.
"""

from .batch import AsyncBatchStepper, BatchStepper
from .client import AsyncSandworldClient, SandworldClient
from .coalesce import AsyncStepBatcher, StepBatcher
from .env import AsyncSandworldEnv, SandworldEnv
from .errors import ApiError, SandworldError
from .local import local_server
from .records import Evaluation, Observation, StepResult
from .transport import DEFAULT_URL, Retry, __version__

__all__ = [
    "AsyncBatchStepper", "AsyncSandworldClient", "AsyncSandworldEnv", "AsyncStepBatcher", "ApiError", "BatchStepper", "DEFAULT_URL",
    "Evaluation", "Observation", "Retry", "SandworldClient", "SandworldEnv", "SandworldError", "StepBatcher", "StepResult",
    "__version__", "local_server",
]
