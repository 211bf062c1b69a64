"""What a web page may not do to a server without keys: an ASGI middleware.

Without keys, anything that reaches the socket may call the API, and a web
page the user opens reaches loopback too. Three holes, three checks:

* **DNS rebinding**: a page of ``evil.example`` whose name then resolves to
  127.0.0.1 talks to this server as if same-origin, and reads its answers.
  The request still says ``Host: evil.example``: on a loopback server without
  keys, a ``Host`` that is not a loopback address, ``localhost`` or a name in
  ``SW_ALLOWED_HOSTS`` is refused (403 ``forbidden_host``).
* **Cross-site writes** (CSRF): a page can send a POST anywhere, unread. On a
  server without keys, a write whose ``Origin`` is not this server's own (nor
  an allowed host), or that the browser marks ``Sec-Fetch-Site: cross-site``
  or ``same-site``, is refused (403 ``cross_origin``).
* **Simple requests**: a form or ``text/plain`` body is sent without the
  browser asking first (no CORS preflight). A JSON route takes
  ``application/json`` (or ``…+json``), or no content type at all (a script;
  browsers always name one for a body): anything else is 415
  ``unsupported_media_type``, with keys or without.

The viewer's pages (``/ui/``) take the forms they post, from their own
origin only. The run tools' real-API paths (``/v1/runs/{id}/tools/…``, an episode's
``tools`` and ``mcp``) keep their own content-type rules (Slack's SDK posts
forms) and need the run's token, which a page does not have. Health,
readiness, metrics and the OpenAPI document answer any ``Host`` (probes use
the pod's address). docs/SECURITY.md has the rules and the setting.
"""

from __future__ import annotations

import orjson
from starlette.responses import Response

from .. import errors
from .exposure import is_loopback
from .gate import OPEN_PATHS, TOKEN_PATHS

_READS = frozenset({"GET", "HEAD", "OPTIONS"})
# The viewer's pages (sw_runtime/ui) post HTML forms (its login and logout):
# they take form bodies, and their writes must come from this server's own
# origin with keys on too (a page elsewhere must not log a browser in).
FORM_PATHS = ("/ui/",)


def allowed_hosts(text: str) -> tuple:
    """``SW_ALLOWED_HOSTS`` (comma-separated ``name`` or ``name:port``) as
    (names that match on any port, ``name:port`` pairs that match exactly)."""
    names, exact = set(), set()
    for item in (x.strip().lower() for x in text.split(",")):
        if not item:
            continue
        host, port = _split(item)
        (exact.add(f"{host}:{port}") if port else names.add(host))
    return frozenset(names), frozenset(exact)


def _split(host: str) -> tuple:
    """``host[:port]`` as (host without brackets, port or "")."""
    if host.startswith("["):
        inside, _, rest = host[1:].partition("]")
        return inside, rest.removeprefix(":")
    name, _, port = host.partition(":") if host.count(":") == 1 else (host, "", "")
    return name, port


class BrowserGuard:
    def __init__(self, app, allowed: str = "", keyless: bool = True):
        self.app = app
        self.names, self.exact = allowed_hosts(allowed)
        self.keyless = keyless

    def _allowed(self, host: str) -> bool:
        name, port = _split(host.lower())
        return name in self.names or f"{name}:{port}" in self.exact

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            return await self.app(scope, receive, send)
        try:
            self._check(scope)
        except errors.ApiError as e:
            response = Response(orjson.dumps(e.envelope()), status_code=e.status, media_type="application/json")
            return await response(scope, receive, send)
        await self.app(scope, receive, send)

    def _check(self, scope) -> None:
        headers = {}
        for name, value in scope["headers"]:
            if name in (b"host", b"origin", b"sec-fetch-site", b"content-type"):
                headers[name] = value.decode("latin-1").strip()
        host = headers.get(b"host")
        server = scope.get("server")
        if self.keyless and host and server and is_loopback(server[0]):
            name = _split(host.lower())[0]
            if not (name == "localhost" or is_loopback(name) or self._allowed(host)):
                raise errors.ForbiddenHost(
                    f"this server (on loopback, without keys) does not answer to Host {host!r}: a web page "
                    "that rebinds its name to 127.0.0.1 could drive it. Use 127.0.0.1 or localhost, or add "
                    "the name to SW_ALLOWED_HOSTS (comma-separated)")
        if scope["method"] in _READS:
            return
        form = scope["path"].startswith(FORM_PATHS)
        if self.keyless or form:
            self._same_origin(headers, host)
        kind = headers.get(b"content-type")
        if kind is not None and not form and not TOKEN_PATHS.match(scope["path"]):
            media = kind.partition(";")[0].strip().lower()
            if media != "application/json" and not media.endswith("+json"):
                raise errors.UnsupportedMediaType(
                    f"{scope['method']} {scope['path']} takes a JSON body: send content-type: application/json "
                    f"(got {kind!r}); with curl, add -H 'content-type: application/json'")

    def _same_origin(self, headers: dict, host: str | None) -> None:
        origin = headers.get(b"origin")
        if origin is not None:
            where = origin.partition("://")[2].lower()
            if origin == "null" or not where or (where != (host or "").lower() and not self._allowed(where)):
                raise errors.CrossOrigin(
                    f"a write from the web page of {origin!r} is refused: a server without keys takes writes "
                    "only from its own origin (add the page's host to SW_ALLOWED_HOSTS, or serve with --auth keys)")
            return
        if headers.get(b"sec-fetch-site") in ("cross-site", "same-site"):
            raise errors.CrossOrigin(
                "a write a browser sent from another site is refused: a server without keys takes writes only "
                "from its own origin (add the page's host to SW_ALLOWED_HOSTS, or serve with --auth keys)")
