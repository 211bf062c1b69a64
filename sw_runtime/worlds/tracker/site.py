"""Tracker's site tools: who and what the site holds, and Jira Software's boards and sprints.

Server info, the current user, fields and link types are what Jira's SDKs
ask for when they connect (pycontribs' ``JIRA()`` reads serverInfo, then
``field`` before a search); projects with their components and versions;
user search; and the agile API's boards, sprints and moving issues into a
sprint (``/rest/agile/1.0``).
"""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from ..tool import NoArgs, tool
from . import rules as R, views as V
from .args import FieldList, ProjectKey, StartAt, _S
from .workflows import BASE, LINK_TYPES, SPRINT, STORY_POINTS


@tool(writes=False, params=NoArgs, name="jira.getServerInfo")
def server_info(ctx, args):
    """Get the site's server info (GET /rest/api/3/serverInfo): baseUrl, version, deploymentType Cloud."""
    return {"baseUrl": BASE, "version": "1001.0.0-SNAPSHOT", "versionNumbers": [1001, 0, 0],
            "deploymentType": "Cloud", "buildNumber": 100286, "buildDate": "2026-06-01T00:00:00.000+0000",
            "serverTime": R.now(ctx), "scmInfo": "5b7c8e0d", "serverTitle": "Kestrel Software"}


@tool(writes=False, params=NoArgs, name="jira.getCurrentUser", pure=True, reads=("users",))
def myself(ctx, args):
    """Get the current user, the agent's own account (GET /rest/api/3/myself)."""
    return V.user(ctx.store, R.me())


_SYSTEM = (("summary", "Summary", "string"), ("description", "Description", "string"),
           ("issuetype", "Issue Type", "issuetype"), ("project", "Project", "project"), ("status", "Status", "status"),
           ("resolution", "Resolution", "resolution"), ("priority", "Priority", "priority"),
           ("labels", "Labels", "array"), ("components", "Components", "array"),
           ("fixVersions", "Fix versions", "array"), ("assignee", "Assignee", "user"), ("reporter", "Reporter", "user"),
           ("parent", "Parent", "issuelink"), ("created", "Created", "datetime"), ("updated", "Updated", "datetime"),
           ("resolutiondate", "Resolved", "datetime"), ("duedate", "Due date", "date"),
           ("issuelinks", "Linked Issues", "array"), ("security", "Security Level", "securitylevel"),
           ("comment", "Comment", "comments-page"), ("worklog", "Log Work", "array"))
_CLAUSES = {"issuetype": ["issuetype", "type"], "fixVersions": ["fixVersion"], "components": ["component"],
            "resolutiondate": ["resolved", "resolutiondate"], "security": ["level"], "worklog": []}


@tool(writes=False, params=NoArgs, name="jira.getFields")
def get_fields(ctx, args):
    """Get the site's fields (GET /rest/api/3/field): system fields and the custom fields Story Points
    (customfield_10016) and Sprint (customfield_10020), each with the JQL clause names that search it."""
    out = [{"id": fid, "key": fid, "name": name, "custom": False, "orderable": True, "navigable": True,
            "searchable": True, "clauseNames": _CLAUSES.get(fid, [fid]), "schema": {"type": kind, "system": fid}}
           for fid, name, kind in _SYSTEM]
    out.append({"id": STORY_POINTS, "key": STORY_POINTS, "name": "Story Points", "custom": True, "orderable": True,
                "navigable": True, "searchable": True, "clauseNames": ["cf[10016]", "Story Points"],
                "schema": {"type": "number", "custom": "com.atlassian.jira.plugin.system.customfieldtypes:float",
                           "customId": 10016}})
    out.append({"id": SPRINT, "key": SPRINT, "name": "Sprint", "custom": True, "orderable": True, "navigable": True,
                "searchable": True, "clauseNames": ["cf[10020]", "Sprint", "sprint"],
                "schema": {"type": "array", "items": "json",
                           "custom": "com.pyxis.greenhopper.jira:gh-sprint", "customId": 10020}})
    return out


@tool(writes=False, params=NoArgs, name="jira.getIssueLinkTypes")
def link_types(ctx, args):
    """Get the issue link types (GET /rest/api/3/issueLinkType): Blocks, Duplicate, Relates with their inward and
    outward descriptions."""
    return {"issueLinkTypes": [{"id": tid, "name": n, "inward": i, "outward": o, "self": f"{V.API3}/issueLinkType/{tid}"}
                               for n, (tid, i, o) in LINK_TYPES.items()]}


def _project(store, key: str) -> dict:
    p = store.get("projects", key.upper())
    if p is None:
        p = next((r for _, r in store.scan("projects", {"jira_id": key})), None)
    if p is None:
        raise V.refuse(404, f"No project could be found with key '{key}'.")
    return p


def _components(store, p: dict) -> list:
    return [{"self": f"{V.API3}/component/{c['id']}", "id": c["id"], "name": c["name"],
             "lead": V.user(store, c["lead"]), "project": p["key"], "projectId": int(p["jira_id"])} for c in p["components"]]


def _versions(store, p: dict) -> list:
    return [V.version(v, p) for _, v in store.scan("versions", {"project": p["key"]})]


class ProjectsArgs(_S):
    expand: str | None = None


@tool(writes=False, params=ProjectsArgs, name="jira.getAllProjects", pure=True, reads=("projects", "users"))
def all_projects(ctx, args):
    """Get all projects the agent can see (GET /rest/api/3/project)."""
    return [{**V.project_ref(p), "lead": V.user(ctx.store, p["lead"])} for _, p in ctx.store.scan("projects")]


class ProjectArgs(_S):
    projectIdOrKey: ProjectKey
    expand: str | None = None


@tool(writes=False, params=ProjectArgs, name="jira.getProject", pure=True,
      reads=("projects", "users", "versions"))
def get_project(ctx, args):
    """Get a project (GET /rest/api/3/project/{projectIdOrKey}): its lead, components (each with its lead, who owns
    the component's issues), versions and issue types."""
    p = _project(ctx.store, args.projectIdOrKey)
    types = [V.issuetype(n) for n in ("Epic", "Story", "Task", "Bug", "Sub-task")]
    return {**V.project_ref(p), "description": f"{p['name']} at Kestrel Software.", "lead": V.user(ctx.store, p["lead"]),
            "components": _components(ctx.store, p), "versions": _versions(ctx.store, p), "issueTypes": types,
            "assigneeType": "PROJECT_LEAD", "style": "classic", "simplified": False}


@tool(writes=False, params=ProjectArgs, name="jira.getProjectVersions", pure=True,
      reads=("projects", "versions"))
def project_versions(ctx, args):
    """Get a project's versions (GET /rest/api/3/project/{projectIdOrKey}/versions): name, released, releaseDate."""
    return _versions(ctx.store, _project(ctx.store, args.projectIdOrKey))


@tool(writes=False, params=ProjectArgs, name="jira.getProjectComponents", pure=True,
      reads=("projects", "users"))
def project_components(ctx, args):
    """Get a project's components (GET /rest/api/3/project/{projectIdOrKey}/components), each with its lead."""
    return _components(ctx.store, _project(ctx.store, args.projectIdOrKey))


class UserSearchArgs(_S):
    query: Annotated[str, Meta(max_length=200, description="Matched against the start of each word of display "
                                                           "names and against email addresses.")] | None = None
    accountId: str | None = None
    startAt: StartAt = 0
    maxResults: Annotated[int, Meta(ge=0, le=1000)] = 50


@tool(writes=False, params=UserSearchArgs, name="jira.findUsers")
def find_users(ctx, args):
    """Find users (GET /rest/api/3/user/search) by `query` (name or email) or `accountId`. Answers a list."""
    if not args.query and not args.accountId:
        raise V.refuse(400, "The query parameter 'query' or 'accountId' is required.")
    out = []
    for aid, u in ctx.store.scan("users"):
        if args.accountId and aid != args.accountId:
            continue
        if args.query:
            q = args.query.lower().split()
            words = u["displayName"].lower().split()
            by_name = all(any(w.startswith(part) for w in words) for part in q)
            if not (by_name or u["emailAddress"].lower().startswith(args.query.lower())):
                continue
        out.append(V.user(ctx.store, aid))
    return out[args.startAt:args.startAt + args.maxResults]


# -- agile -----------------------------------------------------------------------------------------------------------


class BoardsArgs(_S):
    startAt: StartAt = 0
    maxResults: Annotated[int, Meta(ge=0, le=50)] = 50
    type: Annotated[str, Meta(description="scrum or kanban")] | None = None
    name: str | None = None
    projectKeyOrId: str | None = None


def _board(b: dict, store) -> dict:
    p = store.get("projects", b["project"])
    return {"id": int(b["id"]), "self": f"{V.AGILE}/board/{b['id']}", "name": b["name"], "type": b["type"],
            "location": {"projectId": int(p["jira_id"]), "projectKey": p["key"], "projectName": p["name"],
                         "displayName": f"{p['name']} ({p['key']})", "projectTypeKey": "software"}}


@tool(writes=False, params=BoardsArgs, name="jira.getAllBoards", pure=True, reads=("boards", "projects"))
def all_boards(ctx, args):
    """Get all boards (GET /rest/agile/1.0/board), by type, name or project."""
    rows = []
    for _, b in ctx.store.scan("boards"):
        p = ctx.store.get("projects", b["project"])
        if args.type and b["type"] != args.type or args.name and args.name.lower() not in b["name"].lower():
            continue
        if args.projectKeyOrId and args.projectKeyOrId.upper() not in (p["key"], p["jira_id"]):
            continue
        rows.append(_board(b, ctx.store))
    page = rows[args.startAt:args.startAt + args.maxResults]
    return {"maxResults": args.maxResults, "startAt": args.startAt, "total": len(rows),
            "isLast": args.startAt + len(page) >= len(rows), "values": page}


class SprintsArgs(_S):
    boardId: Annotated[int, Meta(ge=1)]
    state: Annotated[str, Meta(description="future, active or closed; several comma-separated.")] | None = None
    startAt: StartAt = 0
    maxResults: Annotated[int, Meta(ge=0, le=50)] = 50


@tool(writes=False, params=SprintsArgs, name="jira.getAllSprints", pure=True, reads=("boards", "sprints"))
def all_sprints(ctx, args):
    """Get a board's sprints (GET /rest/agile/1.0/board/{boardId}/sprint): name, state, dates and goal (the goal
    says the sprint's capacity in story points)."""
    b = ctx.store.get("boards", str(args.boardId))
    if b is None:
        raise V.refuse(404, f"Board with id {args.boardId} does not exist or you do not have permission to see it.")
    if b["type"] != "scrum":
        raise V.refuse(400, "The board does not support sprints")
    states = [s.strip() for s in (args.state or "").split(",") if s.strip()]
    rows = [V.sprint(s) for _, s in ctx.store.scan("sprints", {"board": b["id"]}) if not states or s["state"] in states]
    page = rows[args.startAt:args.startAt + args.maxResults]
    return {"maxResults": args.maxResults, "startAt": args.startAt, "isLast": args.startAt + len(page) >= len(rows),
            "values": page}


class SprintIssuesArgs(_S):
    sprintId: Annotated[int, Meta(ge=1)]
    jql: Annotated[str, Meta(max_length=4000, description="Further filter the sprint's issues with JQL.")] | None = None
    startAt: StartAt = 0
    maxResults: Annotated[int, Meta(ge=0, le=100)] = 50
    fields: FieldList | None = None


def _sprint(store, sid: int) -> dict:
    s = store.get("sprints", str(sid))
    if s is None:
        raise V.refuse(404, f"Sprint with id {sid} does not exist or you do not have permission to see it.")
    return s


@tool(writes=False, params=SprintIssuesArgs, name="jira.getIssuesForSprint")
def sprint_issues(ctx, args):
    """Get a sprint's issues (GET /rest/agile/1.0/sprint/{sprintId}/issue), optionally filtered by `jql`."""
    s = _sprint(ctx.store, args.sprintId)
    found = [i for i in R.search(ctx, args.jql or "") if i["sprint"] == s["id"]]
    page = found[args.startAt:args.startAt + args.maxResults]
    want = R.field_list(args.fields)
    return {"expand": "schema,names", "startAt": args.startAt, "maxResults": args.maxResults, "total": len(found),
            "issues": [V.issue(ctx.store, i, want, R.me()) for i in page]}


class MoveArgs(_S):
    sprintId: Annotated[int, Meta(ge=1)]
    issues: Annotated[list[str], Meta(min_length=1, max_length=50, description="Issue keys or ids (at most 50).")]


@tool(writes=True, params=MoveArgs, name="jira.moveIssuesToSprintAndRank")
def move_to_sprint(ctx, args):
    """Move issues to a sprint (POST /rest/agile/1.0/sprint/{sprintId}/issue), out of the backlog or another sprint.
    Only an open (active or future) sprint takes issues, and only issues of its board's project. Answers 204."""
    s = _sprint(ctx.store, args.sprintId)
    if s["state"] == "closed":
        raise V.refuse(400, "Cannot move issues to a closed sprint.")
    project = ctx.store.get("boards", s["board"])["project"]
    found = [R.visible(ctx.store, k) for k in args.issues]
    for i in found:
        if i["project"] != project:
            raise V.refuse(400, f"Issue {i['key']} is not on the board of sprint {s['name']}.")
    at = R.now(ctx)
    for i in found:
        ctx.store.update("issues", i["key"], {"sprint": s["id"], "updated": at})
    return None


TOOLS = [server_info, myself, get_fields, link_types, all_projects, get_project, project_versions,
         project_components, find_users, all_boards, all_sprints, sprint_issues, move_to_sprint]
