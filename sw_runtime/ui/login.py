"""Logging in to the viewer under ``--auth keys``: a form that sets an HttpOnly cookie.

The cookie holds the API key itself, so a page sees what that key sees
through the API, with its scopes and its project, and revoking the key ends
the session. It is ``HttpOnly`` (no script reads it), ``SameSite=Strict``
(no other site's page sends it) and scoped to ``/ui``; ``Secure`` when the
page came over HTTPS. The gate (``security/gate.py``) reads it on ``/ui/``
paths only. With keys off there is nothing to log in to.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse
from starlette.routing import Route

from ..security.gate import UI_COOKIE, UI_LOGIN
from .templating import page

MAX_FORM = 4096  # bytes: a key and a page address
HOME = "/ui/episodes"


def _back_to(target: str | None) -> str:
    """Where to go after logging in: a viewer page, never another site."""
    if target and target.startswith("/ui/") and not target.startswith("//") and "\\" not in target:
        return target
    return HOME


def routes(layer) -> list:
    async def form(request: Request):
        if layer.keys is None:
            return RedirectResponse(HOME, 303)
        return page(request, "login.html", next=_back_to(request.query_params.get("next")), failed=False,
                    project=None, auth=True)

    async def submit(request: Request):
        if layer.keys is None:
            return RedirectResponse(HOME, 303)
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM:
                break
        fields = parse_qs(body[:MAX_FORM].decode("utf-8", "replace"))
        key = (fields.get("key") or [""])[0].strip()
        target = _back_to((fields.get("next") or [None])[0])
        if not key or layer.keys.authenticate(key) is None:
            return page(request, "login.html", 401, next=target, failed=True, project=None, auth=True)
        response = RedirectResponse(target, 303)
        response.set_cookie(UI_COOKIE, key, httponly=True, samesite="strict", path="/ui",
                            secure=request.url.scheme == "https")
        return response

    async def logout(request: Request):
        response = RedirectResponse(UI_LOGIN if layer.keys is not None else HOME, 303)
        response.delete_cookie(UI_COOKIE, path="/ui", httponly=True, samesite="strict")
        return response

    return [
        Route(UI_LOGIN, form, methods=["GET"]),
        Route(UI_LOGIN, submit, methods=["POST"]),
        Route("/ui/logout", logout, methods=["POST"]),
    ]
