"""Every error the client raises, in one place.

``SandworldError`` is the root. A server answer in the error envelope
``{"error": {"code", "message", ...}}`` becomes the ``ApiError`` subclass of its
code (``NotFound``, ``EpisodeClosed``, ``RateLimited``…), carrying the code, the
HTTP status, the message and any extra fields the server sent. Failing to reach
the server at all is a ``TransportError``.

A tool that refuses a call is not an error: that is a step result with
``ok: false``, returned as data exactly as the server sends it.
"""

from __future__ import annotations

import builtins


class SandworldError(Exception):
    """The root of every error this package raises."""

    code = "sandworld_error"

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


# -- the server said no ------------------------------------------------------------------


class ApiError(SandworldError):
    """The server answered with its error envelope.

    ``code`` is the server's code, ``status`` the HTTP status, ``details`` every
    other field of the envelope (``retry_after``, ``failure_kind``, ``issues``…).
    ``attempts`` counts the requests made, retries included.
    """

    code = "api_error"
    status: int | None = None

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None,
                 details: dict | None = None, headers: dict | None = None, attempts: int = 1):
        super().__init__(message, code=code)
        if status is not None:
            self.status = status
        self.details = details or {}
        self.headers = headers or {}
        self.attempts = attempts

    def __str__(self) -> str:
        return f"{self.code} ({self.status}): {self.message}"


class InvalidJson(ApiError, ValueError):
    code, status = "invalid_json", 400


class InvalidRequest(ApiError, ValueError):
    code, status = "invalid_request", 400


class Unauthorized(ApiError):
    code, status = "unauthorized", 401


class Forbidden(ApiError, PermissionError):
    """403: the API key lacks the scope the route needs (the message names it)."""

    code, status = "insufficient_scope", 403


class NotFound(ApiError, LookupError):
    code, status = "not_found", 404


class MethodNotAllowed(ApiError):
    code, status = "method_not_allowed", 405


class Conflict(ApiError):
    """A 409 whose code this client does not know by name."""

    code, status = "conflict", 409


class EpisodeClosed(Conflict):
    code = "episode_closed"


class StepLimit(Conflict):
    code = "step_limit"


class IdempotencyKeyReused(Conflict):
    """The same ``Idempotency-Key`` was sent before with a different body."""

    code = "idempotency_key_reused"


class IdempotencyInProgress(Conflict):
    """A request with this ``Idempotency-Key`` is still running on the server."""

    code = "idempotency_in_progress"


class PayloadTooLarge(ApiError):
    code, status = "payload_too_large", 413


class RateLimited(ApiError):
    """429: ``retry_after`` is the server's ``retry-after``, in seconds."""

    code, status = "rate_limited", 429

    @property
    def retry_after(self) -> float | None:
        value = self.headers.get("retry-after", self.details.get("retry_after"))
        try:
            return float(value) if value is not None else None
        except (TypeError, ValueError):
            return None


class VerifierUnavailable(ApiError):
    """503: the verifier could not score the episode. The sample is not the
    agent's fault: drop it (``mask_sample``), or retry the submit."""

    code, status = "verifier_unavailable", 503

    @property
    def mask_sample(self) -> bool:
        return bool(self.details.get("mask_sample", True))

    @property
    def failure_kind(self) -> str:
        return self.details.get("failure_kind", "infra")


class UserSimulatorUnavailable(ApiError):
    """503: the llm user simulator could not answer ``ask_user``; retry the call."""

    code, status = "user_simulator_unavailable", 503


class ServiceUnavailable(ApiError):
    """A 503 whose code this client does not know by name."""

    code, status = "service_unavailable", 503


class InternalError(ApiError):
    code, status = "internal_error", 500


# -- the server could not be reached, or answered something unreadable --------------------


class TransportError(SandworldError):
    """The request did not get an answer (connection refused, reset, timed out)
    after every retry. ``maybe_applied`` is true when the request may have
    reached the server before the failure, so its effect is unknown."""

    code = "transport_error"

    def __init__(self, message: str, *, maybe_applied: bool = False, attempts: int = 1):
        super().__init__(message)
        self.maybe_applied = maybe_applied
        self.attempts = attempts


class ShardDown(TransportError):
    """The shard that holds the episode does not answer, and its cluster lists
    it as down: its node is gone and Ray has not brought it back (with
    per-node storage it waits for its node). ``shard`` names it."""

    code = "shard_down"

    def __init__(self, message: str, *, shard: int, maybe_applied: bool = False, attempts: int = 1):
        super().__init__(message, maybe_applied=maybe_applied, attempts=attempts)
        self.shard = shard


class RequestTimeout(TransportError, builtins.TimeoutError):
    code = "timeout"


class ProtocolError(SandworldError):
    """The server answered something this client cannot read (not JSON, or not
    the shape of the route)."""

    code = "protocol_error"


class SignalsUnavailable(SandworldError):
    """Signals were asked for but the server's answers carry none."""

    code = "signals_unavailable"


_BY_CODE = {
    cls.code: cls
    for cls in (
        InvalidJson, InvalidRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, EpisodeClosed, StepLimit,
        IdempotencyKeyReused, IdempotencyInProgress, PayloadTooLarge, RateLimited, VerifierUnavailable,
        UserSimulatorUnavailable, InternalError,
    )
}
_BY_STATUS = {403: Forbidden, 409: Conflict, 429: RateLimited, 503: ServiceUnavailable}


def from_envelope(status: int, body, headers: dict | None = None, attempts: int = 1) -> ApiError:
    """The typed error for an error answer: by its code, else by its status."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ApiError(f"HTTP {status} without the error envelope: {str(body)[:200]}",
                        code=f"http_{status}", status=status, headers=headers, attempts=attempts)
    code = str(err.get("code") or f"http_{status}")
    message = str(err.get("message") or "")
    details = {k: v for k, v in err.items() if k not in ("code", "message")}
    cls = _BY_CODE.get(code) or _BY_STATUS.get(status) or ApiError
    return cls(message, code=code, status=status, details=details, headers=headers, attempts=attempts)


def from_slot(error: dict) -> ApiError:
    """The typed error for one failed slot of a batch answer (no HTTP status of its own)."""
    code = str(error.get("code") or "api_error")
    cls = _BY_CODE.get(code, ApiError)
    details = {k: v for k, v in error.items() if k not in ("code", "message")}
    return cls(str(error.get("message") or ""), code=code, status=getattr(cls, "status", None), details=details)
