"""The issues, people, sprints and versions tracker's tasks are about, found by content.

Every role's summary comes from its own pool in ``texts.py`` (the seed picks
one), so a role is the one issue whose summary is in its pool; people are
found by what they do (the account with the look-alike name, the one whose
issues only the departing engineer holds). ``only`` fails loudly on a state
without the role (a custom seed gets told what it lacks).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..task import only
from . import texts as T
from .state import AGENT, BOARDS


def _one(items, what):
    return only(list(items), what, "tracker")


@dataclass(frozen=True)
class Cast:
    store: object
    issues: dict  # key -> issue

    def by_summary(self, pool, what: str) -> dict:
        pool = (pool,) if isinstance(pool, str) else tuple(pool)
        return _one((i for i in self.issues.values() if i["summary"] in pool), what)

    def role(self, name: str) -> dict:
        return self.by_summary(T.ROLE[name], name.replace("_", " ") + " issue")

    def all_of(self, pool) -> list:
        return sorted((i for i in self.issues.values() if i["summary"] in pool), key=_order)

    def sprint(self, project: str, state: str) -> dict:
        return _one((s for _, s in self.store.scan("sprints", {"board": BOARDS[project], "state": state})),
                    f"{state} {project} sprint")

    def version(self, project: str, released: bool, index: int = 0) -> dict:
        vs = sorted((v for _, v in self.store.scan("versions", {"project": project}) if v["released"] == released),
                    key=lambda v: v["releaseDate"])
        return vs[index] if released is False else vs[-1 - index]

    def user(self, account_id: str) -> dict:
        return self.store.get("users", account_id)

    def named(self, name: str) -> dict:
        return _one((u for _, u in self.store.scan("users") if u["displayName"] == name), f"user named {name}")

    @property
    def leaver(self) -> dict:
        return self.user(self.all_of(T.ROLE["leaver"])[0]["assignee"])

    @property
    def lookalike(self) -> dict:
        return self.user(self.all_of(T.ROLE["lookalike"])[0]["assignee"])

    def assigned(self, account_id: str) -> list:
        return sorted((i for i in self.issues.values() if i["assignee"] == account_id), key=_order)

    def mine(self) -> list:
        return self.assigned(AGENT)

    def lead(self, project: str) -> dict:
        return self.user(self.store.get("projects", project)["lead"])


def _order(i: dict):
    return (i["project"], int(i["key"].split("-")[1]))


def cast(store) -> Cast:
    return Cast(store, {k: i for k, i in store.scan("issues")})
