"""``Reply``: what a service operation answers, already encoded."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Reply:
    """An operation's answer as JSON bytes, and two facts a door may show:
    ``created`` (HTTP answers 201) and ``replayed`` (an idempotency key's
    first answer, given again)."""

    body: bytes
    created: bool = False
    replayed: bool = False
