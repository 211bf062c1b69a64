"""The viewer's templates and static files, both shipped inside the package.

Pages are Jinja2 templates rendered on the server (Starlette's
``Jinja2Templates``) with autoescape on for every template: whatever an
agent or a world put in a value (a tool argument holding ``<script>``) is
shown as text. Nothing is fetched from elsewhere: the CSS and the few lines
of JavaScript that refresh a page are served from ``static/`` under
``/ui/static``, so the viewer works on a network with no internet.
"""

from __future__ import annotations

import orjson
from jinja2 import ChainableUndefined, Environment, PackageLoader
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

STATIC = "/ui/static"
FOLD = 600  # characters of a result shown before it is folded


def pretty(value) -> str:
    """A JSON value indented for reading (keys kept in the order they came)."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def short(value, most: int = 120) -> str:
    """A JSON value on one line, cut to ``most`` characters."""
    text = orjson.dumps(value).decode() if not isinstance(value, str) else value
    return text if len(text) <= most else text[:most - 1] + "…"


def pct(value) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def num(value, spec: str = ".2f") -> str:
    return "–" if value is None else format(value, spec)


def interval(ci, scale: float = 1.0, spec: str = ".0f") -> str:
    return "–" if ci is None else f"{format(scale * ci[0], spec)}–{format(scale * ci[1], spec)}"


def _environment() -> Environment:
    env = Environment(loader=PackageLoader("sw_runtime.ui", "templates"), autoescape=True,
                      undefined=ChainableUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pretty=pretty, short=short, pct=pct, num=num, interval=interval)
    env.globals.update(static=STATIC, fold=FOLD)
    return env


templates = Jinja2Templates(env=_environment())


def static_mount() -> Mount:
    return Mount(STATIC, StaticFiles(packages=[("sw_runtime.ui", "static")]), name="ui-static")


# Defence in depth behind autoescaping: a page runs only the package's own script and
# style, never inline code, and no other site may frame it.
HEADERS = {
    "cache-control": "no-store",  # pages show live episodes
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
                               "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


def page(request, name: str, status: int = 200, **context):
    """A template as an HTML answer, with ``HEADERS``."""
    return templates.TemplateResponse(request, name, context, status_code=status, headers=HEADERS)
