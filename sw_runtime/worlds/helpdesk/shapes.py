"""How helpdesk answers in Zendesk's shapes: its errors, its offset
pagination, and tickets with their sideloads."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from ..tool import Refused
from . import sla
from .records import BASE

PerPage = Annotated[int, Meta(ge=1, le=100, description="Results per page, at most 100 (default 100).")]
Page = Annotated[int, Meta(ge=1, le=10_000, description="Page number, from 1.")]
Id = Annotated[int, Meta(ge=1, le=99_999_999)]


def not_found(what: str) -> Refused:
    """Zendesk's 404: ``{"error": "RecordNotFound", "description": "Not found"}``."""
    return Refused("not_found", f"{what} was not found.", error="RecordNotFound", description="Not found")


def invalid(field: str, description: str) -> Refused:
    """Zendesk's 422: ``RecordInvalid`` with the field's ``details``."""
    return Refused("invalid", f"{field}: {description}", error="RecordInvalid",
                   description="Record validation errors",
                   details={field: [{"description": f"{field.replace('_', ' ').capitalize()}: {description}",
                                     "error": "InvalidValue"}]})


def page(items: list, key: str, path: str, args, query: str = "") -> dict:
    """Zendesk's offset pagination: ``{key: [...], next_page, previous_page, count}``."""
    n, size = getattr(args, "page", 1), getattr(args, "per_page", 100)
    start = (n - 1) * size
    more = f"{query}&" if query else ""

    def url(k: int) -> str:
        return f"{BASE}/{path}?{more}page={k}&per_page={size}"

    return {key: items[start:start + size], "next_page": url(n + 1) if start + size < len(items) else None,
            "previous_page": url(n - 1) if n > 1 else None, "count": len(items)}


def ticket_view(store, ticket: dict, include: str | None = None) -> dict:
    """A ticket as the API answers it, with ``slas`` when ``include`` names it."""
    if include and "slas" in include.split(","):
        return {**ticket, "slas": sla.metrics(store, ticket)}
    return ticket


def now(ctx) -> str:
    return ctx.at[:19] + "Z"
