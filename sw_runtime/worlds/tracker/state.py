"""Tracker's seeded site: Kestrel Software's Jira Cloud (``kestrel.atlassian.net``).

Three projects (``API`` and ``WEB`` on the software workflow, ``OPS`` on the
service one), about nineteen people, around two hundred issues in every
status, their comments, links and worklogs, fix versions, and scrum boards
with closed, active and future sprints. ``generate(seed)`` draws the people,
times, priorities, story points, sprint numbers and versions, then *plants*
what the tasks are about (new bugs to triage, a duplicate and its look-alike,
an epic to split, a backlog to plan, a release with blockers, a departing
engineer and someone with a look-alike name). Keys are given at the end, in
order of creation, so a key never says which part an issue plays.

Records: ``issues`` keyed by key (``API-123``: numbers run 101-999, so keys
are fixed width), ``users`` by account id, ``projects`` by key, and numeric
ids for the rest. Times are Jira's (``2026-06-12T14:03:00.000+0000``).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from . import texts as T
from .workflows import STATUS_ORDER

COLLECTIONS = ("projects", "users", "versions", "boards", "sprints", "issues", "comments", "links", "worklogs")
EPOCH = "2026-06-15T09:00:00.000Z"
NOW = datetime(2026, 6, 15, 9, 0, 0)
AGENT = "5f2b7c00a11ce0000a9e0001"  # the account the agent works as: "Kestrel Assistant"
BOARDS = {"API": "11", "WEB": "12", "OPS": "13"}


def jtime(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.000+0000")


def _account(rng) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(24))


class _Site:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.st = {c: {} for c in COLLECTIONS}
        self.specs = []  # issues before keys: each a dict with a "_ref" the planters use
        self.links = []  # (type, inward ref, outward ref)

    # -- people, projects, versions, sprints ----------------------------------------------------------------
    def people(self):
        rng = self.rng
        names = [(f, l) for f in T.FIRST for l in T.LAST]
        rng.shuffle(names)
        chosen, firsts = [], set()
        for f, l in names:
            if f not in firsts:
                firsts.add(f)
                chosen.append((f, l))
            if len(chosen) == 17:
                break
        self.users = []
        for f, l in chosen:
            self.users.append(self._user(f"{f} {l}"))
        leaver = self.users[0]
        f, l = leaver["displayName"].split()
        self.lookalike = self._user(f"{f} {l}{rng.choice(T.LOOKALIKE_SUFFIX)}")
        self.leaver, self.successor = leaver, self.users[2]
        self.agent = self._user("Kestrel Assistant", AGENT, "assistant@kestrel.io")
        pool = self.users[1:]
        self.teams = {"API": pool[0:7], "WEB": pool[6:12], "OPS": pool[11:16]}
        self.support = pool[15]

    def _user(self, name: str, aid: str | None = None, email: str | None = None) -> dict:
        aid = aid or _account(self.rng)
        u = {"accountId": aid, "displayName": name, "active": True, "timeZone": "Europe/Berlin",
             "emailAddress": email or name.lower().replace(" ", ".") + "@kestrel.io", "accountType": "atlassian"}
        self.st["users"][aid] = u
        return u

    def projects(self):
        rng = self.rng
        self.versions = {}
        vid = 10200
        for i, key in enumerate(("API", "WEB", "OPS")):
            team = self.teams[key]
            comps = [{"id": str(10300 + 10 * i + j), "name": n, "lead": rng.choice(team)["accountId"]}
                     for j, n in enumerate(T.COMPONENTS[key])]
            self.st["projects"][key] = {"jira_id": str(10000 + i), "key": key, "name": T.PROJECT_NAMES[key],
                                        "lead": team[0]["accountId"], "projectTypeKey": "software",
                                        "workflow": "service" if key == "OPS" else "software",
                                        "components": comps, "counter": 0}
            if key == "OPS":
                continue
            major, minor = rng.randrange(2, 6), rng.randrange(4, 20)
            names = [f"{major}.{minor + k}.0" for k in range(4)]
            dates = [NOW - timedelta(days=40), NOW - timedelta(days=12), NOW + timedelta(days=11),
                     NOW + timedelta(days=39)]
            for k, (n, d) in enumerate(zip(names, dates)):
                vid += 1
                self.st["versions"][str(vid)] = {"id": str(vid), "project": key, "name": n, "released": k < 2,
                                                 "releaseDate": d.strftime("%Y-%m-%d"), "archived": False}
            self.versions[key] = names  # [old, last, next, later]

    def sprints(self):
        rng = self.rng
        sid = 100
        self.sprint_ids = {}
        for key, board in BOARDS.items():
            kind = "kanban" if key == "OPS" else "scrum"
            self.st["boards"][board] = {"id": board, "name": f"{key} board", "type": kind, "project": key}
            if kind == "kanban":
                continue
            n = rng.randrange(14, 40)
            ids = {}
            for k, state in enumerate(("closed", "closed", "active", "future")):
                sid += 1
                start = NOW - timedelta(days=35 - 14 * k, hours=1)
                cap = rng.randrange(18, 31)
                goal = (f"{rng.choice(('Stabilise', 'Ship', 'Polish'))} {rng.choice(T.OBJECTS[key])}. "
                        f"Capacity: {cap} story points.")
                self.st["sprints"][str(sid)] = {
                    "id": str(sid), "name": f"{key} Sprint {n + k}", "state": state, "board": board,
                    "startDate": jtime(start), "endDate": jtime(start + timedelta(days=14)),
                    "completeDate": jtime(start + timedelta(days=14)) if state == "closed" else None, "goal": goal}
                ids[state if state != "closed" else f"closed{k}"] = str(sid)
            self.sprint_ids[key] = ids

    # -- issues ---------------------------------------------------------------------------------------------
    def issue(self, project: str, issuetype: str, summary: str, status: str, *, ref=None, **f) -> dict:
        rng = self.rng
        team = self.teams[project]
        done = status in ("Done", "Resolved", "Closed")
        created = f.pop("created", NOW - timedelta(minutes=rng.randrange(150, 120 * 1440)))
        spec = {"_ref": ref or f"bg{len(self.specs)}", "project": project, "issuetype": issuetype, "summary": summary,
                "description": f.pop("description", f"{summary}. Reported by the team; see the comments for details."),
                "status": status, "resolution": f.pop("resolution", ("Fixed" if issuetype == "Bug" else "Done")
                                                      if done else None),
                "priority": f.pop("priority", rng.choice(("High", "Medium", "Medium", "Low", "Highest", "Lowest"))),
                "labels": f.pop("labels", []), "components": f.pop("components", []),
                "fixVersions": f.pop("fixVersions", []),
                "assignee": f.pop("assignee", rng.choice(team)["accountId"]),
                "reporter": f.pop("reporter", rng.choice(team + [self.support])["accountId"]),
                "parent": f.pop("parent", None), "sprint": f.pop("sprint", None),
                "story_points": f.pop("story_points", rng.choice((1, 2, 3, 5, 8)) if issuetype in ("Story", "Bug")
                                      else None),
                "security": f.pop("security", None), "watchers": f.pop("watchers", []),
                "created": created, "updated": f.pop("updated", created + timedelta(minutes=rng.randrange(5, 2000))),
                "duedate": f.pop("duedate", None)}
        assert not f, f
        if spec["updated"] > NOW:
            spec["updated"] = NOW - timedelta(minutes=3)
        spec["resolutiondate"] = spec["updated"] if done else None
        self.specs.append(spec)
        return spec

    def background(self):
        rng = self.rng
        phrases = {k: [f"{v} {o}" for v in T.VERBS for o in T.OBJECTS[k]] for k in T.OBJECTS}
        for key, count in (("API", rng.randrange(52, 66)), ("WEB", rng.randrange(44, 56)), ("OPS", rng.randrange(30, 40))):
            rng.shuffle(phrases[key])
            statuses = list(STATUS_ORDER["service" if key == "OPS" else "software"])
            sprints = self.sprint_ids.get(key, {})
            for i in range(count):
                status = statuses[i % len(statuses)] if i < 3 * len(statuses) else rng.choice(statuses + [statuses[-1]] * 2)
                itype = rng.choice(("Story", "Story", "Bug", "Bug", "Task")) if key != "OPS" else rng.choice(("Task", "Bug"))
                done = status in ("Done", "Resolved", "Closed")
                sprint, versions = None, []
                if sprints:
                    if done:
                        sprint = rng.choice((sprints["closed0"], sprints["closed1"], sprints["active"]))
                        versions = [self.versions[key][2 if sprint == sprints["active"] else
                                                       (0 if sprint == sprints["closed0"] else 1)]]
                    elif status != "To Do":
                        sprint = sprints["active"]
                labels = rng.sample(T.LABELS, rng.randrange(0, 3))
                comp = [rng.choice(T.COMPONENTS[key])] if rng.random() < 0.7 else []
                unassigned = status in ("To Do", "Open") and rng.random() < 0.3
                self.issue(key, itype, phrases[key][i], status, labels=labels, components=comp, sprint=sprint,
                           fixVersions=versions, **({"assignee": None} if unassigned else {}))
        for key in ("API", "WEB"):  # an epic with a few children, and a sub-task
            epic = self.issue(key, "Epic", f"{rng.choice(('Q3', 'Q4'))} {rng.choice(T.OBJECTS[key])} overhaul",
                              "In Progress", story_points=None)
            kids = [s for s in self.specs if s["project"] == key and s["issuetype"] == "Story"][:3]
            for s in kids:
                s["parent"] = epic["_ref"]
            self.issue(key, "Sub-task", f"Write tests for {kids[0]['summary'].lower()}", "To Do",
                       parent=kids[0]["_ref"], story_points=None)

    def finish(self):
        rng = self.rng
        self.specs.sort(key=lambda s: (s["created"], s["_ref"]))
        refs, iid = {}, 10000
        for s in self.specs:
            p = self.st["projects"][s["project"]]
            p["counter"] = p["counter"] + 1 if p["counter"] else 101
            iid += 1
            refs[s["_ref"]] = f"{s['project']}-{p['counter']}"
            s["jira_id"], s["key"] = str(iid), refs[s["_ref"]]
        for s in self.specs:
            ref = s.pop("_ref")
            rec = {**s, "parent": refs[s["parent"]] if s["parent"] else None,
                   **{k: jtime(s[k]) for k in ("created", "updated")},
                   "resolutiondate": jtime(s["resolutiondate"]) if s["resolutiondate"] else None}
            self.st["issues"][rec["key"]] = rec
            del ref
        for n, (kind, a, b) in enumerate(self.links):
            lid = str(10500 + n)
            self.st["links"][lid] = {"id": lid, "type": kind, "inward": refs[a], "outward": refs[b]}
        visible = [i for i in self.st["issues"].values() if i["security"] is None and i["key"][:3] != "OPS"
                   and i["assignee"] and i["assignee"] != AGENT and i["summary"] not in _PLANTED]
        for n in range(48):  # background comments and worklogs on ordinary issues
            i = rng.choice(visible)
            cid = str(11000 + n)
            self.st["comments"][cid] = {"id": cid, "issue": i["key"], "author": i["assignee"],
                                        "body": rng.choice(T.COMMENTS), "visibility": None, "created": i["updated"]}
        for n in range(30):
            i = rng.choice(visible)
            wid = str(12000 + n)
            self.st["worklogs"][wid] = {"id": wid, "issue": i["key"], "author": i["assignee"],
                                        "timeSpentSeconds": rng.choice((1800, 3600, 5400, 7200, 14400)),
                                        "started": i["updated"], "comment": None, "created": i["updated"]}
        for n in range(10):
            a, b = rng.sample(visible, 2)
            lid = str(10600 + n)
            if a["key"] != b["key"]:
                self.st["links"][lid] = {"id": lid, "type": "Relates", "inward": a["key"], "outward": b["key"]}


_PLANTED = {s for pool in T.ROLE.values() for s in pool} | {s for d in T.DUPES for s in d[:3]} | {
    s for d in T.WEB_DUPES for s in d} | set(T.READY) | set(T.RELEASE) | set(T.BLOCKERS) | {e[0] for e in T.EPICS}


def generate(seed: int) -> dict:
    from .planted import plant

    site = _Site(seed)
    site.people()
    site.projects()
    site.sprints()
    site.background()
    plant(site)
    site.finish()
    return site.st
