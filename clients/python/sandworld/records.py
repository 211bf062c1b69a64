"""What the server answers, as dicts you can also read by attribute.

Answers stay the server's JSON objects (``obs["instruction"]`` works, new
server fields come through untouched); these subclasses add attribute access
(``obs.instruction``) and a few derived properties. ``pass`` is a Python
keyword, so an evaluation's verdict is also ``ev.passed``.
"""

from __future__ import annotations


class Record(dict):
    """A server answer: a plain ``dict`` whose keys read as attributes too."""

    __slots__ = ()

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}") from None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({dict.__repr__(self)})"


class Observation(Record):
    """A started episode: ``episode_id``, ``instruction``, ``policy``, ``tools``
    (``{name, description, parameters}``), ``seed_digest``, ``step_limit``…"""

    __slots__ = ()

    @property
    def training(self) -> bool:
        """Created with signals or a fault profile: kept out of evaluations."""
        if "training" in self:
            return bool(self["training"])
        return bool(self.get("signals")) or self.get("fault_profile") is not None


class StepResult(Record):
    """One answered call: ``step, tool, ok, result | error, at`` and, on a
    training episode, ``signals``. In a batch answer it also has ``episode_id``."""

    __slots__ = ()

    @property
    def signals(self) -> dict | None:
        return self.get("signals")

    @property
    def error(self) -> dict | None:
        return self.get("error")

    @property
    def result(self):
        return self.get("result")


class Evaluation(Record):
    """What submit answers: ``pass, score, steps, write_steps, tool_errors,
    checks, failure_kind, mask_sample, state_diff, digest``."""

    __slots__ = ()

    @property
    def passed(self) -> bool | None:
        return self.get("pass")

    @property
    def checks(self) -> list:
        return self.get("checks") or []

    @property
    def failed_checks(self) -> list:
        return [c for c in self.checks if c.get("pass") is not True]
