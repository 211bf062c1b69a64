"""The gate: an ASGI middleware that admits each request before any route runs.

In order: the client IP's bucket, the key (``--auth keys``), the route's
scope, the key's bucket. It leaves the caller's ``Principal`` in the ASGI
scope (``principal_of(request)``) for the doors to hand to the service,
which decides what that caller may see. It answers 401, 403 and 429 itself,
in the error envelope, and adds the ``RateLimit-*`` headers to every answer
when limits are on.

Health, readiness, metrics and the OpenAPI document are open to every
caller and never limited: probes and scrapers must not lock themselves out.

The viewer's pages (``/ui/``) take the key from the HttpOnly cookie its login
form sets (``UI_COOKIE``), never from a header, and only there: the API's
routes never read the cookie, so a page elsewhere cannot make a browser write
through it. A page without a valid key is sent to the login form; the scopes
are the API's (the episode pages need ``episodes:read``).
"""

from __future__ import annotations

import re

import orjson
from starlette.responses import Response

from urllib.parse import quote

from .. import errors
from . import limits
from .scopes import EVERYONE, Principal, required_scope

OPEN_PATHS = frozenset({"/", "/ui", "/healthz", "/readyz", "/metrics", "/openapi.json"})  # /ui: to /ui/
# Authenticated but never charged: reading what is left of one's limits must
# not spend them, nor be refused when they are spent (GitHub's /rate_limit).
UNCHARGED_PATHS = frozenset({"/api/v1/limits"})
# A run's or an episode's tools (the real APIs' addresses, MCP) answer to that
# run's own token, which the service checks: no API key there (reference 001).
TOKEN_PATHS = re.compile(r"/(v1/runs/[^/]+/tools/|api/v1/episodes/[^/]+/(tools/|mcp/?$))")
PRINCIPAL = "sw.principal"
UI = "/ui/"
UI_COOKIE = "sw_ui_key"
UI_LOGIN = "/ui/login"
UI_OPEN = (UI_LOGIN, "/ui/static/")  # the login form and the CSS and JS it needs


def principal_of(request) -> Principal:
    """The caller of a request, as the gate admitted it (everyone when keys are off)."""
    return request.scope.get(PRINCIPAL, EVERYONE)


def project_of(request) -> str | None:
    """The caller's project, which the service checks on every lookup (None: keys off, every project)."""
    return request.scope.get(PRINCIPAL, EVERYONE).project


def _refusal(err: errors.ApiError) -> Response:
    return Response(orjson.dumps(err.envelope()), status_code=err.status, media_type="application/json",
                    headers=err.headers)


class Gate:
    """``Gate(app, keys=KeyStore | None, limiter=Limiter | None)``: keys None means auth is off."""

    def __init__(self, app, keys=None, limiter: limits.Limiter | None = None):
        self.app = app
        self.keys = keys
        self.limiter = limiter if limiter is not None and limiter.on else None

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        limiter = self.limiter
        buckets = []
        try:
            cost = 0 if scope["path"] in UNCHARGED_PATHS else 1
            if limiter is not None:
                client = scope.get("client")
                buckets = limiter.buckets(client[0] if client else None, None)
                limiter.charge(buckets, cost)
            principal = EVERYONE
            if self.keys is not None and scope["path"].startswith(UI):
                if not scope["path"].startswith(UI_OPEN):
                    principal = self._ui_principal(scope)
                    if principal is None:
                        return await _to_login(scope, receive, send)
                    need = required_scope(scope["method"], scope["path"])
                    if need is not None and need not in principal.scopes:
                        raise errors.Forbidden(f"this key lacks the {need} scope that this page needs; log in "
                                               f"with a key that has it ({UI_LOGIN})")
            elif self.keys is not None and not TOKEN_PATHS.match(scope["path"]):
                principal = self._authenticate(scope)
                need = required_scope(scope["method"], scope["path"])
                if need is not None and need not in principal.scopes:
                    raise errors.Forbidden(
                        f"this key lacks the {need} scope that {scope['method']} {scope['path']} needs; "
                        f"it has {', '.join(sorted(principal.scopes))}. Make a key with it: "
                        f"sandworld keys create --project {principal.project} --scopes {need},…"
                    )
                if limiter is not None:
                    mine = limiter.buckets(None, principal.key_id)
                    buckets += mine  # before the charge: a refusal by the key's bucket carries its headers
                    limiter.charge(mine, cost)
        except errors.ApiError as e:
            response = _refusal(e)
            if buckets:
                response.raw_headers.extend(limits.headers(buckets))
            return await response(scope, receive, send)
        scope[PRINCIPAL] = principal
        if not buckets:
            return await self.app(scope, receive, send)
        scope["sw.buckets"] = buckets

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", ())) + limits.headers(buckets)
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _ui_principal(self, scope) -> Principal | None:
        """The caller of a page, from the login cookie (None: no cookie, or a key no longer valid)."""
        for name, value in scope["headers"]:
            if name == b"cookie":
                for part in value.decode("latin-1").split(";"):
                    key, _, secret = part.strip().partition("=")
                    if key == UI_COOKIE and secret:
                        return self.keys.authenticate(secret)
        return None

    def _authenticate(self, scope) -> Principal:
        token = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, token = value.decode("latin-1").partition(" ")
                if scheme.lower() != "bearer":
                    token = None
                break
        if not token:
            raise errors.Unauthorized(
                "this server needs an API key: send `Authorization: Bearer sw_live_…` "
                "(the Python client reads SANDWORLD_API_KEY); make one with `sandworld keys create`",
                headers={"www-authenticate": 'Bearer realm="sandworld"'},
            )
        principal = self.keys.authenticate(token.strip())
        if principal is None:
            raise errors.Unauthorized(
                "this API key is unknown or revoked; ask for a new one (`sandworld keys create`)",
                headers={"www-authenticate": 'Bearer realm="sandworld", error="invalid_token"'},
            )
        return principal


async def _to_login(scope, receive, send) -> None:
    """Send a page's caller to the login form, to come back to the page after."""
    back = scope["path"] + ("?" + scope["query_string"].decode("latin-1") if scope.get("query_string") else "")
    response = Response(status_code=303, headers={"location": f"{UI_LOGIN}?next={quote(back, safe='')}",
                                                  "cache-control": "no-store"})
    await response(scope, receive, send)
