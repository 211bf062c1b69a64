"""Stripe's ``Idempotency-Key`` for billing's writes, kept in the state.

A write called with an ``idempotency_key`` (the header, through the runs
dialect; an argument, through ``step``) is saved with its parameters and its
answer in ``idempotency_keys``. The same key again with the same parameters
answers the saved result and changes nothing, so a retry after a timeout is
safe; the same key with other parameters is Stripe's ``idempotency_error``.
A refused call writes nothing (as every tool's refusal), so it is not saved
and a retry runs it again. Keeping the keys in the state keeps replay, forks
and digests exact.
"""

from __future__ import annotations

import functools
from typing import Annotated

import msgspec
import orjson
from msgspec import Meta

from .api import error

Key = Annotated[str, Meta(min_length=1, max_length=255, description=(
    "Stripe's Idempotency-Key: retrying a call with the same key and parameters answers the first call's result "
    "instead of doing it again."))]


def _request(tool: str, args) -> str:
    plain = msgspec.to_builtins(args)
    plain.pop("idempotency_key", None)
    return tool + " " + orjson.dumps(plain, option=orjson.OPT_SORT_KEYS).decode()


def idempotent(name: str):
    """Wrap a write tool's function with Stripe's idempotency-key semantics."""

    def wrap(fn):
        @functools.wraps(fn)
        def run(ctx, args):
            key = args.idempotency_key
            if key is None:
                return fn(ctx, args)
            request = _request(name, args)
            saved = ctx.store.get("idempotency_keys", key)
            if saved is not None:
                if saved["request"] != request:
                    raise error("idempotency_key_in_use", "Keys for idempotent requests can only be used with the "
                                f"same parameters they were first used with. Try using a key other than '{key}' if "
                                "you meant to execute a different request.", kind="idempotency_error")
                return saved["response"]
            result = fn(ctx, args)
            ctx.store.insert("idempotency_keys", key, {"id": key, "object": "idempotency_key", "request": request,
                                                       "response": result, "created": ctx.at_ms // 1000})
            return result

        return run

    return wrap
