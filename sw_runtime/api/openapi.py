"""The OpenAPI 3.1 document, served at ``GET /openapi.json``.

Built from the same msgspec Structs that decode the requests
(``sw_runtime.schemas``) and from the answer Structs (``api/answers.py``),
with ``msgspec.json.schema_components``: a request field added to a Struct
appears in the document without anyone editing it. ``OPERATIONS`` lists each
route once: its body, its answer, its scope, its errors. A test checks that
every route the app serves is in it, and schemathesis checks the server
against it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec

from .. import __version__, schemas
from ..pagination import DEFAULT_LIMIT, MAX_LIMIT
from ..security.scopes import SCOPES, required_scope
from . import answers as a

API = "/api/v1"
REF = "#/components/schemas/{name}"

# What each error status means, for the responses of every operation.
STATUS_TEXT = {
    400: "`invalid_json` or `invalid_request`: the body, a query parameter or a path parameter is wrong",
    401: "`unauthorized`: no API key, or an unknown or revoked one (only with `--auth keys`)",
    403: "`insufficient_scope`: the key lacks the scope this route needs",
    404: "`not_found`: no such route, environment, episode, snapshot or webhook (another project's is unknown too)",
    409: "`episode_closed`, `step_limit`, `idempotency_key_reused` or `idempotency_in_progress`",
    413: "`payload_too_large`: the body is over the server's limit",
    422: "`invalid_seed` (with `issues`) or `empty_criteria`: reference 003's refusals",
    429: "`rate_limited`: a rate limit or a capacity cap; wait `retry-after` seconds",
    503: "`verifier_unavailable` or `user_simulator_unavailable`: retry later",
}


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    summary: str
    answer: type
    status: int = 200
    body: type | None = None
    body_required: bool = True
    query: tuple = ()  # (name, schema, description)
    errors: tuple = (400, 404, 429)
    tags: tuple = field(default=("episodes",))
    also: tuple = ()  # other statuses answered with the same schema as success


_PAGE = (
    ("limit", {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
     "items per page"),
    ("cursor", {"type": "string"}, "the `next_cursor` of the previous page; omit for the first"),
)
_LIFE = (400, 404, 409, 413, 429)

OPERATIONS = (
    Op("GET", "/healthz", "Liveness: the process answers", a.Health, errors=(), tags=("operations",)),
    Op("GET", "/readyz", "Readiness: worlds loaded, data folder writable (503 when not ready)", a.Ready,
       errors=(), tags=("operations",), also=(503,)),
    Op("GET", f"{API}/environments", "Every world", a.Environments, errors=(429,), tags=("catalogue",)),
    Op("GET", f"{API}/environments/{{env}}", "One world (or a composite, a+b): collections, tools, tasks",
       a.Environment, errors=(400, 404, 429), tags=("catalogue",)),
    Op("GET", f"{API}/checks", "The check vocabulary", a.Catalogue, errors=(429,), tags=("catalogue",)),
    Op("POST", f"{API}/checks/render", "Checks as their sentences, checked against a world if named",
       a.RenderedChecks, body=schemas.RenderChecks, errors=(400, 404, 413, 429), tags=("catalogue",)),
    Op("POST", f"{API}/checks/bind", "Sentences bound to the checks they stand for", a.BoundChecks,
       body=schemas.BindChecks, errors=(400, 413, 429), tags=("catalogue",)),
    Op("GET", f"{API}/fault-profiles", "The fault profiles", a.Catalogue, errors=(429,), tags=("catalogue",)),
    Op("GET", f"{API}/cluster", "This server's shard and every shard of its cluster", a.Cluster, errors=(429,),
       tags=("catalogue",)),
    Op("POST", f"{API}/environments/{{env}}/episodes", "Start an episode", a.CreatedEpisode, 201,
       schemas.CreateEpisode, False, errors=(*_LIFE, 422)),
    Op("POST", f"{API}/episodes", "Start an episode of one to three worlds (environments)", a.CreatedEpisode, 201,
       schemas.CreateEpisode, errors=(*_LIFE, 422)),
    Op("GET", f"{API}/episodes", "Episodes, open and ended, a page at a time (in id order)", a.EpisodePage,
       query=(("status", {"type": "string", "enum": ["open", "submitting", "submitted", "ended"]},
               "only episodes with this status"),
              ("environment", {"type": "string"}, "only this world's episodes"),
              ("task_id", {"type": "string"}, "only this task's episodes"), *_PAGE),
       errors=(400, 429)),
    Op("GET", f"{API}/episodes/{{id}}", "An episode, its trace and its evaluation", a.Episode),
    Op("DELETE", f"{API}/episodes/{{id}}", "End an episode (scored, ended_by deleted) and free it",
       a.EpisodeDeleted, errors=(404, 409, 429)),
    Op("POST", f"{API}/episodes/{{id}}/step", "Call one tool", a.StepResult, body=schemas.Step, errors=_LIFE),
    Op("POST", f"{API}/episodes/{{id}}/heartbeat", "Keep an open episode alive without a step", a.Lifetime,
       errors=(404, 409, 429)),
    Op("POST", f"{API}/episodes/{{id}}/submit", "End an episode and score it", a.Evaluation,
       body=schemas.Submit, body_required=False, errors=(*_LIFE, 503)),
    Op("POST", f"{API}/batch", "Many calls to many episodes", a.BatchResults, body=schemas.Batch,
       errors=(400, 413, 429, 503)),
    Op("POST", f"{API}/batch/episodes", "Start many episodes", a.BatchResults, body=schemas.BatchCreate,
       errors=(400, 409, 413, 429)),
    Op("POST", f"{API}/batch/submit", "Submit many episodes", a.BatchResults, body=schemas.BatchSubmit,
       errors=(400, 413, 429, 503)),
    Op("POST", f"{API}/episodes/{{id}}/fork", "Fork an episode into new ones", a.Forked, 201,
       schemas.Fork, False, errors=_LIFE),
    Op("POST", f"{API}/episodes/{{id}}/snapshots", "Keep an episode's state as a snapshot", a.Snapshot, 201,
       schemas.CreateSnapshot, False, errors=_LIFE),
    Op("GET", f"{API}/snapshots/{{id}}", "A snapshot", a.Snapshot),
    Op("DELETE", f"{API}/snapshots/{{id}}", "Release a snapshot", a.SnapshotDeleted),
    Op("GET", f"{API}/episodes/{{id}}/state", "An episode's records and digest", a.State,
       query=(("collections", {"type": "string"}, "comma-separated collections to return"),)),
    Op("POST", f"{API}/environments/{{env}}/seeds/validate", "Would this custom state start?", a.SeedVerdict,
       body=schemas.ValidateSeed, errors=(400, 404, 413, 422, 429)),
    Op("GET", f"{API}/limits", "The caller's rate limits and what is left", a.Limits, errors=(429,),
       tags=("security",)),
    Op("GET", f"{API}/me", "The caller: its key, project and scopes", a.Me, errors=(429,), tags=("security",)),
    Op("GET", f"{API}/usage", "What the caller holds against the server's caps", a.Usage, errors=(429,),
       tags=("security",)),
    Op("POST", f"{API}/webhooks", "Register a webhook", a.WebhookCreated, 201, schemas.CreateWebhook,
       errors=(400, 413, 429), tags=("webhooks",)),
    Op("GET", f"{API}/webhooks", "The caller's webhooks, a page at a time", a.WebhookPage, query=_PAGE,
       errors=(400, 429), tags=("webhooks",)),
    Op("GET", f"{API}/webhooks/{{id}}", "A webhook", a.Webhook, tags=("webhooks",)),
    Op("PATCH", f"{API}/webhooks/{{id}}", "Change a webhook's url or events", a.Webhook, body=schemas.UpdateWebhook,
       errors=(400, 404, 413, 429), tags=("webhooks",)),
    Op("DELETE", f"{API}/webhooks/{{id}}", "Delete a webhook", a.WebhookDeleted, tags=("webhooks",)),
    Op("POST", f"{API}/webhooks/{{id}}/rotate-secret", "A new signing secret; the old one overlaps a while",
       a.WebhookCreated, body=schemas.RotateSecret, body_required=False, errors=(400, 404, 413, 429),
       tags=("webhooks",)),
    Op("POST", f"{API}/webhooks/{{id}}/ping", "Send a test delivery (webhook.ping)", a.DeliveryRecord, 202,
       tags=("webhooks",)),
    Op("GET", f"{API}/webhooks/{{id}}/deliveries", "A webhook's delivery log, a page at a time",
       a.DeliveryPage, query=_PAGE, tags=("webhooks",)),
    Op("GET", f"{API}/keys", "The project's API keys (never their secrets), a page at a time", a.KeyPage,
       query=_PAGE, errors=(400, 429), tags=("security",)),
    Op("GET", f"{API}/snapshots", "The caller's snapshots, a page at a time", a.SnapshotPage,
       query=(("episode_id", {"type": "string"}, "only this episode's snapshots"), *_PAGE), errors=(400, 429)),
    Op("POST", f"{API}/episodes/{{id}}/restore", "Put an open episode back to a snapshot of itself",
       a.EpisodeSummary, body=schemas.Restore, errors=_LIFE),
)

# Routes outside the JSON API, served as they are.
EXTRA = (
    ("GET", "/metrics"),
    ("GET", "/openapi.json"),
    # Reference 001's runs API, in 001's shapes and envelope, and the tools at the
    # real APIs' addresses and over MCP, in theirs (docs/RUNS.md documents them).
    ("GET", "/v1/environments"),
    ("GET", "/v1/environments/{env}"),
    ("POST", "/v1/runs"),
    ("GET", "/v1/runs"),
    ("GET", "/v1/runs/{run_id}/report.md"),
    ("GET", "/v1/runs/{run_id}"),
    ("POST", "/v1/runs/{run_id}/finish"),
    ("POST", "/v1/runs/{run_id}/heartbeat"),
    ("GET", "/v1/runs/{run_id}/tools"),
    *((m, p) for p in ("/v1/runs/{run_id}/tools/{path:path}", "/api/v1/episodes/{id}/tools/{path:path}",
                       "/v1/{rest:path}") for m in ("GET", "POST", "PUT", "PATCH", "DELETE")),
    *((m, "/api/v1/episodes/{id}/mcp") for m in ("GET", "POST", "DELETE")),
    # The address for a person (a link to the viewer) and the viewer's HTML pages (docs/VIEWER.md).
    ("GET", "/"),
    *(("GET", f"/ui{p}") for p in ("", "/", "/episodes", "/episodes/{id}", "/server", "/worlds/{env}/tasks/{task}",
                                   "/login", "/{rest:path}")),
    ("POST", "/ui/login"),
    ("POST", "/ui/logout"),
)


def build(ops=OPERATIONS) -> dict:
    """The document, as a dict."""
    structs = sorted({t for op in ops for t in (op.answer, op.body) if t is not None} | {a.ErrorEnvelope},
                     key=lambda t: t.__name__)
    refs, components = msgspec.json.schema_components(structs, ref_template=REF)
    ref = dict(zip(structs, refs))
    paths: dict = {}
    for op in ops:
        item = paths.setdefault(op.path, {})
        params = [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                  for n in ("env", "id") if "{" + n + "}" in op.path]
        params += [{"name": n, "in": "query", "required": False, "schema": s, "description": d}
                   for n, s, d in op.query]
        gated = op.path.startswith(API)
        scope = required_scope(op.method, op.path.replace("{id}", "x").replace("{env}", "x"))
        responses = {str(op.status): {"description": {200: "OK", 201: "Created", 202: "Accepted"}[op.status],
                                      "content": {"application/json": {"schema": ref[op.answer]}}}}
        for status in op.also:
            responses[str(status)] = {"description": "Not ready",
                                      "content": {"application/json": {"schema": ref[op.answer]}}}
        for status in sorted(set(op.errors) | ({401, 403} if gated else set())):
            responses[str(status)] = {"description": STATUS_TEXT[status],
                                      "content": {"application/json": {"schema": ref[a.ErrorEnvelope]}}}
        operation = {
            "operationId": _operation_id(op),
            "summary": op.summary,
            "tags": list(op.tags),
            "parameters": params,
            "responses": responses,
        }
        if gated:
            operation["security"] = [{"apiKey": [scope] if scope else []}]
            if scope:
                operation["description"] = f"Needs the `{scope}` scope when keys are on."
        else:
            operation["security"] = []
        if op.body is not None:
            operation["requestBody"] = {"required": op.body_required,
                                        "content": {"application/json": {"schema": ref[op.body]}}}
        item[op.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Sandworld runtime API",
            "version": __version__,
            "description": "A rollout server for tool-using AI agents. Errors use the envelope "
                           '`{"error": {"code", "message"}}`. Keys are off on loopback by default; '
                           "`sandworld serve --auth keys` turns them on (docs/SECURITY.md).",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "apiKey": {"type": "http", "scheme": "bearer", "bearerFormat": "sw_live_…",
                           "description": "An API key; scopes: " + "; ".join(f"`{s}` {w}" for s, w in SCOPES.items())},
            },
        },
    }


def _operation_id(op: Op) -> str:
    words = [("by_" + w.strip("{}")) if w.startswith("{") else w.replace("-", "_").replace(".", "_")
             for w in op.path.replace(API, "").split("/") if w]
    return op.method.lower() + "_" + "_".join(words)
