"""Tracker: a Jira Cloud twin, Kestrel Software's site ``kestrel.atlassian.net``.

Projects (API, WEB, OPS) with issues in per-project workflows whose
transitions have conditions and screens, epics and sub-tasks, components
with leads, fix versions, scrum boards with sprints, users with account ids,
comments in Atlassian Document Format, issue links, worklogs and watchers.
Tools are Jira REST API v3's and the agile API's operations by their
operation ids (``jira.searchForIssuesUsingJql``, ``jira.doTransition``,
``jira.moveIssuesToSprintAndRank``...), with a documented JQL subset. A run
serves them on Jira's own paths too (``{tools_url}/kestrel.atlassian.net/rest/
api/3/...``, sw_runtime/runs/addresses.py), where the ``jira`` SDK works.

- ``workflows.py``: statuses, transitions, issue types, priorities, link types
- ``state.py``, ``planted.py``, ``texts.py``: the seeded site
- ``schema.py``: the records as types
- ``jql.py``, ``jql_run.py``: the JQL parser, and running a query
- ``args.py``, ``rules.py``, ``views.py``: arguments, Jira's checks, Jira's shapes
- ``tools.py``, ``activity.py``, ``watchers.py``, ``site.py``: the 30 tools
- ``cast.py``, ``checks.py``, ``tasks*.py``: tr-01 to tr-26
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="tracker",
    version="1.0.0",
    title="Tracker",
    description=("A Jira Cloud twin: projects, issues in workflows with conditioned transitions, epics, components, "
                 "fix versions, sprints on boards, comments, links and worklogs, served as Jira REST API v3's "
                 "operations with JQL search."),
)

__all__ = ["WORLD"]
