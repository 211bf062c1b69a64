"""Every error the API answers, in one place.

``ApiError`` is the root; each subclass fixes a code and an HTTP status. The
HTTP layer turns any of them into the envelope ``{"error": {"code", "message"}}``
(plus any extra fields) in one place. A tool that refuses a call is not an
error here: that is an ``ok: false`` result.
"""

from __future__ import annotations


class ApiError(Exception):
    code = "internal_error"
    status = 500

    def __init__(self, message: str, *, headers: dict | None = None, **extra):
        super().__init__(message)
        self.message = message
        self.headers = headers or {}
        self.extra = extra

    def envelope(self) -> dict:
        err = {"code": self.code, "message": self.message}
        err.update(self.extra)
        return {"error": err}

    def slot(self) -> dict:
        """The error as it stands in one slot of a batch answer."""
        err = {"code": self.code, "message": self.message}
        err.update(self.extra)
        return err


class InvalidJson(ApiError):
    code, status = "invalid_json", 400


class InvalidRequest(ApiError):
    code, status = "invalid_request", 400


class InvalidSeed(ApiError):
    """``/seeds/validate`` on a state the world's parser refuses (reference 003): with ``issues``."""

    code, status = "invalid_seed", 422


class EmptyCriteria(ApiError):
    """An episode or run asked for with nothing to check (reference 003): never graded."""

    code, status = "empty_criteria", 422


class Unauthorized(ApiError):
    code, status = "unauthorized", 401


class Forbidden(ApiError):
    """A valid API key without the scope a route needs (docs/SECURITY.md lists the scopes)."""

    code, status = "insufficient_scope", 403


class ForbiddenHost(ApiError):
    """A ``Host`` this server does not answer to (DNS rebinding: security/browser.py)."""

    code, status = "forbidden_host", 403


class CrossOrigin(ApiError):
    """A write sent by a web page of another origin (CSRF: security/browser.py)."""

    code, status = "cross_origin", 403


class UnsupportedMediaType(ApiError):
    code, status = "unsupported_media_type", 415


class NotFound(ApiError):
    code, status = "not_found", 404


class MethodNotAllowed(ApiError):
    code, status = "method_not_allowed", 405


class EpisodeClosed(ApiError):
    code, status = "episode_closed", 409


class EpisodeSubmitting(ApiError):
    code, status = "episode_submitting", 409


class StepLimit(ApiError):
    code, status = "step_limit", 409


class IdempotencyKeyReused(ApiError):
    code, status = "idempotency_key_reused", 409


class IdempotencyInProgress(ApiError):
    code, status = "idempotency_in_progress", 409


class RunEnded(ApiError):
    """A run (reference 001) has ended: its tools no longer answer, and it cannot be finished again."""

    code, status = "run_ended", 409


class BatchPartlyApplied(ApiError):
    """A keyed ``/batch`` that a crash cut off: its first ``applied`` calls ran (and are kept), the rest not."""

    code, status = "batch_partly_applied", 409


class IdempotencyConflict(ApiError):
    """Reference 001's body ``idempotency_key`` sent again with another body."""

    code, status = "idempotency_conflict", 409


class RequestTimeout(ApiError):
    code, status = "request_timeout", 408  # sent by the connection itself (api/protocol.py)


class HeadersTooLarge(ApiError):
    code, status = "headers_too_large", 431  # sent by the connection itself (api/protocol.py)


class PayloadTooLarge(ApiError):
    code, status = "payload_too_large", 413


class RateLimited(ApiError):
    code, status = "rate_limited", 429

    def __init__(self, message: str, *, retry_after: int = 1, **extra):
        super().__init__(message, headers={"retry-after": str(retry_after)}, retry_after=retry_after, **extra)


class VerifierUnavailable(ApiError):
    code, status = "verifier_unavailable", 503

    def __init__(self, message: str, **extra):
        super().__init__(message, failure_kind="infra", mask_sample=True, **extra)


class UserSimulatorUnavailable(ApiError):
    code, status = "user_simulator_unavailable", 503


class StorageUnavailable(ApiError):
    """The action log cannot be written (a full disk): nothing the request did was kept."""

    code, status = "storage_unavailable", 503

    def __init__(self, message: str, *, retry_after: int = 5, **extra):
        super().__init__(message, headers={"retry-after": str(retry_after)}, retry_after=retry_after, **extra)


class ShardDraining(ApiError):
    """This shard of a cluster is draining: it takes no new episodes (start
    them on another shard; ``GET /cluster`` lists which serve)."""

    code, status = "shard_draining", 503


class InternalError(ApiError):
    code, status = "internal_error", 500
