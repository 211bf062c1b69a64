"""Codehost's state schema: GitHub's records as types, which custom seeds are parsed with.

A custom seed replaces the whole default world (reference 003): send every
repository, user and label your agent will need.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from ..state_schema import Issue, Record, StateSchema, record_path

Time = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", description="e.g. 2026-05-04T10:00:00Z")]
Sha = Annotated[str, Meta(pattern=r"^[0-9a-f]{40}$")]
Full = Annotated[str, Meta(pattern=r"^[a-z0-9][a-z0-9_.-]*/[a-z0-9_.-]+$", description="owner/repo, lowercase")]


class User(Record):
    login: str
    id: int
    type: Literal["User", "Bot", "Organization"]
    site_admin: bool


class Team(Record):
    org: str
    slug: str
    name: str
    members: list[str]


class Owner(Record):
    login: str
    type: Literal["User", "Organization"]


class Repo(Record):
    id: int
    name: str
    full_name: Full
    owner: Owner
    private: bool
    description: str | None
    default_branch: str
    html_url: str
    created_at: Time
    topics: list[str]
    has_issues: bool
    allow_squash_merge: bool
    allow_merge_commit: bool
    allow_rebase_merge: bool


class Branch(Record):
    repo: Full
    name: str
    sha: Sha
    protected: bool


class FileChange(Record):
    filename: str
    status: Literal["added", "modified", "removed", "renamed"]
    additions: Annotated[int, Meta(ge=0)]
    deletions: Annotated[int, Meta(ge=0)]
    patch: str


class Author(Record):
    login: str
    date: Time


class Commit(Record):
    repo: Full
    sha: Sha
    message: str
    parents: list[Sha]
    author: Author
    tree: dict[str, Sha]  # path -> blob sha
    files: list[FileChange]


class Blob(Record):
    repo: Full
    sha: Sha
    content: str


class Label(Record):
    id: int
    repo: Full
    name: str
    color: str
    description: str | None


class _Numbered(Record):
    """What an issue and a pull request share: GitHub numbers both in one sequence per repository."""

    id: int
    repo: Full
    number: Annotated[int, Meta(ge=1)]
    title: str
    body: str
    user: str
    state: Literal["open", "closed"]


class IssueRecord(_Numbered):
    state_reason: Literal["completed", "not_planned", "reopened"] | None
    labels: list[str]
    assignees: list[str]
    comments: Annotated[int, Meta(ge=0)]
    created_at: Time
    updated_at: Time
    closed_at: Time | None


class Comment(Record):
    id: int
    repo: Full
    issue_number: int
    user: str
    body: str
    created_at: Time


class Ref(Record):
    ref: str
    sha: Sha


class Pull(_Numbered):
    draft: bool
    merged: bool
    merged_at: Time | None
    merge_commit_sha: Sha | None
    head: Ref
    base: Ref
    labels: list[str]
    requested_reviewers: list[str]
    created_at: Time
    updated_at: Time
    files: list[FileChange]
    commits: int


class ReviewComment(Record):
    path: str
    line: int | None
    body: str


class Review(Record):
    id: int
    repo: Full
    pull_number: int
    user: str
    state: Literal["APPROVED", "CHANGES_REQUESTED", "COMMENTED"]
    body: str
    commit_id: Sha
    submitted_at: Time
    comments: list[ReviewComment]


class CheckOutput(Record):
    title: str
    summary: str


class CheckRun(Record):
    id: int
    repo: Full
    name: str
    head_sha: Sha
    status: Literal["queued", "in_progress", "completed"]
    conclusion: Literal["success", "failure", "neutral", "cancelled", "skipped", "timed_out"] | None
    started_at: Time
    completed_at: Time | None
    output: CheckOutput


def _rules(state) -> list:
    issues = []
    repos = state.get("repos", {})
    for name in ("branches", "issues", "pulls", "labels", "commits"):
        for rid, rec in state.get(name, {}).items():
            if rec["repo"] not in repos:
                issues.append(Issue(record_path(name, rid) + ".repo", f"names no repository in repos ({rec['repo']})"))
    for rid, rec in repos.items():
        if rid != rec["full_name"]:
            issues.append(Issue(record_path("repos", rid), f"a repository's key is its full_name, {rec['full_name']!r}"))
    for rid, b in state.get("branches", {}).items():
        if f"{b['repo']}:{b['sha']}" not in state.get("commits", {}):
            issues.append(Issue(record_path("branches", rid) + ".sha", "names no commit in commits"))
    return issues


SCHEMA = StateSchema(
    records={"users": User, "teams": Team, "repos": Repo, "branches": Branch, "commits": Commit, "blobs": Blob,
             "labels": Label, "issues": IssueRecord, "comments": Comment, "pulls": Pull, "reviews": Review,
             "check_runs": CheckRun},
    required=("repos",),
    rules=_rules,
)
