"""Codehost's tools: GitHub's REST operations, by their octokit names.

Parameters carry GitHub's names (``owner``, ``repo``, ``issue_number``,
``pull_number``, ``ref``, ``per_page``...) and results GitHub's shapes. What
GitHub refuses is refused the same way, as ``ok: false`` data: an unknown
repository, issue or file answers GitHub's 404 body (``message: "Not
Found"``, ``documentation_url``, ``status: "404"``), invalid input its 422
(``Validation Failed``), an unmergeable pull request its 405. The agent is the
user ``acme-agent``.
"""

from __future__ import annotations

import base64
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..tool import Refused, tool
from .state import AGENT, sha_of

DOCS = "https://docs.github.com/rest"
Name = Annotated[str, Meta(min_length=1, max_length=100)]
Number = Annotated[int, Meta(ge=1, le=1_000_000)]
PerPage = Annotated[int, Meta(ge=1, le=100, description="Results per page (max 100).")]
Page = Annotated[int, Meta(ge=1, le=10_000, description="Page number of the results.")]


def _not_found(doc: str) -> Refused:
    return Refused("not_found", "Not Found", documentation_url=f"{DOCS}/{doc}", status="404")


def _invalid(message: str, doc: str) -> Refused:
    return Refused("validation_failed", "Validation Failed", errors=[{"message": message}],
                   documentation_url=f"{DOCS}/{doc}", status="422")


def _now(ctx) -> str:
    return ctx.at[:19] + "Z"


class RepoArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    owner: Annotated[Name, Meta(description="The account owner of the repository (not case sensitive).")]
    repo: Annotated[Name, Meta(description="The name of the repository without the .git extension.")]


def _repo(ctx, args, doc="repos/repos#get-a-repository") -> dict:
    full = f"{args.owner}/{args.repo}".lower()
    rec = ctx.store.get("repos", full)
    if rec is None:
        raise _not_found(doc)
    return rec


def _user(login: str) -> dict:
    return {"login": login, "type": "Bot" if login == AGENT else "User",
            "html_url": f"https://github.com/{login}"}


def _page(items: list, args) -> list:
    start = (args.page - 1) * args.per_page
    return items[start:start + args.per_page]


# -- repositories --------------------------------------------------------------------------------------------------


@tool(writes=False, params=RepoArgs, name="repos.get")
def repos_get(ctx, args):
    """Get a repository (GET /repos/{owner}/{repo})."""
    rec = _repo(ctx, args)
    full = rec["full_name"]
    where = {"repo": full, "state": "open"}  # counted inside the state core
    open_issues = ctx.store.count("issues", where) + ctx.store.count("pulls", where)
    return {**rec, "open_issues_count": open_issues}


class ListArgs(RepoArgs, kw_only=True):
    per_page: PerPage = 30
    page: Page = 1


@tool(writes=False, params=ListArgs, name="repos.listBranches")
def repos_list_branches(ctx, args):
    """List branches (GET /repos/{owner}/{repo}/branches)."""
    full = _repo(ctx, args)["full_name"]
    out = [{"name": b["name"], "commit": {"sha": b["sha"]}, "protected": b["protected"]}
           for _, b in ctx.store.scan("branches") if b["repo"] == full]
    return _page(out, args)


def _resolve(ctx, full: str, ref: str | None, doc: str) -> dict:
    """The commit a branch name, sha or sha prefix (7+) names."""
    repo = ctx.store.get("repos", full)
    ref = ref or repo["default_branch"]
    branch = ctx.store.get("branches", f"{full}:{ref}")
    sha = branch["sha"] if branch else ref
    commit = ctx.store.get("commits", f"{full}:{sha}")
    if commit is None and len(sha) >= 7:
        found = [c for _, c in ctx.store.scan("commits") if c["repo"] == full and c["sha"].startswith(sha)]
        commit = found[0] if len(found) == 1 else None
    if commit is None:
        raise Refused("not_found", f"No commit found for the ref {ref}", documentation_url=f"{DOCS}/{doc}",
                      status="404")
    return commit


class ContentArgs(RepoArgs, kw_only=True):
    path: Annotated[str, Meta(max_length=500, description="Path of the file or directory.")] = ""
    ref: Annotated[str, Meta(max_length=100, description="Commit, branch or tag; default: the default branch.")] | None = None


@tool(writes=False, params=ContentArgs, name="repos.getContent")
def repos_get_content(ctx, args):
    """Get repository content (GET /repos/{owner}/{repo}/contents/{path}): a file (base64 content) or a
    directory listing."""
    full = _repo(ctx, args, "repos/contents#get-repository-content")["full_name"]
    commit = _resolve(ctx, full, args.ref, "repos/contents#get-repository-content")
    path = args.path.strip("/")
    blob_sha = commit["tree"].get(path)
    if blob_sha is not None:
        content = ctx.store.get("blobs", f"{full}:{blob_sha}")["content"]
        raw = content.encode()
        return {"type": "file", "encoding": "base64", "size": len(raw), "name": path.rsplit("/", 1)[-1],
                "path": path, "sha": blob_sha, "content": base64.b64encode(raw).decode()}
    prefix = f"{path}/" if path else ""
    entries = {}
    for p, b in sorted(commit["tree"].items()):
        if p.startswith(prefix):
            rest = p[len(prefix):]
            name = rest.split("/", 1)[0]
            kind = "dir" if "/" in rest else "file"
            entries.setdefault(name, {"type": kind, "name": name, "path": prefix + name, "sha": b if kind == "file" else None})
    if not entries:
        raise _not_found("repos/contents#get-repository-content")
    return list(entries.values())


class CommitsArgs(ListArgs, kw_only=True):
    sha: Annotated[str, Meta(max_length=100, description="SHA or branch to start listing commits from.")] | None = None
    path: Annotated[str, Meta(max_length=500, description="Only commits containing this file path.")] | None = None


def _commit_view(c: dict, files: bool = False) -> dict:
    out = {"sha": c["sha"], "commit": {"message": c["message"], "author": {"name": c["author"]["login"],
                                                                            "date": c["author"]["date"]}},
           "author": _user(c["author"]["login"]), "parents": [{"sha": p} for p in c["parents"]]}
    if files:
        out["files"] = [{**f, "changes": f["additions"] + f["deletions"]} for f in c["files"]]
    return out


@tool(writes=False, params=CommitsArgs, name="repos.listCommits")
def repos_list_commits(ctx, args):
    """List commits, newest first, following first parents (GET /repos/{owner}/{repo}/commits)."""
    full = _repo(ctx, args)["full_name"]
    c = _resolve(ctx, full, args.sha, "commits/commits#list-commits")
    out = []
    while c is not None:
        if args.path is None or any(f["filename"] == args.path for f in c["files"]):
            out.append(_commit_view(c))
        c = ctx.store.get("commits", f"{full}:{c['parents'][0]}") if c["parents"] else None
    return _page(out, args)


class RefArgs(RepoArgs, kw_only=True):
    ref: Annotated[str, Meta(min_length=1, max_length=100, description="A commit SHA, branch or tag name.")]


@tool(writes=False, params=RefArgs, name="repos.getCommit")
def repos_get_commit(ctx, args):
    """Get a commit with its changed files and patches (GET /repos/{owner}/{repo}/commits/{ref})."""
    full = _repo(ctx, args)["full_name"]
    return _commit_view(_resolve(ctx, full, args.ref, "commits/commits#get-a-commit"), files=True)


@tool(writes=False, params=RefArgs, name="checks.listForRef")
def checks_list_for_ref(ctx, args):
    """List check runs for a commit SHA, branch or tag (GET /repos/{owner}/{repo}/commits/{ref}/check-runs)."""
    full = _repo(ctx, args)["full_name"]
    sha = _resolve(ctx, full, args.ref, "checks/runs#list-check-runs-for-a-git-reference")["sha"]
    runs = [{k: v for k, v in r.items() if k != "repo"} for _, r in ctx.store.scan("check_runs")
            if r["repo"] == full and r["head_sha"] == sha]
    return {"total_count": len(runs), "check_runs": runs}


# -- issues --------------------------------------------------------------------------------------------------------


def _label_objs(ctx, full: str, names: list) -> list:
    out = []
    for n in names:
        lab = ctx.store.get("labels", f"{full}:{n}")
        out.append({"name": n, "color": lab["color"] if lab else "ededed",
                    "description": lab["description"] if lab else None})
    return out


def _issue_view(ctx, rec: dict) -> dict:
    out = {k: v for k, v in rec.items() if k not in ("repo", "user", "labels", "assignees")}
    out["user"] = _user(rec["user"])
    out["labels"] = _label_objs(ctx, rec["repo"], rec["labels"])
    out["assignees"] = [_user(a) for a in rec["assignees"]]
    out["html_url"] = f"https://github.com/{rec['repo']}/issues/{rec['number']}"
    return out


class IssuesArgs(ListArgs, kw_only=True):
    state: Literal["open", "closed", "all"] = "open"
    labels: Annotated[str, Meta(max_length=500, description="Comma-separated label names.")] | None = None


@tool(writes=False, params=IssuesArgs, name="issues.listForRepo")
def issues_list_for_repo(ctx, args):
    """List repository issues, newest first (GET /repos/{owner}/{repo}/issues). Pull requests are listed by
    pulls.list."""
    full = _repo(ctx, args)["full_name"]
    want = {x.strip() for x in args.labels.split(",") if x.strip()} if args.labels else set()
    out = [i for _, i in ctx.store.scan("issues") if i["repo"] == full
           and (args.state == "all" or i["state"] == args.state) and want <= set(i["labels"])]
    out.sort(key=lambda i: -i["number"])
    return [_issue_view(ctx, i) for i in _page(out, args)]


class IssueArgs(RepoArgs, kw_only=True):
    issue_number: Annotated[Number, Meta(description="The number that identifies the issue.")]


def _numbered(ctx, args, collections: tuple, number: int, doc: str) -> tuple:
    """``(collection, record)`` of ``owner/repo#number`` in the first of
    ``collections`` that holds it (an issue number may name a pull request)."""
    full = _repo(ctx, args, doc)["full_name"]
    for coll in collections:
        rec = ctx.store.get(coll, f"{full}#{number}")
        if rec is not None:
            return coll, rec
    raise _not_found(doc)


def _issue(ctx, args, doc="issues/issues#get-an-issue") -> dict:
    return _numbered(ctx, args, ("issues",), args.issue_number, doc)[1]


@tool(writes=False, params=IssueArgs, name="issues.get")
def issues_get(ctx, args):
    """Get an issue (GET /repos/{owner}/{repo}/issues/{issue_number})."""
    return _issue_view(ctx, _issue(ctx, args))


def _check_labels(ctx, full: str, labels: list, doc: str) -> None:
    for n in labels:
        if ctx.store.get("labels", f"{full}:{n}") is None:
            raise _invalid(f"label {n!r} does not exist in {full}; issues.listLabelsForRepo lists them", doc)


def _check_assignees(ctx, assignees: list, doc: str) -> None:
    for a in assignees:
        if ctx.store.get("users", a) is None:
            raise _invalid(f"{a!r} is not a user who can be assigned", doc)


def _next_number(ctx, full: str) -> int:
    numbers = [r["number"] for c in ("issues", "pulls") for _, r in ctx.store.scan(c) if r["repo"] == full]
    return max(numbers, default=0) + 1


class CreateIssueArgs(RepoArgs, kw_only=True):
    title: Annotated[str, Meta(min_length=1, max_length=256)]
    body: Annotated[str, Meta(max_length=65_536)] | None = None
    labels: Annotated[list[Name], Meta(max_length=20)] = []
    assignees: Annotated[list[Name], Meta(max_length=10)] = []


@tool(writes=True, params=CreateIssueArgs, name="issues.create")
def issues_create(ctx, args):
    """Create an issue (POST /repos/{owner}/{repo}/issues)."""
    doc = "issues/issues#create-an-issue"
    full = _repo(ctx, args, doc)["full_name"]
    _check_labels(ctx, full, args.labels, doc)
    _check_assignees(ctx, args.assignees, doc)
    n = _next_number(ctx, full)
    now = _now(ctx)
    rec = {"id": 5_000_000 + ctx.step, "repo": full, "number": n, "title": args.title, "body": args.body or "",
           "user": AGENT, "state": "open", "state_reason": None, "labels": list(dict.fromkeys(args.labels)),
           "assignees": list(dict.fromkeys(args.assignees)), "comments": 0, "created_at": now, "updated_at": now,
           "closed_at": None}
    ctx.store.insert("issues", f"{full}#{n}", rec)
    return _issue_view(ctx, rec)


class UpdateIssueArgs(IssueArgs, kw_only=True):
    title: Annotated[str, Meta(min_length=1, max_length=256)] | None = None
    body: Annotated[str, Meta(max_length=65_536)] | None = None
    state: Literal["open", "closed"] | None = None
    state_reason: Literal["completed", "not_planned", "reopened"] | None = None
    labels: Annotated[list[Name], Meta(max_length=20)] | None = None
    assignees: Annotated[list[Name], Meta(max_length=10)] | None = None


@tool(writes=True, params=UpdateIssueArgs, name="issues.update")
def issues_update(ctx, args):
    """Update an issue: title, body, state (open/closed) with state_reason, labels, assignees
    (PATCH /repos/{owner}/{repo}/issues/{issue_number})."""
    doc = "issues/issues#update-an-issue"
    rec = _issue(ctx, args, doc)
    up = {}
    for f in ("title", "body"):
        if getattr(args, f) is not None:
            up[f] = getattr(args, f)
    if args.labels is not None:
        _check_labels(ctx, rec["repo"], args.labels, doc)
        up["labels"] = list(dict.fromkeys(args.labels))
    if args.assignees is not None:
        _check_assignees(ctx, args.assignees, doc)
        up["assignees"] = list(dict.fromkeys(args.assignees))
    if args.state is not None and args.state != rec["state"]:
        up["state"] = args.state
        up["closed_at"] = _now(ctx) if args.state == "closed" else None
        up["state_reason"] = args.state_reason or ("completed" if args.state == "closed" else "reopened")
    elif args.state_reason is not None:
        up["state_reason"] = args.state_reason
    up["updated_at"] = _now(ctx)
    return _issue_view(ctx, ctx.store.update("issues", f"{rec['repo']}#{rec['number']}", up))


class LabelsArgs(IssueArgs, kw_only=True):
    labels: Annotated[list[Name], Meta(min_length=1, max_length=20)]


@tool(writes=True, params=LabelsArgs, name="issues.addLabels")
def issues_add_labels(ctx, args):
    """Add labels to an issue or pull request (POST /repos/{owner}/{repo}/issues/{issue_number}/labels);
    answers the labels it now has."""
    doc = "issues/labels#add-labels-to-an-issue"
    coll, rec = _numbered(ctx, args, ("issues", "pulls"), args.issue_number, doc)
    full, key = rec["repo"], f"{rec['repo']}#{rec['number']}"
    _check_labels(ctx, full, args.labels, doc)
    labels = list(dict.fromkeys(rec["labels"] + list(args.labels)))
    ctx.store.update(coll, key, {"labels": labels, "updated_at": _now(ctx)})
    return _label_objs(ctx, full, labels)


@tool(writes=False, params=RepoArgs, name="issues.listLabelsForRepo")
def issues_list_labels(ctx, args):
    """List the labels of a repository (GET /repos/{owner}/{repo}/labels)."""
    full = _repo(ctx, args)["full_name"]
    return [{k: v for k, v in lab.items() if k != "repo"} for _, lab in ctx.store.scan("labels") if lab["repo"] == full]


class CommentArgs(IssueArgs, kw_only=True):
    body: Annotated[str, Meta(min_length=1, max_length=65_536)]


@tool(writes=True, params=CommentArgs, name="issues.createComment")
def issues_create_comment(ctx, args):
    """Comment on an issue or pull request (POST /repos/{owner}/{repo}/issues/{issue_number}/comments)."""
    doc = "issues/comments#create-an-issue-comment"
    coll, rec = _numbered(ctx, args, ("issues", "pulls"), args.issue_number, doc)
    full, key = rec["repo"], f"{rec['repo']}#{rec['number']}"
    cid = 7_000_000 + ctx.step
    now = _now(ctx)
    comment = {"id": cid, "repo": full, "issue_number": args.issue_number, "user": AGENT, "body": args.body,
               "created_at": now}
    ctx.store.insert("comments", f"{full}:{cid}", comment)
    if coll == "issues":
        ctx.store.update("issues", key, {"comments": rec["comments"] + 1, "updated_at": now})
    return {"id": cid, "body": args.body, "user": _user(AGENT), "created_at": now,
            "html_url": f"https://github.com/{full}/issues/{args.issue_number}#issuecomment-{cid}"}


@tool(writes=False, params=IssueArgs, name="issues.listComments")
def issues_list_comments(ctx, args):
    """List the comments on an issue or pull request (GET /repos/{owner}/{repo}/issues/{issue_number}/comments)."""
    full = _repo(ctx, args)["full_name"]
    return [{"id": c["id"], "body": c["body"], "user": _user(c["user"]), "created_at": c["created_at"]}
            for _, c in ctx.store.scan("comments") if c["repo"] == full and c["issue_number"] == args.issue_number]


# -- pull requests -------------------------------------------------------------------------------------------------


def _pull_view(rec: dict, full: bool = True) -> dict:
    out = {k: v for k, v in rec.items() if k not in ("repo", "user", "files", "requested_reviewers")}
    out["user"] = _user(rec["user"])
    out["labels"] = [{"name": n} for n in rec["labels"]]
    out["requested_reviewers"] = [_user(r) for r in rec["requested_reviewers"]]
    out["html_url"] = f"https://github.com/{rec['repo']}/pull/{rec['number']}"
    if full:
        out["additions"] = sum(f["additions"] for f in rec["files"])
        out["deletions"] = sum(f["deletions"] for f in rec["files"])
        out["changed_files"] = len(rec["files"])
        out["mergeable"] = rec["state"] == "open"
    return out


class PullsArgs(ListArgs, kw_only=True):
    state: Literal["open", "closed", "all"] = "open"


@tool(writes=False, params=PullsArgs, name="pulls.list")
def pulls_list(ctx, args):
    """List pull requests, newest first (GET /repos/{owner}/{repo}/pulls)."""
    full = _repo(ctx, args)["full_name"]
    out = [p for _, p in ctx.store.scan("pulls") if p["repo"] == full and (args.state == "all" or p["state"] == args.state)]
    out.sort(key=lambda p: -p["number"])
    return [_pull_view(p, full=False) for p in _page(out, args)]


class PullArgs(RepoArgs, kw_only=True):
    pull_number: Annotated[Number, Meta(description="The number that identifies the pull request.")]


def _pull(ctx, args, doc="pulls/pulls#get-a-pull-request") -> dict:
    return _numbered(ctx, args, ("pulls",), args.pull_number, doc)[1]


@tool(writes=False, params=PullArgs, name="pulls.get")
def pulls_get(ctx, args):
    """Get a pull request (GET /repos/{owner}/{repo}/pulls/{pull_number})."""
    return _pull_view(_pull(ctx, args))


@tool(writes=False, params=PullArgs, name="pulls.listFiles")
def pulls_list_files(ctx, args):
    """List the files a pull request changes, with patches (GET /repos/{owner}/{repo}/pulls/{pull_number}/files)."""
    rec = _pull(ctx, args, "pulls/pulls#list-pull-requests-files")
    return [{"sha": sha_of(f"{rec['head']['sha']}:{f['filename']}"), **f, "changes": f["additions"] + f["deletions"]}
            for f in rec["files"]]


@tool(writes=False, params=PullArgs, name="pulls.listReviews")
def pulls_list_reviews(ctx, args):
    """List the reviews on a pull request (GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews)."""
    rec = _pull(ctx, args, "pulls/reviews#list-reviews-for-a-pull-request")
    return [{k: (v if k != "user" else _user(v)) for k, v in r.items() if k not in ("repo", "pull_number", "comments")}
            for _, r in ctx.store.scan("reviews") if r["repo"] == rec["repo"] and r["pull_number"] == rec["number"]]


class ReviewComment(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    path: Annotated[str, Meta(max_length=500)]
    body: Annotated[str, Meta(min_length=1, max_length=65_536)]
    line: Number | None = None


class ReviewArgs(PullArgs, kw_only=True):
    event: Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"]
    body: Annotated[str, Meta(max_length=65_536)] | None = None
    comments: Annotated[list[ReviewComment], Meta(max_length=50)] = []
    commit_id: Annotated[str, Meta(max_length=40)] | None = None


_REVIEW_STATE = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}


@tool(writes=True, params=ReviewArgs, name="pulls.createReview")
def pulls_create_review(ctx, args):
    """Review a pull request: APPROVE, REQUEST_CHANGES or COMMENT, with a body and line comments on its files
    (POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews)."""
    doc = "pulls/reviews#create-a-review-for-a-pull-request"
    rec = _pull(ctx, args, doc)
    if args.event != "APPROVE" and not (args.body or "").strip():
        raise _invalid(f"a {args.event} review needs a body", doc)
    names = {f["filename"] for f in rec["files"]}
    for c in args.comments:
        if c.path not in names:
            raise _invalid(f"path {c.path!r} is not part of the pull request's diff", doc)
    rid = 8_000_000 + ctx.step
    review = {"id": rid, "repo": rec["repo"], "pull_number": rec["number"], "user": AGENT,
              "state": _REVIEW_STATE[args.event], "body": args.body or "",
              "commit_id": args.commit_id or rec["head"]["sha"], "submitted_at": _now(ctx),
              "comments": [{"path": c.path, "line": c.line, "body": c.body} for c in args.comments]}
    ctx.store.insert("reviews", f"{rec['repo']}:{rid}", review)
    return {k: (v if k != "user" else _user(v)) for k, v in review.items() if k not in ("repo", "comments")}


class ReviewersArgs(PullArgs, kw_only=True):
    reviewers: Annotated[list[Name], Meta(max_length=15)] = []
    team_reviewers: Annotated[list[Name], Meta(max_length=15)] = []


@tool(writes=True, params=ReviewersArgs, name="pulls.requestReviewers")
def pulls_request_reviewers(ctx, args):
    """Request reviews from users (reviewers) or teams (team_reviewers, by slug)
    (POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers)."""
    doc = "pulls/review-requests#request-reviewers-for-a-pull-request"
    rec = _pull(ctx, args, doc)
    wanted = list(args.reviewers)
    for slug in args.team_reviewers:
        team = ctx.store.get("teams", f"acme/{slug}")
        if team is None:
            raise _invalid(f"team {slug!r} does not exist", doc)
        wanted += team["members"]
    if not wanted:
        raise _invalid("give reviewers or team_reviewers", doc)
    _check_assignees(ctx, wanted, doc)
    if rec["user"] in args.reviewers:
        raise _invalid("Review cannot be requested from pull request author.", doc)
    wanted = [w for w in wanted if w != rec["user"]]
    now = list(dict.fromkeys(rec["requested_reviewers"] + wanted))
    rec = ctx.store.update("pulls", f"{rec['repo']}#{rec['number']}", {"requested_reviewers": now})
    return _pull_view(rec)


class MergeArgs(PullArgs, kw_only=True):
    merge_method: Literal["merge", "squash", "rebase"] = "merge"
    commit_title: Annotated[str, Meta(max_length=256)] | None = None
    commit_message: Annotated[str, Meta(max_length=65_536)] | None = None


@tool(writes=True, params=MergeArgs, name="pulls.merge")
def pulls_merge(ctx, args):
    """Merge a pull request into its base branch (PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge)."""
    doc = "pulls/pulls#merge-a-pull-request"
    rec = _pull(ctx, args, doc)
    repo = ctx.store.get("repos", rec["repo"])
    if rec["state"] != "open":
        raise Refused("not_mergeable", "Pull Request is not mergeable", documentation_url=f"{DOCS}/{doc}",
                      status="405")
    if not repo[f"allow_{args.merge_method}_merge" if args.merge_method != "merge" else "allow_merge_commit"]:
        raise Refused("method_not_allowed", f"{args.merge_method.capitalize()} merges are not allowed on this "
                      "repository.", documentation_url=f"{DOCS}/{doc}", status="405")
    base = ctx.store.get("branches", f"{rec['repo']}:{rec['base']['ref']}")
    head = ctx.store.get("commits", f"{rec['repo']}:{rec['head']['sha']}")
    title = args.commit_title or f"{rec['title']} (#{rec['number']})"
    sha = sha_of(f"merge {rec['repo']} {rec['number']} {base['sha']} {args.merge_method}")
    parents = [base["sha"]] if args.merge_method == "squash" else [base["sha"], head["sha"]]
    ctx.store.insert("commits", f"{rec['repo']}:{sha}", {
        "repo": rec["repo"], "sha": sha, "message": title, "parents": parents,
        "author": {"login": AGENT, "date": _now(ctx)}, "tree": dict(head["tree"]), "files": head["files"]})
    ctx.store.update("branches", f"{rec['repo']}:{base['name']}", {"sha": sha})
    ctx.store.update("pulls", f"{rec['repo']}#{rec['number']}", {
        "state": "closed", "merged": True, "merged_at": _now(ctx), "merge_commit_sha": sha, "updated_at": _now(ctx)})
    return {"sha": sha, "merged": True, "message": "Pull Request successfully merged"}


class TeamArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    org: Name
    team_slug: Name


@tool(writes=False, params=TeamArgs, name="teams.listMembersInOrg")
def teams_list_members(ctx, args):
    """List the members of a team (GET /orgs/{org}/teams/{team_slug}/members)."""
    team = ctx.store.get("teams", f"{args.org.lower()}/{args.team_slug}")
    if team is None:
        raise _not_found("teams/members#list-team-members")
    return [_user(m) for m in team["members"]]


TOOLS = [repos_get, repos_list_branches, repos_get_content, repos_list_commits, repos_get_commit, checks_list_for_ref,
         issues_list_for_repo, issues_get, issues_create, issues_update, issues_add_labels, issues_list_labels,
         issues_create_comment, issues_list_comments, pulls_list, pulls_get, pulls_list_files, pulls_list_reviews,
         pulls_create_review, pulls_request_reviewers, pulls_merge, teams_list_members]
