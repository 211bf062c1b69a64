"""Running a parsed JQL query (``jql.py``) over the site's issues: which match, and in what order.

Equality compares a field's forms (a project's key, name or id; a user's
account id or email), case-insensitively; ``!=`` and NOT IN leave out issues
where the field is empty, as in Jira; ``~`` matches when every word of the
value starts a word of the field. Values Jira would not know (a project, a
status) are refused before any issue is looked at.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from .jql import DATES, TEXT, JqlError, Query
from .workflows import CATEGORIES, ISSUE_TYPES, PRIORITIES, RESOLUTIONS, STATUSES, category

_KNOWN = {"status": {s.lower() for s in STATUSES}, "issuetype": {t.lower() for t in ISSUE_TYPES},
          "priority": {p.lower() for p in PRIORITIES}, "resolution": {r.lower() for r in RESOLUTIONS} | {"unresolved"},
          "statusCategory": {n.lower() for _, n in CATEGORIES.values()} | set(CATEGORIES)}


class Run:
    """A parsed query against one store, as the agent ``me`` at time ``now`` (Jira's time format)."""

    def __init__(self, store, query: Query, me: str, now: str):
        self.store, self.query, self.me = store, query, me
        self.now = datetime.strptime(now[:19], "%Y-%m-%dT%H:%M:%S")
        self.sprints = {sid: s for sid, s in store.scan("sprints")}
        self._check(query.where)

    def _check(self, node) -> None:
        if node is None:
            return
        if node[0] in ("and", "or"):
            for n in node[1]:
                self._check(n)
        elif node[0] == "not":
            self._check(node[1])
        elif node[0] == "cmp":
            if node[2] in ("~", "!~") and node[1] not in TEXT:
                raise JqlError(f"The operator '{node[2]}' is not supported by the '{node[1]}' field.")
            for v in node[3]:
                self._check_value(node[1], v)

    def _check_value(self, name: str, v) -> None:
        if v[0] == "fn":
            fns = {"currentuser": {"assignee", "reporter", "watcher"}, "opensprints": {"sprint"},
                   "futuresprints": {"sprint"}, "closedsprints": {"sprint"}, "now": DATES,
                   "releasedversions": {"fixVersion"}, "unreleasedversions": {"fixVersion"}}
            if name not in fns.get(v[1], ()):
                raise JqlError(f"Unable to find JQL function '{v[1]}()'." if v[1] not in fns else
                               f"Jira cannot apply the function '{v[1]}' to the field '{name}'.")
            return
        if v[0] != "str":
            return
        text = v[1].lower()
        if name == "project" and self.store.get("projects", v[1].upper()) is None and not any(
                p["name"].lower() == text or p["jira_id"] == v[1] for _, p in self.store.scan("projects")):
            raise JqlError(f"The value '{v[1]}' does not exist for the field 'project'.")
        if name in _KNOWN and text not in _KNOWN[name]:
            raise JqlError(f"The value '{v[1]}' does not exist for the field '{name}'.")

    def matches(self, issue: dict) -> bool:
        return self._eval(self.query.where, issue) if self.query.where else True

    def _eval(self, node, i) -> bool:
        kind = node[0]
        if kind == "and":
            return all(self._eval(n, i) for n in node[1])
        if kind == "or":
            return any(self._eval(n, i) for n in node[1])
        if kind == "not":
            return not self._eval(node[1], i)
        if kind == "empty":
            return (not self._values(node[1], i)) == node[2]
        _, name, op, vals = node
        if name == "resolution":  # Jira's "Unresolved" is the empty resolution
            vals = tuple(("empty",) if v[0] == "str" and v[1].lower() == "unresolved" else v for v in vals)
        have = self._values(name, i)
        if op in ("~", "!~"):
            hit = any(_words_in(self._text(v), h) for v in vals for h in have)
            return hit if op == "~" else not hit
        if op in (">", ">=", "<", "<="):
            return bool(have) and _compare(name, have[0], op, self._scalar(name, vals[0]))
        wants = [w for v in vals for w in self._wanted(name, v)]
        hit = any(h in wants for h in have) or (("empty",) in vals and not have)
        if op in ("=", "in"):
            return hit
        return bool(have) and not hit  # != and NOT IN leave out empty fields, as Jira does

    def _values(self, name: str, i: dict) -> list:
        """The issue's values of a field, lower-cased, for equality (several forms each: key, id or name)."""
        if name == "project":
            p = self.store.get("projects", i["project"])
            return [p["key"].lower(), p["name"].lower(), p["jira_id"]]
        if name == "key":
            return [i["key"].lower(), i["jira_id"]]
        if name in ("issuetype", "status", "priority", "resolution", "level"):
            v = i["security" if name == "level" else name]
            return [v.lower()] if v else []
        if name == "statusCategory":
            cat = category(i["status"])
            return [cat, CATEGORIES[cat][1].lower()]
        if name in ("assignee", "reporter"):
            u = self.store.get("users", i[name]) if i[name] else None
            return [i[name], u["emailAddress"].lower()] if u else ([i[name]] if i[name] else [])
        if name in ("labels", "fixVersion"):
            return [v.lower() for v in i["labels" if name == "labels" else "fixVersions"]]
        if name == "component":
            return [c.lower() for c in i["components"]]
        if name == "sprint":
            s = self.sprints.get(i["sprint"]) if i["sprint"] else None
            return [s["id"], s["name"].lower()] if s else []
        if name == "parent":
            return [i["parent"].lower()] if i["parent"] else []
        if name == "watcher":
            return list(i["watchers"])
        if name in TEXT:
            parts = {"summary": [i["summary"]], "description": [i["description"] or ""]}.get(name)
            if parts is None:
                parts = [i["summary"], i["description"] or ""] + [
                    c["body"] for _, c in self.store.scan("comments", {"issue": i["key"]})]
            return parts
        if name in DATES:
            v = i["resolutiondate" if name == "resolved" else name]
            return [v[:16].replace("T", " ")] if v else []
        if name == "points":
            return [i["story_points"]] if i["story_points"] is not None else []
        raise JqlError(f"Field '{name}' does not exist or you do not have permission to view it.")

    def _wanted(self, name: str, v) -> list:
        if v[0] == "empty":
            return []
        if v[0] == "fn":
            fn = v[1]
            if fn == "currentuser":
                return [self.me]
            if fn in ("releasedversions", "unreleasedversions"):
                keys = {a.upper() for a in v[2]}
                return [x["name"].lower() for _, x in self.store.scan("versions")
                        if x["released"] == (fn == "releasedversions") and (not keys or x["project"] in keys)]
            state = {"opensprints": "active", "futuresprints": "future", "closedsprints": "closed"}[fn]
            return [sid for sid, s in self.sprints.items() if s["state"] == state]
        text = v[1].lower()
        if name == "points":
            return [_number(v[1])]
        if name in DATES:
            return [self._date(v[1])]
        if name == "priority" and text.isdigit() and 1 <= int(text) <= len(PRIORITIES):
            return [PRIORITIES[int(text) - 1].lower()]
        return [text]

    def _text(self, v) -> str:
        return v[1] if v[0] == "str" else ""

    def _scalar(self, name: str, v):
        if v[0] == "fn" and v[1] == "now":
            return self.now.strftime("%Y-%m-%d %H:%M")
        if v[0] != "str":
            raise JqlError(f"The operator '>' does not support the value of the field '{name}'.")
        if name == "points":
            return _number(v[1])
        if name in DATES:
            return self._date(v[1])
        if name == "priority":
            return v[1].lower()
        raise JqlError(f"The operator '>' is not supported by the '{name}' field.")

    def _date(self, text: str) -> str:
        m = re.fullmatch(r"([-+]?)(\d+)([wdhm])", text.strip())
        if m:
            size = {"w": 7 * 1440, "d": 1440, "h": 60, "m": 1}[m.group(3)] * int(m.group(2))
            at = self.now + timedelta(minutes=size if m.group(1) == "+" else -size)
            return at.strftime("%Y-%m-%d %H:%M")
        m = re.fullmatch(r"(\d{4})[-/](\d\d)[-/](\d\d)(?: (\d\d):(\d\d))?", text.strip())
        if not m:
            raise JqlError(f"Date value '{text}' for field 'created' is invalid. Valid formats include: "
                           "'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period "
                           "format e.g. '-5d', '4w 2d'.")
        return f"{m.group(1)}-{m.group(2)}-{m.group(3)} {m.group(4) or '00'}:{m.group(5) or '00'}"

    def sort(self, issues: list) -> list:
        out = sorted(issues, key=lambda i: (i["project"], int(i["key"].split("-")[1])))
        order = self.query.order or (("created", True),)
        for name, desc in reversed(order):
            present = [i for i in out if self._sort_key(name, i) is not None]
            empty = [i for i in out if self._sort_key(name, i) is None]
            present.sort(key=lambda i: self._sort_key(name, i), reverse=desc)
            out = present + empty
        return out

    def _sort_key(self, name: str, i: dict):
        if name == "priority":  # DESC puts Highest first
            return len(PRIORITIES) - PRIORITIES.index(i["priority"])
        if name == "key":
            return (i["project"], int(i["key"].split("-")[1]))
        vals = self._values(name, i)
        return vals[0] if vals else None


def _number(text: str):
    try:
        return float(text)
    except ValueError:
        raise JqlError(f"The value '{text}' is not a number.") from None


def _compare(name: str, have, op: str, want) -> bool:
    if name == "priority":  # more urgent is greater, as in Jira
        have, want = -PRIORITIES.index(have.title()), -[p.lower() for p in PRIORITIES].index(want)
    return {">": have > want, ">=": have >= want, "<": have < want, "<=": have <= want}[op]


def _words_in(value: str, text) -> bool:
    words = re.findall(r"[a-z0-9]+", value.lower())
    have = re.findall(r"[a-z0-9]+", str(text).lower())
    return bool(words) and all(any(h.startswith(w) for h in have) for w in words)
