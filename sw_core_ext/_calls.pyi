"""Types of ``sw_core_ext._calls`` (and its twin ``_calls_py``): a call's bookkeeping.

The episode, the engine and a batch's calls are the runtime's objects,
duck-typed here (see ``_calls_py.py`` for what each function reads of them).
"""

from typing import Any, Iterable

OPEN: str

def bind(reads: Any, api_error: type, ask_user: str, log: Any, episode: type | None = ..., trace: type | None = ...,
         call: type | None = ...) -> None: ...
def args_json(arguments: Any) -> bytes: ...
def answer(ep: Any, tool_name: str, args_json: bytes) -> list[bytes]: ...
def step(engine: Any, ep: Any, tool_name: str, args_json: bytes) -> list[bytes]: ...
def batch(engine: Any, calls: Iterable[Any], parts: list[bytes], project: str | None) -> None: ...
def direct() -> tuple[str, ...]: ...  # the compiled module only
