"""Tracker's tool arguments: Jira's request parameters and bodies, as types.

Names are Jira's (``issueIdOrKey``, ``jql``, ``startAt``, ``maxResults``,
``fields``, ``transition``, ``update``, ``accountId``...). Objects that
name another record take Jira's forms: ``{"key": "API-101"}`` or
``{"id": "10001"}`` for an issue or project, ``{"name": "High"}`` for a
priority, version, component or resolution. Text (a description, a comment)
is Atlassian Document Format or, as API v2 takes it, a plain string.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

Key = Annotated[str, Meta(min_length=1, max_length=40, description="An issue key (API-123) or numeric id.")]
ProjectKey = Annotated[str, Meta(min_length=1, max_length=40, description="A project key (API) or numeric id.")]
StartAt = Annotated[int, Meta(ge=0, le=100_000, description="Index of the first item to return (0-based).")]
Text = Annotated[dict[str, Any] | str, Meta(description="An Atlassian Document Format doc, or plain text.")]
Doc = Annotated[dict[str, Any], Meta(description='An Atlassian Document Format doc, as API v3 takes text: {"type": '
                                                 '"doc", "version": 1, "content": [{"type": "paragraph", "content": '
                                                 '[{"type": "text", "text": "..."}]}]}.')]
FieldList = Annotated[list[str], Meta(description="Fields to return (*all for every field); in a query string, "
                                                  "comma-separated.")]
Id = int | str  # Jira takes ids as numbers or strings


class _S(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, omit_defaults=True):
    pass


class Ref(_S):
    """A record named by key, id or name."""

    key: str | None = None
    id: Id | None = None
    name: str | None = None


class UserRef(_S):
    accountId: Annotated[str, Meta(description="The user's account id; null to unassign.")] | None = None


class Visibility(_S):
    type: Annotated[str, Meta(description="role or group")]
    value: Annotated[str, Meta(description="The role (Developers, Administrators) or group that may see it.")]


class IssueFields(_S):
    """Fields of an issue, as POST and PUT /rest/api/3/issue take them."""

    project: Annotated[Ref, Meta(description="The project: {key} or {id}. Required to create.")] | None = None
    issuetype: Annotated[Ref, Meta(description="Epic, Story, Task, Bug or Sub-task: {name} or {id}. "
                                                "Required to create.")] | None = None
    summary: Annotated[str, Meta(max_length=255, description="Required to create.")] | None = None
    description: Text | None = None
    priority: Annotated[Ref, Meta(description="{name}: Highest, High, Medium, Low or Lowest.")] | None = None
    labels: Annotated[list[str], Meta(description="Labels (no spaces); replaces the issue's labels.")] | None = None
    components: Annotated[list[Ref], Meta(description="The project's components, by {name} or {id}.")] | None = None
    fixVersions: Annotated[list[Ref], Meta(description="The project's versions, by {name} or {id}.")] | None = None
    assignee: UserRef | None = None
    reporter: UserRef | None = None
    parent: Annotated[Ref, Meta(description="An epic (for a story, task or bug) or the issue a sub-task belongs "
                                            "to: {key}.")] | None = None
    duedate: Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$")] | None = None
    customfield_10016: Annotated[float, Meta(ge=0, le=1000, description="Story Points.")] | None = None
    customfield_10020: Annotated[int, Meta(description="Sprint: a sprint id.")] | None = None


class Operation(_S):
    """One edit of a list field or a comment: ``{"add": value}``, ``{"remove": value}`` or ``{"set": value}``."""

    add: Any = None
    remove: Any = None
    set: Any = None


Update = Annotated[dict[str, list[Operation]],
                   Meta(description='Edits by field: {"labels": [{"add": "x"}], "comment": [{"add": {"body": ...}}]}.')]
