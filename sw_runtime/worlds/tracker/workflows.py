"""Tracker's fixed vocabulary: workflows, issue types, priorities, resolutions, link types.

Two workflows, as a Jira site configures them: ``software`` (API and WEB:
To Do, In Progress, In Review, Done) and ``service`` (OPS: Open, In Progress,
Blocked, Resolved, Closed). A transition has a condition (``needs_assignee``:
Jira hides it until the issue has an assignee) and a screen (the fields it
takes; ``required`` ones are validated). ``clears`` names the fields a
transition empties (Reopen clears the resolution).
"""

from __future__ import annotations

from dataclasses import dataclass

SITE = "kestrel.atlassian.net"
BASE = f"https://{SITE}"

# status name -> (id, category key); categories are Jira's three
STATUSES = {
    "To Do": ("10000", "new"), "Open": ("1", "new"),
    "In Progress": ("3", "indeterminate"), "In Review": ("10001", "indeterminate"),
    "Blocked": ("10003", "indeterminate"),
    "Done": ("10002", "done"), "Resolved": ("5", "done"), "Closed": ("6", "done"),
}
CATEGORIES = {"new": ("2", "To Do"), "indeterminate": ("4", "In Progress"), "done": ("3", "Done")}


@dataclass(frozen=True)
class Transition:
    id: str
    name: str
    sources: tuple  # the statuses it leaves from
    to: str
    needs_assignee: bool = False
    required: tuple = ()  # fields its screen requires
    optional: tuple = ()  # fields its screen also takes
    clears: tuple = ()


_DONE_SCREEN = {"required": ("resolution",), "optional": ("fixVersions",)}
WORKFLOWS = {
    "software": (
        Transition("11", "Start Progress", ("To Do",), "In Progress", needs_assignee=True),
        Transition("21", "Send to Review", ("In Progress",), "In Review"),
        Transition("31", "Done", ("In Review",), "Done", **_DONE_SCREEN),
        Transition("41", "Reopen", ("Done",), "To Do", clears=("resolution",)),
        Transition("51", "Stop Progress", ("In Progress",), "To Do"),
        Transition("61", "Close Issue", ("To Do", "In Progress", "In Review"), "Done", **_DONE_SCREEN),
    ),
    "service": (
        Transition("11", "Start Work", ("Open",), "In Progress", needs_assignee=True),
        Transition("21", "Block", ("In Progress",), "Blocked"),
        Transition("31", "Unblock", ("Blocked",), "In Progress"),
        Transition("41", "Resolve", ("In Progress",), "Resolved", required=("resolution",)),
        Transition("51", "Close", ("Resolved",), "Closed"),
        Transition("61", "Reopen", ("Resolved", "Closed"), "Open", clears=("resolution",)),
    ),
}
STATUS_ORDER = {"software": ("To Do", "In Progress", "In Review", "Done"),
                "service": ("Open", "In Progress", "Blocked", "Resolved", "Closed")}

ISSUE_TYPES = {"Epic": ("10000", 1), "Story": ("10001", 0), "Task": ("10002", 0), "Bug": ("10003", 0),
               "Sub-task": ("10004", -1)}  # name -> (id, hierarchy level)
PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")  # ids 1..5, most urgent first
RESOLUTIONS = {"Done": "10000", "Fixed": "10001", "Won't Do": "10002", "Duplicate": "10003",
               "Cannot Reproduce": "10004"}
LINK_TYPES = {  # name -> (id, inward, outward); a link reads "inwardIssue <outward> outwardIssue"
    "Blocks": ("10000", "is blocked by", "blocks"),
    "Duplicate": ("10002", "is duplicated by", "duplicates"),
    "Relates": ("10003", "relates to", "relates to"),
}
SECURITY_LEVELS = {"Security": "10100", "Restricted": "10101"}  # Restricted: hidden from the agent
STORY_POINTS = "customfield_10016"
SPRINT = "customfield_10020"


def transitions_of(workflow: str) -> tuple:
    return WORKFLOWS[workflow]


def category(status: str) -> str:
    return STATUSES[status][1]


def priority_rank(name: str) -> int:
    """1 for Highest … 5 for Lowest."""
    return PRIORITIES.index(name) + 1
