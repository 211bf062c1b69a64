"""Tasks: what the user wants done in a world, and how it is checked.

A task is written against the seeded start state: ``setup(store)`` reads that
state and returns the instruction, the checks and the reference solution for
this seed, so every seed stays solvable while its numbers and names change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Setup:
    """A task made concrete for one seeded start state."""

    instruction: str
    checks: list  # verify.checks.Check structs
    solution: list  # [(tool, arguments), ...] that passes every check
    output: str = ""  # the reference final answer, sent at submit
    hidden_facts: dict = field(default_factory=dict)  # topic -> answer, for ask_user
    persona: str = ""


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    setup: Callable  # (Store) -> Setup
    policy: str = ""  # task-specific rules, appended to the world's policy
    step_budget: int = 20
    refusal: bool = False  # the right answer is to decline (policy forbids it)
    tags: tuple = ()


def only(items: list, what: str, world: str):
    """The one item of ``items``. A task's cast finds each part it plays by
    content; a state with none or several cannot set the task up (a custom
    seed gets this message back, naming what it lacks)."""
    if len(items) != 1:
        raise ValueError(f"{world} state: expected exactly one {what}, found {len(items)}")
    return items[0]
