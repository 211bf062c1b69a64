"""Tracker's tasks, tr-01 to tr-26: what a team's Jira assistant is asked to do.

Each ``setup`` (in ``tasks_people``, ``tasks_flow`` and ``tasks_plan``) reads
the seeded site through ``cast`` and returns the instruction, checks and
reference solution for that seed. Every task ends with a ``no-collateral``
check. Four are refusals (the policy says no), four need ``ask_user``, and
tr-15 and tr-16 are written for the ``timeout_after_commit`` fault profile:
their checks count the comment and the worklog, so a blind retry fails.
"""

from __future__ import annotations

from ..task import Task
from . import tasks_flow as F, tasks_people as P, tasks_plan as L

TASKS = [
    Task("tr-01", "Triage new bugs to their component leads", P.triage, step_budget=12, tags=("triage", "long")),
    Task("tr-02", "Link and close a duplicate bug", P.duplicate, step_budget=12,
         tags=("duplicates", "trap", "long", "links")),
    Task("tr-03", "Move a merged story to Done", F.story_done, step_budget=5, tags=("workflow",)),
    Task("tr-04", "Close a fixed bug with its fix version", F.bug_fixed_ask, step_budget=8,
         tags=("workflow", "ask_user", "versions")),
    Task("tr-05", "Plan the next sprint within its capacity", L.plan_sprint, step_budget=8, tags=("sprints", "planning")),
    Task("tr-06", "Reassign a departing engineer's open issues", P.departing, step_budget=14,
         tags=("people", "trap", "long")),
    Task("tr-07", "Split an epic into stories for the next sprint", L.split_epic, step_budget=12,
         tags=("epics", "sprints", "long")),
    Task("tr-08", "Find what blocks the release", L.release_blockers, step_budget=8,
         tags=("links", "versions", "trap")),
    Task("tr-09", "Refuse to add scope to the active sprint", L.refuse_scope, step_budget=5, refusal=True,
         tags=("sprints", "refusal")),
    Task("tr-10", "File a bug in the right project", P.file_bug, step_budget=5, tags=("create", "ask_user")),
    Task("tr-11", "Refuse a public comment on a security issue", P.security_comment, step_budget=4, refusal=True,
         tags=("security", "refusal")),
    Task("tr-12", "Close a duplicate instead of deleting it", P.no_delete, step_budget=8, refusal=True,
         tags=("duplicates", "refusal")),
    Task("tr-13", "Refuse to close a fixed bug without a fix version", F.bug_no_version, step_budget=4, refusal=True,
         tags=("workflow", "refusal")),
    Task("tr-14", "Log time the user has to state", F.log_time_ask, step_budget=4, tags=("worklogs", "ask_user")),
    Task("tr-15", "Comment once, even when the call times out", F.comment_once, step_budget=6,
         tags=("comments", "faults")),
    Task("tr-16", "Log work once, even when the call times out", F.worklog_once, step_budget=6,
         tags=("worklogs", "faults")),
    Task("tr-17", "Send my in-progress issue to review", F.mine_to_review, step_budget=7,
         tags=("workflow", "ask_user")),
    Task("tr-18", "List the open high-priority WEB bugs", L.web_high_bugs, step_budget=4, tags=("jql", "report")),
    Task("tr-19", "What's on my plate", L.my_plate, step_budget=4, tags=("jql", "report")),
    Task("tr-20", "Escalate a customer bug", P.escalation, step_budget=5, tags=("edit",)),
    Task("tr-21", "Take and start an unassigned story", F.start_work, step_budget=8,
         tags=("workflow", "conditions")),
    Task("tr-22", "Reopen a bug that came back", F.reopen, step_budget=5, tags=("workflow", "comments")),
    Task("tr-23", "Report the active sprint's progress", L.sprint_report, step_budget=5, tags=("sprints", "report")),
    Task("tr-24", "Set the missing fix versions of a sprint", L.tag_fix_versions, step_budget=12,
         tags=("versions", "sprints", "long")),
    Task("tr-25", "Unblock an OPS task", F.ops_unblock, step_budget=6, tags=("workflow", "service")),
    Task("tr-26", "Resolve an OPS task and log the work", F.ops_resolve, step_budget=6,
         tags=("workflow", "service", "worklogs")),
]
