"""How each real API speaks: its token, its transport parameters, its errors.

The gateway (``gateway.py``) decodes every real API the same way and asks the
address's dialect only what differs between them: where the token may come
from, which query parameters are the transport's, whether unknown arguments
are ignored, and the shape of an error (refused before a tool ran, no such
method, or the tool's own refusal). A new real API is a new ``Dialect``, not
a branch in the gateway.
"""

from __future__ import annotations

import base64
import binascii
import re

import orjson
from starlette.responses import Response

from .. import errors
from . import shapes

_JSON = "application/json"
GITHUB_DOCS = "https://docs.github.com/rest"


def json(body, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type=_JSON)


def bearer(request_headers, schemes: tuple = ("bearer",)) -> str | None:
    """The token of an ``Authorization: <scheme> <token>`` header, for one of ``schemes``."""
    auth = request_headers.get("authorization", "")
    scheme, _, value = auth.partition(" ")
    if scheme.lower() not in schemes:
        return None
    return value.strip() or None


class Dialect:
    """The Google APIs' (Gmail, Calendar): ``Authorization: Bearer``, JSON bodies,
    ``{"error": {"code", "message", "status", "errors"}}``."""

    token_schemes = ("bearer",)
    token_field = False  # Slack also takes the token as a form field or query parameter
    loose_forms = False  # a body that looks like a form is one, whatever its content-type says
    ignores_unknown = False  # arguments a method does not take are dropped, not refused
    nested_forms = False  # Stripe's items[0][price]=… query and form fields (brackets.py)
    idempotency_header = False  # Stripe's Idempotency-Key header, passed to the tool as idempotency_key
    # Google's standard query parameters: about the transport, not the method.
    transport = frozenset({"alt", "prettyPrint", "fields", "key", "quotaUser", "userIp", "access_token",
                           "oauth_token", "callback", "uploadType", "upload_protocol", "$.xgafv"})
    # A tool's refusal code -> (HTTP status, Google status, reason), as the Google APIs answer it.
    statuses = {
        "not_found": (404, "NOT_FOUND", "notFound"),
        "forbidden": (403, "PERMISSION_DENIED", "forbidden"),
        "invalid_argument": (400, "INVALID_ARGUMENT", "invalidArgument"),
        "invalid_arguments": (400, "INVALID_ARGUMENT", "invalidArgument"),
        "bad_request": (400, "INVALID_ARGUMENT", "badRequest"),
        "rate_limited": (429, "RESOURCE_EXHAUSTED", "rateLimitExceeded"),
        "timeout": (503, "UNAVAILABLE", "backendError"),
        "server_error": (500, "INTERNAL", "backendError"),
        "internal_error": (500, "INTERNAL", "backendError"),
    }

    def token(self, request_headers) -> str | None:
        """The run's token, as this API's clients send it."""
        return bearer(request_headers, self.token_schemes)

    def refused(self, e: errors.ApiError) -> Response:
        """Refused before any tool ran (token, ended run): 001's envelope."""
        return json(shapes.error(e), e.status)

    def no_route(self, message: str) -> Response:
        return self._error(404, "NOT_FOUND", "notFound", message)

    def answer(self, answer: dict, address=None) -> Response:
        """A step's answer in the real API's shape (``address``: the route it came by)."""
        if answer.get("ok"):
            return json(answer["result"])
        err = answer.get("error") or {}
        code, message = err.get("code", "error"), err.get("message", "")
        status, gstatus, reason = self.statuses.get(code, (400, "FAILED_PRECONDITION", code))
        return self._error(status, gstatus, reason, message)

    @staticmethod
    def _error(status: int, gstatus: str, reason: str, message: str) -> Response:
        return json({"error": {"code": status, "message": message, "status": gstatus,
                               "errors": [{"message": message, "domain": "global", "reason": reason}]}}, status)


class Slack(Dialect):
    """Slack's Web API: the token as a bearer or a ``token`` field, JSON or form
    bodies, unknown arguments ignored, HTTP 200 ``{"ok": false, "error": name}``."""

    token_field = True
    loose_forms = True
    ignores_unknown = True
    transport = frozenset()
    _names = {"unauthorized": "invalid_auth", "episode_closed": "run_ended", "step_limit": "run_ended",
              "not_found": "invalid_auth"}

    def refused(self, e: errors.ApiError) -> Response:
        return json({"ok": False, "error": self._names.get(e.code, e.code)}, e.status)

    def no_route(self, message: str) -> Response:
        return json({"ok": False, "error": "unknown_method"}, 404)

    def answer(self, answer: dict, address=None) -> Response:
        if answer.get("ok"):
            return json(answer["result"])
        err = answer.get("error") or {}
        return json({"ok": False, "error": err.get("code", "error"), "detail": err.get("message", "")})


class GitHub(Dialect):
    """GitHub's REST API: ``Authorization: Bearer`` or ``token``, unknown
    parameters ignored, ``{"message", "documentation_url", "status"}`` errors
    with the status as text, as api.github.com answers them."""

    token_schemes = ("bearer", "token")
    ignores_unknown = True
    transport = frozenset()
    # Codes the engine answers for any world -> GitHub's status. A codehost tool's
    # own refusal carries GitHub's body already (message, documentation_url, status).
    statuses = {"not_found": 404, "forbidden": 403, "invalid_arguments": 422, "validation_failed": 422,
                "rate_limited": 429, "timeout": 503, "server_error": 500, "internal_error": 500}

    def refused(self, e: errors.ApiError) -> Response:
        message = "Bad credentials" if e.status == 401 else e.message
        return self._github(e.status, message)

    def no_route(self, message: str) -> Response:
        return self._github(404, "Not Found")

    def answer(self, answer: dict, address=None) -> Response:
        if answer.get("ok"):
            return json(answer["result"])
        err = dict(answer.get("error") or {})
        code = err.pop("code", "error")
        status = err.get("status")
        status = int(status) if isinstance(status, str) and status.isdigit() else self.statuses.get(code, 400)
        body = {"message": err.pop("message", ""), "documentation_url": err.pop("documentation_url", GITHUB_DOCS),
                **err, "status": str(status)}
        return json(body, status)

    @staticmethod
    def _github(status: int, message: str) -> Response:
        return json({"message": message, "documentation_url": GITHUB_DOCS, "status": str(status)}, status)


class Jira(Dialect):
    """Jira Cloud's REST API: the API token by HTTP Basic (``email:token``, as the
    SDKs send it) or ``Bearer``; unknown parameters ignored; success as 200, 201
    or 204 by operation; errors ``{"errorMessages": [...], "errors": {field: message}}``
    with Jira's status (404 for an issue the user may not see)."""

    token_schemes = ("bearer", "basic")
    ignores_unknown = True
    transport = frozenset()
    statuses = {"not_found": 404, "forbidden": 403, "unauthorized": 401, "invalid_arguments": 400,
                "bad_request": 400, "rate_limited": 429, "timeout": 504, "server_error": 500, "internal_error": 500}

    def token(self, request_headers) -> str | None:
        auth = request_headers.get("authorization", "")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() != "basic":
            return bearer(request_headers, ("bearer",))
        try:  # email:api-token; the token is the run's
            _user, _, secret = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return secret or None

    def refused(self, e: errors.ApiError) -> Response:
        message = ("You are not authenticated. Authentication required to perform this operation."
                   if e.status == 401 else e.message)
        return self._jira(e.status, [message], {})

    def no_route(self, message: str) -> Response:
        return self._jira(404, [f"null for uri: {message}"], {})

    def answer(self, answer: dict, address=None) -> Response:
        if answer.get("ok"):
            status = address.ok_status if address is not None else 200
            if status == 204 or answer.get("result") is None:  # POST /issueLink: 201 with no body
                return Response(status_code=status)
            return json(answer["result"], status)
        err = answer.get("error") or {}
        status = err.get("status")
        if not isinstance(status, int):
            status = self.statuses.get(err.get("code", ""), 400)
        messages = err.get("errorMessages")
        fields = err.get("errors")
        if not isinstance(messages, list) or not isinstance(fields, dict):  # an engine refusal, not the tool's
            messages, fields = [err.get("message", "")], {}
        return self._jira(status, messages, fields)

    @staticmethod
    def _jira(status: int, messages: list, fields: dict) -> Response:
        return json({"errorMessages": messages, "errors": fields}, status)


class Zendesk(Dialect):
    """Zendesk Support's REST API: an OAuth ``Bearer`` token or Basic
    ``{email}/token:{token}``, unknown parameters ignored, and its error bodies:
    ``{"error": "RecordNotFound", "description": "Not found"}`` (404),
    ``RecordInvalid`` with ``details`` (422), ``{"error": "Couldn't authenticate
    you"}`` (401); a created ticket answers 201 (its address's ``ok_status``)."""

    ignores_unknown = True
    transport = frozenset()
    # A refusal code -> (status, Zendesk's error name, its description). A helpdesk tool's
    # own refusal carries Zendesk's error and description already.
    statuses = {"not_found": (404, "RecordNotFound", "Not found"),
                "invalid": (422, "RecordInvalid", "Record validation errors"),
                "invalid_arguments": (422, "RecordInvalid", "Record validation errors"),
                "forbidden": (403, "Forbidden", "You do not have access to this page."),
                "rate_limited": (429, "APIRateLimitExceeded", "Rate limit exceeded"),
                "timeout": (504, "GatewayTimeout", "The request timed out"),
                "server_error": (500, "InternalServerError", "Something went wrong"),
                "internal_error": (500, "InternalServerError", "Something went wrong")}

    def token(self, request_headers) -> str | None:
        auth = request_headers.get("authorization", "")
        scheme, _, value = auth.partition(" ")
        if scheme.lower() != "basic":
            return bearer(request_headers, ("bearer",))
        try:  # zenpy's email + API token: "{email}/token:{token}"
            user, _, secret = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return (secret or None) if user.endswith("/token") else None

    def refused(self, e: errors.ApiError) -> Response:
        if e.status == 401:
            return json({"error": "Couldn't authenticate you"}, 401)
        name = {404: "RecordNotFound", 409: "Conflict", 429: "APIRateLimitExceeded"}.get(e.status, "InvalidRequest")
        return json({"error": name, "description": e.message}, e.status)

    def no_route(self, message: str) -> Response:
        return json({"error": "InvalidEndpoint", "description": "Not found"}, 404)

    def answer(self, answer: dict, address=None) -> Response:
        if answer.get("ok"):
            return json(answer["result"], address.ok_status if address is not None else 200)
        err = answer.get("error") or {}
        status, name, description = self.statuses.get(err.get("code"), (400, "InvalidRequest", "Bad request"))
        body = {"error": err.get("error", name), "description": err.get("description", description)}
        if "details" in err:
            body["details"] = err["details"]
        elif status == 422:
            body["details"] = {"base": [{"description": err.get("message", ""), "error": "InvalidValue"}]}
        response = json(body, status)
        if "retry_after" in err:
            response.headers["retry-after"] = str(err["retry_after"])
        return response


class Stripe(Dialect):
    """Stripe's API: ``Authorization: Bearer`` with the key, form bodies in bracket syntax, unknown parameters refused, the
    ``Idempotency-Key`` header, and ``{"error": {"type", "code", "message",
    "param"}}`` with Stripe's statuses (402 for a card error)."""

    nested_forms = True
    idempotency_header = True
    transport = frozenset()
    # Codes the engine answers for any world -> (status, Stripe's type, Stripe's code).
    statuses = {"not_found": (404, "invalid_request_error", "resource_missing"),
                "invalid_arguments": (400, "invalid_request_error", "parameter_invalid"),
                "rate_limited": (429, "invalid_request_error", "rate_limit"),
                "timeout": (500, "api_error", None), "server_error": (500, "api_error", None),
                "internal_error": (500, "api_error", None)}

    def refused(self, e: errors.ApiError) -> Response:
        if e.status == 401:
            return self._stripe(401, {"type": "invalid_request_error", "message": "Invalid API Key provided."})
        return self._stripe(e.status, {"type": "invalid_request_error", "code": e.code, "message": e.message})

    def no_route(self, message: str) -> Response:
        return self._stripe(404, {"type": "invalid_request_error", "message": f"Unrecognized request URL: {message}."})

    def answer(self, answer: dict, address=None) -> Response:
        if answer.get("ok"):
            return json(answer["result"])
        err = dict(answer.get("error") or {})
        code, message = err.pop("code", "error"), err.pop("message", "")
        status = err.pop("status", None)
        if not isinstance(status, int):  # refused by the engine, not by the tool: Stripe's words for it
            status, kind, stripe_code = self.statuses.get(code, (400, "invalid_request_error", code))
            err.setdefault("type", kind)
            code = stripe_code
            if answer.get("error", {}).get("code") == "invalid_arguments":
                code, err["param"] = _stripe_param(message)
        kind = err.pop("type", "invalid_request_error")
        body = {"code": code} if code is not None else {}
        if "decline_code" in err:
            body["decline_code"] = err.pop("decline_code")
        body["message"] = message
        if err.get("param") is not None:
            body["param"] = err.pop("param")
        body = {**body, "type": kind, **{k: v for k, v in err.items() if k != "param"}}  # Stripe's key order
        return self._stripe(status, body)

    @staticmethod
    def _stripe(status: int, error: dict) -> Response:
        return json({"error": error}, status)


def _stripe_param(message: str) -> tuple:
    """``(code, param)`` of an arguments error, in Stripe's words: ``items[0][price]`` for ``$.items[0].price``."""
    unknown = re.search(r"unknown field `([^`]*)`", message)
    at = re.search(r"at `\$((?:\.[A-Za-z_0-9]+|\[\d+\])*)`", message)
    path = at.group(1) if at else ""
    parts = re.findall(r"\.([A-Za-z_0-9]+)|\[(\d+)\]", path)
    names = [a or b for a, b in parts]
    if unknown:
        names.append(unknown.group(1))
    param = (names[0] + "".join(f"[{n}]" for n in names[1:])) if names else None
    missing = "missing required field" in message.lower()
    return ("parameter_unknown" if unknown else "parameter_missing" if missing else "parameter_invalid"), param


GOOGLE, SLACK, GITHUB, JIRA, STRIPE, ZENDESK = Dialect(), Slack(), GitHub(), Jira(), Stripe(), Zendesk()


def of_path(path: str) -> Dialect:
    """The dialect of a path under tools_url, routed or not (an unknown path still
    answers in its host's shape)."""
    host = path.split("/", 1)[0]
    if host.endswith(".atlassian.net"):
        return JIRA
    if host.endswith(".zendesk.com"):
        return ZENDESK
    return {"slack.com": SLACK, "api.github.com": GITHUB, "api.stripe.com": STRIPE}.get(host, GOOGLE)
