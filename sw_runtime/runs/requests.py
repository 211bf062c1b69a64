"""Reference 001's request bodies, decoded once into typed values.

Ranges are part of the types (``max_calls`` 1 to 500…), so a value out of
range is refused while decoding, with 001's wording for unknown fields.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

import msgspec
import orjson
from msgspec import Meta

from .. import errors
from ..service.runs import RunRequest

Key = Annotated[str, Meta(min_length=1, max_length=255)]
MAX_METADATA = 4096


class Agent(msgspec.Struct, forbid_unknown_fields=True):
    name: str | None = None
    revision: str | None = None


class CreateRun(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    # 001's one environment (a slug, an id, or a composite's name "a+b"), or
    # ours: the worlds of a composite run, two or three.
    environment: str | None = None
    environments: list[str] | None = None
    task: Annotated[str, Meta(min_length=1, max_length=8192)]
    checks: list[dict[str, Any]] = []
    replace_template_checks: bool = False
    agent: Agent | None = None
    max_calls: Annotated[int, Meta(ge=1, le=500)] = 500
    idle_timeout_seconds: Annotated[int, Meta(ge=30, le=3600)] = 600
    timeout_seconds: Annotated[int, Meta(ge=60, le=86400)] = 3600
    idempotency_key: Key | None = None
    metadata: dict[str, Any] = {}
    seed: Annotated[int, Meta(ge=0, le=2**63 - 1)] = 0  # ours: 001 has one saved state per version
    group_id: Annotated[str, Meta(min_length=1, max_length=128)] | None = None  # 003's trial group


class FinishRun(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    output: Annotated[str, Meta(max_length=65536)] = ""
    idempotency_key: Key | None = None


_UNKNOWN = re.compile(r"Object contains unknown field `([^`]*)`")


def decode(cls, body: bytes, empty_ok: bool = False):
    """A body as ``cls``; every failure is 001's ``invalid_request``."""
    if empty_ok and not body.strip():
        body = b"{}"
    try:
        return msgspec.json.decode(body, type=cls)
    except msgspec.ValidationError as e:
        text = str(e)
        m = _UNKNOWN.search(text)
        raise errors.InvalidRequest(f"unknown field: {m.group(1)}" if m else text) from None
    except (msgspec.DecodeError, RecursionError):
        raise errors.InvalidRequest("the body is not valid JSON") from None


def _check(item: dict) -> dict:
    """001 writes a check's text as ``description``; the engine calls it ``label``."""
    if "description" in item:
        item = dict(item)
        text = item.pop("description")
        if "label" in item:
            raise errors.InvalidRequest("a check has description (001) or label, not both")
        item["label"] = text
    return item


def run_request(body: bytes) -> RunRequest:
    req = decode(CreateRun, body)
    if len(orjson.dumps(req.metadata)) > MAX_METADATA:
        raise errors.InvalidRequest(f"metadata is over {MAX_METADATA} bytes")
    if (req.environment is None) == (req.environments is None):
        raise errors.InvalidRequest("give environment (a slug) or environments (a composite's worlds), one of them")
    plain = msgspec.to_builtins(req)
    plain.pop("idempotency_key", None)
    return RunRequest(
        environment=req.environment if req.environments is None else "+".join(req.environments),
        task=req.task,
        checks=[_check(c) for c in req.checks],
        replace_template_checks=req.replace_template_checks,
        agent_name=req.agent.name if req.agent else None,
        agent_revision=req.agent.revision if req.agent else None,
        max_calls=req.max_calls,
        idle_timeout_seconds=req.idle_timeout_seconds,
        timeout_seconds=req.timeout_seconds,
        metadata=req.metadata,
        seed=req.seed,
        group_id=req.group_id,
        idempotency_key=req.idempotency_key,
        canonical=orjson.dumps(plain, option=orjson.OPT_SORT_KEYS),
    )
