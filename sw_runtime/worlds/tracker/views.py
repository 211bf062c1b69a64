"""Tracker's records as Jira Cloud's REST API v3 answers them.

The store keeps plain values (a status name, an account id, comment text);
these functions give Jira's objects (``status: {id, name, statusCategory}``,
users with ``accountId``/``displayName``, text as Atlassian Document Format),
with ``self`` links on the real site as Jira gives them. ``refuse`` builds
Jira's error body, ``{"errorMessages": [...], "errors": {field: message}}``.
"""

from __future__ import annotations

from ..tool import Refused
from .workflows import (BASE, CATEGORIES, ISSUE_TYPES, LINK_TYPES, PRIORITIES, RESOLUTIONS, SECURITY_LEVELS, SPRINT,
                        STATUSES, STORY_POINTS)

API3 = f"{BASE}/rest/api/3"
AGILE = f"{BASE}/rest/agile/1.0"


def refuse(status: int, *messages: str, **errors: str) -> Refused:
    """Jira's error: a 400's field errors, or a 404's messages, as ``ok: false`` data."""
    code = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found"}.get(status, "error")
    text = "; ".join([*messages, *(f"{k}: {v}" for k, v in errors.items())])
    return Refused(code, text, errorMessages=list(messages), errors=dict(errors), status=status)


def no_issue() -> Refused:
    return refuse(404, "Issue does not exist or you do not have permission to see it.")


# -- Atlassian Document Format ---------------------------------------------------------------------------------------

def adf(text: str | None) -> dict | None:
    """Plain text as an ADF doc: a paragraph per line, and ``- item`` lines as one bullet list."""
    if text is None:
        return None
    content, bullets = [], []
    for line in text.split("\n"):
        if line.startswith("- "):
            bullets.append({"type": "listItem", "content": [_para(line[2:])]})
            continue
        if bullets:
            content.append({"type": "bulletList", "content": bullets})
            bullets = []
        if line:
            content.append(_para(line))
    if bullets:
        content.append({"type": "bulletList", "content": bullets})
    return {"type": "doc", "version": 1, "content": content}


def _para(text: str) -> dict:
    return {"type": "paragraph", "content": [{"type": "text", "text": text}]}


def plain(doc) -> str:
    """An ADF doc (or a plain string, as API v2 takes) as text: paragraphs on their own lines, list items as ``- ``."""
    if doc is None or isinstance(doc, str):
        return doc or ""
    lines: list = []

    def inline(node) -> str:
        kind = node.get("type")
        if kind == "text":
            return str(node.get("text", ""))
        if kind == "mention":
            return str(node.get("attrs", {}).get("text", ""))
        if kind == "hardBreak":
            return "\n"
        return "".join(inline(c) for c in node.get("content", []) if isinstance(c, dict))

    def block(node, prefix: str) -> None:
        kind = node.get("type")
        if kind in ("paragraph", "heading", "codeBlock"):
            if inline(node):
                lines.append(prefix + inline(node))
            return
        for c in node.get("content", []):
            if isinstance(c, dict):
                block(c, "- " if kind == "listItem" else prefix)

    block(doc, "")
    return "\n".join(lines)


# -- objects -------------------------------------------------------------------------------------------------------------

def user(store, account_id: str | None) -> dict | None:
    if account_id is None:
        return None
    u = store.get("users", account_id)
    if u is None:
        return {"accountId": account_id, "active": False, "displayName": "Former user"}
    return {"self": f"{API3}/user?accountId={account_id}", "accountId": account_id,
            "emailAddress": u["emailAddress"], "displayName": u["displayName"], "active": u["active"],
            "timeZone": u["timeZone"], "accountType": u["accountType"],
            "avatarUrls": {"48x48": f"https://avatar.kestrel.io/{account_id}/48"}}


def status(name: str) -> dict:
    sid, cat = STATUSES[name]
    cid, cname = CATEGORIES[cat]
    return {"self": f"{API3}/status/{sid}", "id": sid, "name": name,
            "statusCategory": {"id": int(cid), "key": cat, "name": cname}}


def issuetype(name: str) -> dict:
    tid, level = ISSUE_TYPES[name]
    return {"self": f"{API3}/issuetype/{tid}", "id": tid, "name": name, "subtask": level < 0,
            "hierarchyLevel": level}


def priority(name: str) -> dict:
    pid = str(PRIORITIES.index(name) + 1)
    return {"self": f"{API3}/priority/{pid}", "id": pid, "name": name}


def resolution(name: str | None) -> dict | None:
    return None if name is None else {"self": f"{API3}/resolution/{RESOLUTIONS[name]}", "id": RESOLUTIONS[name],
                                      "name": name}


def project_ref(p: dict) -> dict:
    return {"self": f"{API3}/project/{p['jira_id']}", "id": p["jira_id"], "key": p["key"], "name": p["name"],
            "projectTypeKey": p["projectTypeKey"]}


def version(v: dict, project: dict) -> dict:
    return {"self": f"{API3}/version/{v['id']}", "id": v["id"], "name": v["name"], "archived": v["archived"],
            "released": v["released"], "releaseDate": v["releaseDate"], "projectId": int(project["jira_id"])}


def sprint(s: dict) -> dict:
    out = {"id": int(s["id"]), "self": f"{AGILE}/sprint/{s['id']}", "state": s["state"], "name": s["name"],
           "startDate": s["startDate"], "endDate": s["endDate"], "originBoardId": int(s["board"]), "goal": s["goal"]}
    if s["completeDate"]:
        out["completeDate"] = s["completeDate"]
    return out


def comment(store, c: dict) -> dict:
    out = {"self": f"{API3}/issue/{c['issue']}/comment/{c['id']}", "id": c["id"], "author": user(store, c["author"]),
           "body": adf(c["body"]), "updateAuthor": user(store, c["author"]), "created": c["created"],
           "updated": c["created"], "jsdPublic": c["visibility"] is None}
    if c["visibility"]:
        out["visibility"] = {**c["visibility"], "identifier": c["visibility"]["value"]}
    return out


def worklog(store, w: dict) -> dict:
    secs = w["timeSpentSeconds"]
    out = {"self": f"{API3}/issue/{w['issue']}/worklog/{w['id']}", "id": w["id"], "issueId": w["issue"],
           "author": user(store, w["author"]), "updateAuthor": user(store, w["author"]), "started": w["started"],
           "created": w["created"], "updated": w["created"], "timeSpent": duration(secs), "timeSpentSeconds": secs}
    if w["comment"]:
        out["comment"] = adf(w["comment"])
    return out


def duration(secs: int) -> str:
    """Jira's ``timeSpent``: ``1d 2h 30m`` on an 8-hour day."""
    parts, left = [], secs // 60
    for unit, size in (("w", 5 * 8 * 60), ("d", 8 * 60), ("h", 60), ("m", 1)):
        if left >= size:
            parts.append(f"{left // size}{unit}")
            left %= size
    return " ".join(parts) or "0m"


def _linked(store, key: str) -> dict:
    i = store.get("issues", key)
    return {"id": i["jira_id"], "key": key, "self": f"{API3}/issue/{i['jira_id']}",
            "fields": {"summary": i["summary"], "status": status(i["status"]), "priority": priority(i["priority"]),
                       "issuetype": issuetype(i["issuetype"])}}


def links_of(store, key: str) -> list:
    out = []
    for _, link in store.scan("links"):
        if key not in (link["inward"], link["outward"]):
            continue
        lid, (tid, inward, outward) = link["id"], LINK_TYPES[link["type"]]
        kind = {"id": tid, "name": link["type"], "inward": inward, "outward": outward, "self": f"{API3}/issueLinkType/{tid}"}
        other = store.get("issues", link["outward"] if link["inward"] == key else link["inward"])
        if other is None or other["security"] == "Restricted":  # what the agent may not see is not linked either
            continue
        if link["inward"] == key:  # this issue <outward> the other ("blocks")
            out.append({"id": lid, "self": f"{API3}/issueLink/{lid}", "type": kind,
                        "outwardIssue": _linked(store, link["outward"])})
        elif link["outward"] == key:
            out.append({"id": lid, "self": f"{API3}/issueLink/{lid}", "type": kind,
                        "inwardIssue": _linked(store, link["inward"])})
    return out


def issue(store, i: dict, fields: list | None = None, agent: str = "") -> dict:
    """GET /rest/api/3/issue/{key}; ``fields`` keeps only those named (None or ``*all``: every field)."""
    proj = store.get("projects", i["project"])
    sp = store.get("sprints", i["sprint"]) if i["sprint"] else None
    comments = [comment(store, c) for _, c in store.scan("comments", {"issue": i["key"]})]
    worklogs = [worklog(store, w) for _, w in store.scan("worklogs", {"issue": i["key"]})]
    subtasks = [_linked(store, c["key"]) for _, c in store.scan("issues", {"parent": i["key"]})
                if c["issuetype"] == "Sub-task" and c["security"] != "Restricted"]
    versions = {v["name"]: v for _, v in store.scan("versions", {"project": i["project"]})}
    comps = {c["name"]: c for c in proj["components"]}
    f = {
        "summary": i["summary"], "description": adf(i["description"]), "issuetype": issuetype(i["issuetype"]),
        "project": project_ref(proj), "status": status(i["status"]), "resolution": resolution(i["resolution"]),
        "priority": priority(i["priority"]), "labels": list(i["labels"]),
        "components": [{"self": f"{API3}/component/{comps[n]['id']}", "id": comps[n]["id"], "name": n}
                       for n in i["components"] if n in comps],
        "fixVersions": [version(versions[n], proj) for n in i["fixVersions"] if n in versions],
        "assignee": user(store, i["assignee"]), "reporter": user(store, i["reporter"]),
        "creator": user(store, i["reporter"]), "created": i["created"], "updated": i["updated"],
        "resolutiondate": i["resolutiondate"], "duedate": i["duedate"],
        "security": ({"self": f"{API3}/securitylevel/{SECURITY_LEVELS[i['security']]}",
                      "id": SECURITY_LEVELS[i["security"]], "name": i["security"]} if i["security"] else None),
        "issuelinks": links_of(store, i["key"]), "subtasks": subtasks,
        "watches": {"watchCount": len(i["watchers"]), "isWatching": agent in i["watchers"]},
        STORY_POINTS: i["story_points"], SPRINT: [sprint(sp)] if sp else None,
        "comment": {"comments": comments, "maxResults": len(comments), "total": len(comments), "startAt": 0},
        "worklog": {"worklogs": worklogs, "maxResults": len(worklogs), "total": len(worklogs), "startAt": 0},
    }
    if i["parent"]:
        f["parent"] = _linked(store, i["parent"])
    if fields and not {"*all", "*navigable"} & set(fields):
        f = {k: v for k, v in f.items() if k in fields}
    return {"expand": "renderedFields,names,schema,operations,editmeta,changelog,versionedRepresentations",
            "id": i["jira_id"], "self": f"{API3}/issue/{i['jira_id']}", "key": i["key"], "fields": f}
