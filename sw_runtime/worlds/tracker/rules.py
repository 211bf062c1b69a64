"""What Jira checks on a write, shared by the tools and the tasks' reference
solutions: which issues the agent may see, next keys and ids, field values
that must name something real, and a transition's conditions and screen."""

from __future__ import annotations

from . import jql, views as V
from .jql_run import Run
from .state import AGENT
from .workflows import ISSUE_TYPES, PRIORITIES, RESOLUTIONS, transitions_of


def now(ctx) -> str:
    return ctx.at[:19] + ".000+0000"


def visible(store, key_or_id) -> dict:
    """The issue, or Jira's 404 when it does not exist or its security level hides it from the agent."""
    text = str(key_or_id).upper()
    i = store.get("issues", text)
    if i is None and text.isdigit():
        i = next((r for _, r in store.scan("issues", {"jira_id": text})), None)
    if i is None or i["security"] == "Restricted":
        raise V.no_issue()
    return i


def project(store, ref) -> dict:
    if ref is None or not (ref.key or ref.id):
        raise V.refuse(400, project="Specify a valid project ID or key")
    p = store.get("projects", str(ref.key or "").upper()) if ref.key else next(
        (r for _, r in store.scan("projects", {"jira_id": str(ref.id)})), None)
    if p is None:
        raise V.refuse(400, project="Specify a valid project ID or key")
    return p


def issuetype(ref) -> str:
    if ref is None:
        raise V.refuse(400, issuetype="Specify an issue type")
    for name, (tid, _) in ISSUE_TYPES.items():
        if (ref.name or "").lower() == name.lower() or str(ref.id or "") == tid:
            return name
    raise V.refuse(400, issuetype="Specify a valid issue type")


def priority(ref) -> str:
    for n, name in enumerate(PRIORITIES):
        if (ref.name or "").lower() == name.lower() or str(ref.id or "") == str(n + 1):
            return name
    raise V.refuse(400, priority="The priority selected is invalid.")


def resolution(ref) -> str:
    for name, rid in RESOLUTIONS.items():
        if (ref.name or "").lower() == name.lower() or str(ref.id or "") == rid:
            return name
    raise V.refuse(400, resolution=f"The resolution '{ref.name or ref.id}' is not valid.")


def versions(store, project_key: str, refs: list) -> list:
    have = {v["name"]: v for _, v in store.scan("versions", {"project": project_key})}
    out = []
    for ref in refs:
        v = next((v for v in have.values() if v["name"] == ref.name or v["id"] == str(ref.id or "")), None)
        if v is None:
            raise V.refuse(400, fixVersions=f"Version name '{ref.name or ref.id}' is not valid")
        out.append(v["name"])
    return out


def components(p: dict, refs: list) -> list:
    out = []
    for ref in refs:
        c = next((c for c in p["components"] if c["name"] == ref.name or c["id"] == str(ref.id or "")), None)
        if c is None:
            raise V.refuse(400, components=f"Component name '{ref.name or ref.id}' is not valid")
        out.append(c["name"])
    return out


def account(store, ref, field: str = "assignee") -> str | None:
    if ref is None or ref.accountId is None:
        return None
    if store.get("users", ref.accountId) is None:
        raise V.refuse(400, **{field: f"Specify a valid value for {field}"})
    return ref.accountId


def labels(values: list) -> list:
    for v in values:
        if not v or " " in v:
            raise V.refuse(400, labels="The label can't contain spaces.")
    return list(dict.fromkeys(values))


def available(store, issue: dict) -> list:
    """The transitions Jira offers for the issue now: from its status, with their conditions met."""
    wf = store.get("projects", issue["project"])["workflow"]
    return [t for t in transitions_of(wf) if issue["status"] in t.sources
            and (not t.needs_assignee or issue["assignee"] is not None)]


def me() -> str:
    return AGENT


def field_list(value) -> list | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else value
    return [f.strip() for f in items if f.strip()]


def search(ctx, text: str) -> list:
    try:
        run = Run(ctx.store, jql.parse(text), me(), now(ctx))
        found = [i for _, i in ctx.store.scan("issues") if i["security"] != "Restricted" and run.matches(i)]
        return run.sort(found)
    except jql.JqlError as e:
        raise V.refuse(400, str(e)) from None
