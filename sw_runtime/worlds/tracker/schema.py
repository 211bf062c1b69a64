"""Tracker's state schema: the records its tools read and write, as types.

Every field is required (null where a field allows it), so a valid custom
seed is stored as given. Times are Jira's (``2026-06-12T14:03:00.000+0000``);
issues are keyed by key, users by account id, projects by key.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path
from .workflows import ISSUE_TYPES, LINK_TYPES, PRIORITIES, RESOLUTIONS, SECURITY_LEVELS, STATUS_ORDER

Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$")]
Name = Annotated[str, Meta(min_length=1, max_length=255)]
Status = Literal[tuple(s for flow in STATUS_ORDER.values() for s in flow)]  # type: ignore[valid-type]


class Component(Record):
    id: str
    name: Name
    lead: str


class Project(Record):
    jira_id: str
    key: Annotated[str, Meta(pattern=r"^[A-Z][A-Z0-9]{1,9}$")]
    name: Name
    lead: str
    projectTypeKey: Literal["software"]
    workflow: Literal["software", "service"]
    components: list[Component]
    counter: Annotated[int, Meta(ge=0, le=998)]


class User(Record):
    accountId: str
    displayName: Name
    emailAddress: str
    active: bool
    timeZone: str
    accountType: Literal["atlassian", "app"]


class Version(Record):
    id: str
    project: str
    name: Name
    released: bool
    releaseDate: Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$")]
    archived: bool


class Board(Record):
    id: str
    name: Name
    type: Literal["scrum", "kanban"]
    project: str


class Sprint(Record):
    id: str
    name: Name
    state: Literal["future", "active", "closed"]
    board: str
    startDate: Time
    endDate: Time
    completeDate: Time | None
    goal: str


class IssueRecord(Record):
    jira_id: str
    key: Annotated[str, Meta(pattern=r"^[A-Z][A-Z0-9]{1,9}-[1-9][0-9]{2}$")]
    project: str
    issuetype: Literal[tuple(ISSUE_TYPES)]  # type: ignore[valid-type]
    summary: Name
    description: str | None
    status: Status
    resolution: Literal[tuple(RESOLUTIONS)] | None  # type: ignore[valid-type]
    priority: Literal[PRIORITIES]  # type: ignore[valid-type]
    labels: list[str]
    components: list[str]
    fixVersions: list[str]
    assignee: str | None
    reporter: str
    parent: str | None
    sprint: str | None
    story_points: float | None
    security: Literal[tuple(SECURITY_LEVELS)] | None  # type: ignore[valid-type]
    watchers: list[str]
    created: Time
    updated: Time
    resolutiondate: Time | None
    duedate: str | None


class Comment(Record):
    id: str
    issue: str
    author: str
    body: str
    visibility: dict[str, Any] | None
    created: Time


class Link(Record):
    id: str
    type: Literal[tuple(LINK_TYPES)]  # type: ignore[valid-type]
    inward: str
    outward: str


class Worklog(Record):
    id: str
    issue: str
    author: str
    timeSpentSeconds: Annotated[int, Meta(ge=60)]
    started: str
    comment: str | None
    created: Time


def rules(state: dict):
    """What the tools rely on beyond each record's type: keys, references and workflows agree."""
    projects, issues, users = state.get("projects", {}), state.get("issues", {}), state.get("users", {})
    for key, i in issues.items():
        path = record_path("issues", key)
        if i["key"] != key:
            yield Issue(f"{path}.key", f"an issue is keyed by its key; this one says {i['key']!r}")
        p = projects.get(i["project"])
        if p is None:
            yield Issue(f"{path}.project", f"no project {i['project']!r}")
            continue
        if not key.startswith(p["key"] + "-") or int(key.split("-")[1]) > max(p["counter"], 101):
            yield Issue(f"{path}.key", f"{key} is not a key of {p['key']} up to its counter {p['counter']}")
        if i["status"] not in STATUS_ORDER[p["workflow"]]:
            yield Issue(f"{path}.status", f"{i['status']!r} is not a status of the {p['workflow']} workflow")
        for field in ("assignee", "reporter"):
            if i[field] is not None and i[field] not in users:
                yield Issue(f"{path}.{field}", f"no user {i[field]!r}")
        for ref in ("parent",):
            if i[ref] is not None and i[ref] not in issues:
                yield Issue(f"{path}.{ref}", f"no issue {i[ref]!r}")
        if i["sprint"] is not None and i["sprint"] not in state.get("sprints", {}):
            yield Issue(f"{path}.sprint", f"no sprint {i['sprint']!r}")
    for coll in ("comments", "worklogs"):
        for rid, r in state.get(coll, {}).items():
            if r["issue"] not in issues:
                yield Issue(f"{record_path(coll, rid)}.issue", f"no issue {r['issue']!r}")
    for rid, link in state.get("links", {}).items():
        for end in ("inward", "outward"):
            if link[end] not in issues:
                yield Issue(f"{record_path('links', rid)}.{end}", f"no issue {link[end]!r}")
    for bid, b in state.get("boards", {}).items():
        if b["project"] not in projects:
            yield Issue(f"{record_path('boards', bid)}.project", f"no project {b['project']!r}")


SCHEMA = StateSchema(
    records={"projects": Project, "users": User, "versions": Version, "boards": Board, "sprints": Sprint,
             "issues": IssueRecord, "comments": Comment, "links": Link, "worklogs": Worklog},
    required=("projects", "users"),
    rules=rules,
)
