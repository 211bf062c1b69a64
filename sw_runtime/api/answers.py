"""The answers of the API as msgspec Structs, declared for the OpenAPI document.

Request bodies are the Structs of ``sw_runtime.schemas`` (the ones that
decode requests); these describe what comes back. Each names the fields an
answer always has, with their types; answers may carry more fields (they are
open objects), so adding a field to an answer never breaks a client.
The schemathesis run (tests/security/test_openapi_fuzz.py) checks every
answer the server gives against them.
"""

from __future__ import annotations

from typing import Any

import msgspec


class _Answer(msgspec.Struct, kw_only=True):
    pass


class ErrorBody(_Answer):
    code: str
    message: str


class ErrorEnvelope(_Answer):
    """Every HTTP error: ``{"error": {"code", "message"}}`` (some codes add fields)."""

    error: ErrorBody


class Health(_Answer):
    ok: bool
    version: str
    core: str


class Ready(_Answer):
    ready: bool
    checks: dict[str, bool]


class EnvironmentSummary(_Answer):
    name: str
    version: str


class Environments(_Answer):
    environments: list[EnvironmentSummary]


class Environment(_Answer):
    name: str
    version: str
    tools: list[dict[str, Any]]
    tasks: list[dict[str, Any]]


class Catalogue(_Answer):
    """``/checks`` and ``/fault-profiles``: an open object."""


class RenderedChecks(_Answer):
    """``POST /checks/render``: each check as its sentence, in the order given."""

    environment: str | None
    lines: list[Any]


class BoundChecks(_Answer):
    """``POST /checks/bind``: each sentence's binding, in the order given (or ``"not_checked"``)."""

    environment: str | None
    results: list[Any]


class Me(_Answer):
    """``GET /me``: the caller's key (id and hint, never the secret), project and scopes."""

    auth: str
    key: dict[str, Any] | None
    project: str | None
    scopes: list[str]


class Usage(_Answer):
    """``GET /usage``: what the caller holds against the server's caps."""

    project: str | None
    open_episodes: int
    snapshots: int
    caps: dict[str, Any]


class Shard(_Answer):
    shard: int
    url: str


class Cluster(_Answer):
    shard: int
    shards: list[Shard]


class NextLinks(_Answer):
    step: str
    submit: str


class CreatedEpisode(_Answer):
    episode_id: str
    environment: str
    environment_version: str
    task_id: str | None
    seed: int
    tools: list[dict[str, Any]]
    step_limit: int
    seed_digest: str
    next: NextLinks


class Episode(_Answer):
    episode_id: str
    status: str
    steps: int
    trace: list[dict[str, Any]]


class EpisodeSummary(_Answer):
    """One episode of ``GET /episodes``: open, or ended (``ended_by`` says how)."""

    episode_id: str
    status: str
    steps: int


class Lifetime(_Answer):
    """``POST /episodes/{id}/heartbeat``: the episode's new deadline."""

    episode_id: str
    status: str
    expires_at: str | None
    idle_timeout_seconds: float
    timeout_seconds: float


class EpisodeDeleted(_Answer):
    episode_id: str
    status: str
    ended_by: str | None
    evaluation: dict[str, Any] | None


class StepResult(_Answer):
    """A step's answer; ``ok: false`` with ``error`` when the app refused the call."""

    ok: bool
    tool: str | None = None
    step: int | None = None
    at: str | None = None
    result: Any = None
    error: ErrorBody | None = None


class BatchSlot(StepResult):
    episode_id: str | None = None


class BatchResults(_Answer):
    results: list[dict[str, Any]]


class Evaluation(_Answer):
    episode_id: str
    steps: int
    checks: list[dict[str, Any]]
    digest: str
    seed_digest: str


class Forked(_Answer):
    episodes: list[dict[str, Any]]


class Snapshot(_Answer):
    snapshot_id: str


class SnapshotDeleted(_Answer):
    snapshot_id: str
    deleted: bool


class State(_Answer):
    collections: dict[str, Any]
    digest: str


class SeedVerdict(_Answer):
    valid: bool
    checked: list[str]
    unchecked: list[str]
    issues: list[dict[str, Any]]


class Bucket(_Answer):
    limit: int
    remaining: int
    reset: int
    rate_per_second: float
    burst: int


class Limits(_Answer):
    """The caller's limits: null where that limit is off."""

    key: Bucket | None
    ip: Bucket | None


class Webhook(_Answer):
    webhook_id: str
    url: str
    events: list[str]
    project: str | None
    created_at: str


class WebhookCreated(Webhook):
    """Registration shows the signing secret, once."""

    secret: str


class WebhookDeleted(_Answer):
    webhook_id: str
    deleted: bool


class Attempt(_Answer):
    at: str
    status_code: int | None
    error: str | None
    duration_ms: float


class DeliveryRecord(_Answer):
    delivery_id: str
    webhook_id: str
    event: str
    status: str
    attempts: list[Attempt]
    created_at: str


class Key(_Answer):
    key_id: str
    hint: str
    project: str
    scopes: list[str]
    created_at: str
    revoked: bool
    revoked_at: str | None


def page_of(item: type, name: str) -> type:
    """A page of ``item``: ``{"items": [...], "next_cursor": str | null}``."""
    return msgspec.defstruct(name, [("items", list[item]), ("next_cursor", str | None)], bases=(_Answer,),
                             kw_only=True, module=__name__)


WebhookPage = page_of(Webhook, "WebhookPage")
DeliveryPage = page_of(DeliveryRecord, "DeliveryPage")
KeyPage = page_of(Key, "KeyPage")
SnapshotPage = page_of(Snapshot, "SnapshotPage")
EpisodePage = page_of(EpisodeSummary, "EpisodePage")
