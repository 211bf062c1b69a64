"""verl's own agent-loop code, loaded from the installed verl without torch.

``import verl`` imports torch, Ray and tensordict (``verl/__init__.py`` imports
``verl.protocol``), which the tests never install; verl is installed with
``--no-deps`` (the client's ``verl`` extra pins the release). What the agent
loop uses does not need them, so this loads it from verl's own files:

- ``verl/utils/tokenizer/{tokenizer,chat_template,continuous_token,deepseek,
  continuous_token_wiring}.py`` as they are (they import transformers only),
  under stand-in parent packages;
- from ``verl/experimental/agent_loop/agent_loop.py``: the classes
  ``AgentLoopMetrics``, ``AgentLoopOutput``, ``DictConfigWrap`` and
  ``AgentLoopBase`` and the function ``register`` are cut out of the file's own
  syntax tree and executed as written, with torch's and PIL's names standing
  in for the annotations (``AgentLoopOutput.as_dict`` and the multimodal paths,
  which need torch, are not called).

``verl_agent_loop(monkeypatch)`` puts the result where
``sandworld.integrations.verl`` imports it. ``byte_tokenizer()`` is a real
``PreTrainedTokenizerFast`` (one token per byte) with a chat template, so
verl's ``ContinuousTokenBuilder`` renders and merges real token ids.
"""

from __future__ import annotations

import abc
import ast
import asyncio
import importlib.util
import logging
import os
import pathlib
import sys
import types
import typing

import pydantic

AGENT_LOOP_NAMES = ("AgentLoopMetrics", "AgentLoopOutput", "DictConfigWrap", "AgentLoopBase", "register",
                    "_agent_loop_registry")
TOKENIZER_FILES = ("tokenizer", "chat_template", "continuous_token", "deepseek", "continuous_token_wiring")

CHAT_TEMPLATE = (
    "{%- if tools %}<|tools|>{% for t in tools %}{{ t | tojson }}\n{% endfor %}<|end|>\n{% endif %}"
    "{%- for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>\n{% endfor %}"
    "{%- if add_generation_prompt %}<|assistant|>{% endif %}"
)


def verl_root() -> pathlib.Path | None:
    """The installed verl's folder (or ``$SW_TEST_VERL_ROOT``: another release's, unpacked)."""
    if os.environ.get("SW_TEST_VERL_ROOT"):
        return pathlib.Path(os.environ["SW_TEST_VERL_ROOT"])
    spec = importlib.util.find_spec("verl")  # finds the package without importing it
    return pathlib.Path(spec.origin).parent if spec and spec.origin else None


def verl_version() -> str | None:
    """The version of the verl at ``verl_root()`` (its ``version/version`` file)."""
    root = verl_root()
    file = root / "version" / "version" if root else None
    return file.read_text().strip() if file and file.exists() else None


def _package(monkeypatch, name: str, path: pathlib.Path | None = None):
    module = types.ModuleType(name)
    module.__path__ = [str(path)] if path else []
    monkeypatch.setitem(sys.modules, name, module)
    return module


def _load(monkeypatch, name: str, path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


def agent_loop_source(root: pathlib.Path) -> dict:
    """The top-level definitions of verl's agent_loop.py, by name (``ast`` nodes)."""
    tree = ast.parse((root / "experimental" / "agent_loop" / "agent_loop.py").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    out[t.id] = node
    return out


def verl_agent_loop(monkeypatch):
    """verl's ``verl.experimental.agent_loop.agent_loop`` (the parts named in
    ``AGENT_LOOP_NAMES``, from its own source) in ``sys.modules``."""
    root = verl_root()
    for name, path in (("verl", root), ("verl.utils", root / "utils"), ("verl.experimental", root / "experimental"),
                       ("verl.experimental.agent_loop", root / "experimental" / "agent_loop")):
        _package(monkeypatch, name, path)
    _package(monkeypatch, "verl.utils.tokenizer", root / "utils" / "tokenizer")
    tokenizer_modules = {name: _load(monkeypatch, f"verl.utils.tokenizer.{name}", root / "utils" / "tokenizer" /
                                     f"{name}.py") for name in TOKENIZER_FILES}
    from transformers import AutoProcessor, AutoTokenizer

    source = agent_loop_source(root)
    missing = [n for n in AGENT_LOOP_NAMES if n not in source]
    if missing:
        raise ImportError(f"verl {verl_version()}'s agent_loop.py has no {', '.join(missing)}")
    name = "verl.experimental.agent_loop.agent_loop"
    module = types.ModuleType(name)
    namespace = module.__dict__
    namespace.update(
        __name__=name, Any=typing.Any, Optional=typing.Optional, ABC=abc.ABC, abstractmethod=abc.abstractmethod,
        BaseModel=pydantic.BaseModel, ConfigDict=pydantic.ConfigDict, AutoTokenizer=AutoTokenizer,
        AutoProcessor=AutoProcessor, DictConfig=dict, RLHFDataset=object, LLMServerClient=object,
        torch=types.SimpleNamespace(Tensor=object), Image=types.SimpleNamespace(Image=object),
        logger=logging.getLogger(name), get_event_loop=asyncio.get_event_loop,
        create_continuous_token_builder=tokenizer_modules["continuous_token_wiring"].create_continuous_token_builder,
    )
    code = ast.Module(body=[source[n] for n in AGENT_LOOP_NAMES], type_ignores=[])
    exec(compile(code, str(root / "experimental" / "agent_loop" / "agent_loop.py"), "exec"), namespace)
    monkeypatch.setitem(sys.modules, name, module)
    return module


def byte_tokenizer():
    """A real fast tokenizer, one token per byte, with a plain chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core)
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def config(response_length: int = 100_000, prompt_length: int = 100_000, max_assistant_turns=None,
           max_tool_response_length: int = 100_000):
    """The part of verl's trainer config ``AgentLoopBase`` and the loop read, as verl nests it."""
    multi_turn = types.SimpleNamespace(max_assistant_turns=max_assistant_turns, max_user_turns=None,
                                       max_tool_response_length=max_tool_response_length,
                                       tool_response_truncate_side="middle")
    rollout = types.SimpleNamespace(response_length=response_length, prompt_length=prompt_length,
                                    multi_turn=multi_turn)
    trainer = types.SimpleNamespace(config=types.SimpleNamespace(actor_rollout_ref=types.SimpleNamespace(
        rollout=rollout)))
    data = types.SimpleNamespace(config={})
    return trainer, data
