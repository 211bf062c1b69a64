"""The situations tracker's tasks are about, planted into the seeded site.

Each role takes its summary from its own pool (``texts.py``), so ``cast.py``
finds it by content; times, people, priorities and points come from the
seed. Called by ``state.generate`` before keys are given.
"""

from __future__ import annotations

from datetime import timedelta

from . import texts as T
from .state import AGENT, NOW


def _ago(rng, lo_days: float, hi_days: float):
    return NOW - timedelta(minutes=rng.randrange(int(lo_days * 1440), int(hi_days * 1440)))


def plant(site) -> None:
    rng = site.rng
    api, web = site.teams["API"], site.teams["WEB"]
    sp = site.sprint_ids
    nxt = site.versions["API"][2]
    one = {role: rng.choice(pool) for role, pool in T.ROLE.items()}
    add = site.issue

    # New bugs to triage (one per component), and two look-alikes that are not API bugs
    for n, comp in enumerate(rng.sample(T.COMPONENTS["API"], 4)):
        add("API", "Bug", f"{comp}: {rng.choice(('error 500 on', 'wrong result from', 'timeout in'))} "
                          f"{rng.choice(T.OBJECTS['API'])} (report {n + 1})",
            "To Do", ref=f"triage{n}", assignee=None, labels=["needs-triage"], components=[comp],
            created=_ago(rng, 0.2, 3), story_points=None, reporter=site.support["accountId"])
    add("API", "Story", f"{rng.choice(T.COMPONENTS['API'])}: customers ask for {rng.choice(T.OBJECTS['API'])} filters",
        "To Do", ref="triage-story", assignee=None, labels=["needs-triage"],
        components=[rng.choice(T.COMPONENTS["API"])], created=_ago(rng, 0.2, 3))
    add("WEB", "Bug", f"Exports: {rng.choice(('blank file from', 'slow'))} {rng.choice(T.OBJECTS['WEB'])}",
        "To Do", ref="triage-web", assignee=None, labels=["needs-triage"], components=["Exports"],
        created=_ago(rng, 0.2, 3))

    # A new report, the issue it duplicates, and a look-alike that is not the same bug
    new, orig, look, _word = rng.choice(T.DUPES)
    comp = rng.choice(("Exports", "Auth", "Webhooks"))
    add("API", "Bug", orig, "In Progress", ref="dup-orig", components=[comp], created=_ago(rng, 20, 40),
        sprint=sp["API"]["active"])
    add("API", "Bug", look, rng.choice(("To Do", "In Review")), ref="dup-look", components=[comp],
        created=_ago(rng, 8, 60), sprint=sp["API"]["active"])
    add("API", "Bug", new, "To Do", ref="dup-new", assignee=None, components=[comp], created=_ago(rng, 0.1, 1),
        reporter=site.support["accountId"],
        description=f"{new}. Customer ticket from support; the same steps as before.")
    wnew, worig = rng.choice(T.WEB_DUPES)
    add("WEB", "Bug", worig, "In Progress", ref="wdup-orig", created=_ago(rng, 10, 30), sprint=sp["WEB"]["active"])
    add("WEB", "Bug", wnew, "To Do", ref="wdup-copy", created=_ago(rng, 0.5, 2))

    # Issues in review, a security issue and a hidden one, an escalation, a story to start, a bug to reopen
    add("API", "Story", one["review_story"], "In Review", ref="review-story", sprint=sp["API"]["active"])
    add("API", "Bug", one["review_bug"], "In Review", ref="review-bug", sprint=sp["API"]["active"])
    add("API", "Bug", one["fixless_bug"], "In Review", ref="fixless-bug", sprint=sp["API"]["active"])
    add("API", "Bug", one["security"], "In Progress", ref="security", security="Security", sprint=sp["API"]["active"],
        reporter=site.support["accountId"])
    for n, summary in enumerate(T.ROLE["restricted"]):
        add("API", "Bug", summary, "To Do", ref=f"restricted{n}", security="Restricted")
    add("API", "Bug", one["escalation"], "To Do", ref="escalation", priority=rng.choice(("Medium", "Low")),
        labels=["customer"])
    add("API", "Story", one["start"], "To Do", ref="start", assignee=None)
    add("API", "Bug", one["reopen"], "Done", ref="reopen", resolution="Fixed", fixVersions=[site.versions["API"][1]],
        sprint=sp["API"]["closed1"])
    add("API", "Story", one["urgent"], "To Do", ref="urgent", priority="High")

    # A release with two live blockers and one that is already done
    for n, (summary, status) in enumerate(zip(T.RELEASE, rng.sample(("In Progress", "To Do", "In Review"), 3))):
        add("API", "Story", summary, status, ref=f"release{n}", fixVersions=[nxt], sprint=sp["API"]["active"])
    blockers = list(T.BLOCKERS)
    rng.shuffle(blockers)
    add("OPS", "Task", blockers[0], "In Progress", ref="blocker0")
    add("API", "Task", blockers[1], "To Do", ref="blocker1")
    add("OPS", "Task", blockers[2], "Resolved", ref="blocker-done", resolution="Done")
    site.links += [("Blocks", "blocker0", "release0"), ("Blocks", "blocker1", "release1"),
                   ("Blocks", "blocker-done", "release2")]

    # An epic to split, and the ready backlog for the next sprint
    title, bullets = rng.choice(T.EPICS)
    add("API", "Epic", title, "To Do", ref="epic", story_points=None,
        description=f"Goal: {title.lower()}.\n" + "\n".join(f"- {b}" for b in bullets))
    ready = rng.sample(T.READY, 6)
    points = _ready_points(rng)
    prios = sorted(rng.sample(("Highest", "High", "High", "Medium", "Medium", "Low"), 6),
                   key=("Highest", "High", "Medium", "Low").index)
    for n, (summary, pts, prio) in enumerate(zip(ready, points, prios)):
        add("API", "Story", summary, "To Do", ref=f"ready{n}", labels=["ready"], story_points=pts, priority=prio,
            created=NOW - timedelta(days=30 - n, minutes=rng.randrange(600)))
    cap = points[0] + points[1] + points[3]
    future = site.st["sprints"][sp["API"]["future"]]
    future["goal"] = f"{future['goal'].rsplit(' Capacity', 1)[0]} Capacity: {cap} story points."

    # Done stories in the active sprint that nobody gave a fix version
    for n, summary in enumerate(rng.sample(T.ROLE["fixless_done"], 3)):
        add("API", "Story", summary, "Done", ref=f"fixless-done{n}", sprint=sp["API"]["active"], fixVersions=[])

    # The assistant's own work
    me = {"assignee": AGENT}
    for n, summary in enumerate(T.ROLE["mine_progress"]):
        add("API", "Story", summary, "In Progress", ref=f"mine-progress{n}", sprint=sp["API"]["active"], **me)
    add("API", "Task", one["mine_todo"], "To Do", ref="mine-todo", **me)
    add("WEB", "Bug", one["mine_review"], "In Review", ref="mine-review", sprint=sp["WEB"]["active"], **me)
    add("API", "Task", one["mine_done"], "Done", ref="mine-done", sprint=sp["API"]["closed1"], **me)

    # A departing engineer's work, and a colleague whose name starts the same
    leaver, look = site.leaver["accountId"], site.lookalike["accountId"]
    statuses = ("To Do", "In Progress", "In Review", "To Do", "Done", "Done")
    for n, (summary, status) in enumerate(zip(T.ROLE["leaver"], statuses)):
        project = "WEB" if n in (2, 5) else "API"
        add(project, "Task", summary, status, ref=f"leaver{n}", assignee=leaver,
            sprint=sp[project]["active"] if status != "To Do" else None)
    for n, summary in enumerate(T.ROLE["lookalike"]):
        add("WEB" if n else "API", "Task", summary, ("To Do", "In Progress")[n], ref=f"lookalike{n}", assignee=look,
            sprint=sp["WEB"]["active"] if n else None)

    # WEB's urgent bugs, and OPS work to unblock and to resolve
    for n, summary in enumerate(T.ROLE["web_high"]):
        add("WEB", "Bug", summary, ("To Do", "In Progress")[n], ref=f"web-high{n}", priority=("Highest", "High")[n],
            sprint=sp["WEB"]["active"] if n else None)
    add("OPS", "Task", one["ops_blocked"], "Blocked", ref="ops-blocked", assignee=rng.choice(site.teams["OPS"])["accountId"])
    add("OPS", "Task", one["ops_progress"], "In Progress", ref="ops-progress",
        assignee=rng.choice(site.teams["OPS"])["accountId"])
    for s in site.specs:
        if s["project"] != "OPS" and s["status"] in ("Done", "In Review", "In Progress") and s["assignee"] is None:
            s["assignee"] = rng.choice(api if s["project"] == "API" else web)["accountId"]


def _ready_points(rng) -> list:
    """Six estimates where, taken in order, the third does not fit after the first two but the fourth
    does, and then nothing more fits (the capacity is the first, second and fourth)."""
    while True:
        pts = [rng.choice((2, 3, 5, 8)) for _ in range(6)]
        if pts[2] > pts[3]:
            return pts
