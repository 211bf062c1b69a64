"""Request bodies as msgspec Structs: decoded once, unknown fields refused.

Tool arguments stay untyped here (``object``): each tool decodes them with its
own params Struct, so a bad argument fails that call (``ok: false``), not the
HTTP request.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from . import errors

# Every string a request hands the server is capped (the server keeps many of
# them, and error texts quote some): names and ids, a submit's output.
NAME_CAP = 256
OUTPUT_CAP = 1024 * 1024
Name = Annotated[str, msgspec.Meta(max_length=NAME_CAP)]
Output = Annotated[str, msgspec.Meta(max_length=OUTPUT_CAP)]


class _Body(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class UserSimulator(_Body):
    """``{"model": id}``: the llm user, played by this model at SW_USER_SIM_URL."""

    model: Name


class Trigger(_Body):
    """What an episode starts from, as reference 004's sandbox run does:
    ``invoice``, ``email_received`` or ``cron`` and the entity it is about
    (omitted: the most recent matching one; ignored for ``cron``)."""

    kind: Name
    entity_id: Name | None = None


class CreateEpisode(_Body):
    # The worlds of the episode, one to three (a composite: worlds/composite.py);
    # on /environments/{env}/episodes the path names the world instead.
    environments: Annotated[list[Name], msgspec.Meta(max_length=8)] | None = None
    task_id: Name | None = None
    seed: int = 0
    agent_name: Name | None = None
    signals: bool = False
    fault_profile: Name | None = None
    # "scripted", "llm", or {"model": id}: the llm user played by that model
    user_simulator: Name | UserSimulator | None = None
    # Which checks make up score's denominator (verify/score.py): "share" or "informative".
    scoring: Name = "share"
    checks: list[dict[str, Any]] | None = None
    replace_template_checks: bool = False
    # A custom start state (replaces the seeded one; engine/custom_seeds.py),
    # or a snapshot to start from. Any JSON: the world's parser says what is wrong.
    state: Any = None
    snapshot_id: Name | None = None
    # "sandbox": guarded tools answer would_* previews and change nothing (engine/sandbox.py).
    mode: Name = "live"
    # Start from a trigger: the instruction is then the trigger's payload (engine/triggers.py).
    trigger: Trigger | None = None
    # This episode's own idle window and hard life, in seconds, at most the
    # server's (SW_IDLE_TIMEOUT, SW_MAX_AGE); None: the server's (engine/lifetimes.py).
    idle_timeout_seconds: float | None = None
    timeout_seconds: float | None = None


_NO_ARGS = msgspec.Raw(b"{}")
# A factory, not a plain default: the OpenAPI document is generated from
# these structs, and a Raw default cannot be written into a JSON Schema.
_no_args = msgspec.field(default_factory=lambda: _NO_ARGS)


class Step(_Body, gc=False):
    tool: Name
    # Kept as the JSON the client sent: the tool's own decoder reads it
    # straight into its params struct, and the trace stores these bytes.
    arguments: msgspec.Raw = _no_args
    dry_run: bool = False


class Call(_Body, gc=False):
    episode_id: Name
    tool: Name
    arguments: msgspec.Raw = _no_args
    dry_run: bool = False


class Batch(_Body):
    """A whole batch decoded in one pass (the fast path)."""

    calls: list[Call]


class LooseBatch(_Body):
    """A batch whose calls are decoded one by one, so a malformed call fails
    only its own slot (the path taken when the fast decode fails)."""

    calls: list[msgspec.Raw]


class Submit(_Body):
    output: Output = ""


class Fork(_Body):
    n: int = 1


class CreateSnapshot(_Body):
    # A label of the caller's, shown with the snapshot (at most 200 characters).
    name: Annotated[str, msgspec.Meta(max_length=200)] | None = None


class Restore(_Body):
    """``POST /episodes/{id}/restore``: which snapshot of the episode to go back to."""

    snapshot_id: Name


class ValidateSeed(_Body):
    state: Any
    task_id: Name | None = None
    # A composite's worlds (or name them in the path: /environments/a+b/seeds/validate),
    # and the seed its worlds left out of the envelope boot from.
    environments: Annotated[list[Name], msgspec.Meta(max_length=8)] | None = None
    seed: int = 0


class BindChecks(_Body):
    """``POST /checks/bind``: sentences to bind to checks, against a world if named."""

    sentences: list[Any]
    environment: Name | None = None


class RenderChecks(_Body):
    """``POST /checks/render``: checks to turn into sentences, checked against a world if named."""

    checks: list[Any]
    environment: Name | None = None


class CreateItem(CreateEpisode, kw_only=True):
    """One episode of a batch create: the single create's body plus its world
    (``environment``, or ``environments`` for a composite)."""

    environment: Name | None = None


class BatchCreate(_Body):
    # Raw, so that each item is decoded on its own and a bad one fails only its slot.
    episodes: list[msgspec.Raw]


class SubmitItem(Submit, kw_only=True):
    """One episode of a batch submit."""

    episode_id: Name


class BatchSubmit(_Body):
    episodes: list[msgspec.Raw]


class CreateWebhook(_Body):
    """``POST /webhooks``: where to send which events, and the signing secret
    (Standard Webhooks, ``whsec_`` + base64; omitted, the server makes one)."""

    url: Annotated[str, msgspec.Meta(max_length=2048)]
    events: Annotated[list[Name], msgspec.Meta(max_length=64)]
    secret: Name | None = None


class UpdateWebhook(_Body):
    """``PATCH /webhooks/{id}``: a new url or events (the secret is rotated apart)."""

    url: Annotated[str, msgspec.Meta(max_length=2048)] | None = None
    events: Annotated[list[Name], msgspec.Meta(max_length=64)] | None = None


class RotateSecret(_Body):
    """``POST /webhooks/{id}/rotate-secret``: the old secret keeps signing beside
    the new one for ``overlap_seconds`` (default a day; 0 stops it at once)."""

    overlap_seconds: float = 86400.0
    secret: Name | None = None


_decoders: dict = {}


def _decoder(kind):
    dec = _decoders.get(kind)
    if dec is None:
        dec = _decoders[kind] = msgspec.json.Decoder(kind)
    return dec


def decode(kind, body: bytes, *, empty_ok: bool = False):
    """Decode a request body, turning msgspec's errors into API errors."""
    if not body.strip():
        if empty_ok:
            return kind()
        raise errors.InvalidJson("the request body is empty; send a JSON object")
    try:
        return _decoder(kind).decode(body)
    except RecursionError:
        raise errors.InvalidJson("the request body nests too deeply; flatten it") from None
    except msgspec.ValidationError as e:
        # The typed decoder stops at the first wrong type, possibly before a
        # syntax error further on: malformed JSON must still say so.
        try:
            msgspec.json.decode(body)
        except RecursionError:
            raise errors.InvalidJson("the request body nests too deeply; flatten it") from None
        except msgspec.DecodeError as bad:
            raise errors.InvalidJson(f"the request body is not valid JSON: {bad}") from None
        raise errors.InvalidRequest(explain(e)) from None
    except msgspec.DecodeError as e:
        raise errors.InvalidJson(f"the request body is not valid JSON: {e}") from None


def decode_item(kind, raw: msgspec.Raw):
    """Decode one item of a batch body (already known to be valid JSON)."""
    try:
        return _decoder(kind).decode(raw)
    except msgspec.ValidationError as e:
        raise errors.InvalidRequest(explain(e)) from None


def convert(kind, value):
    """Like ``decode`` for an already-parsed value (a batch's call)."""
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError as e:
        raise errors.InvalidRequest(explain(e)) from None


_LOW, _HIGH = -(2**63), 2**64 - 1


def refuse_big_ints(value, where: str) -> None:
    """400 for an integer past 64 bits anywhere in ``value``: JSON tools
    (ours, and the ones reading our answers) cannot carry it."""
    todo = [value]
    while todo:
        v = todo.pop()
        t = type(v)
        if t is int:
            if not _LOW <= v <= _HIGH:
                raise errors.InvalidRequest(
                    f"{where} holds the integer {str(v)[:40]}{'…' if len(str(v)) > 40 else ''}, past 64 bits; "
                    "integers must be from -2^63 to 2^64-1 (send a larger number as a string)"
                )
        elif t is dict:
            todo.extend(v.values())
        elif t is list:
            todo.extend(v)


def explain(e: msgspec.ValidationError) -> str:
    text = str(e)
    if text.startswith("Object contains unknown field"):
        field = text.split("`")[1] if "`" in text else "?"
        where = text.split(" - at ")[-1] if " - at " in text else "$"
        return f"unknown field: {field} (at {where}); remove it or check its spelling"
    if text.startswith("Object missing required field"):
        field = text.split("`")[1] if "`" in text else "?"
        return f"missing required field: {field}"
    return f"invalid request: {text}"
