"""Codehost: a GitHub-like twin after reference 003's sample ``acme/api``.

Repositories with files at commits, branches, issues, pull requests with
diffs, reviews and review comments, labels, CI check runs, users and teams.
Tools are GitHub's REST operations by their octokit names (``repos.get``,
``issues.listForRepo``, ``pulls.createReview``, ``checks.listForRef``...)
with GitHub's parameter names and result shapes. The default seed holds
``acme/api`` and ``acme/web``; a custom seed replaces them whole, and then
``repos.get acme/api`` answers GitHub's 404 (as ``ok: false`` data). A run
serves the tools on GitHub's own paths too (``{tools_url}/api.github.com/...``,
sw_runtime/runs/addresses.py).

- ``state.py``: the data model and the seeded default world
- ``schema.py``: the records as types, which custom seeds are parsed with
- ``tools.py``: the 22 tools
- ``tasks.py``: ch-01 to ch-15
- ``policy.md``: the rules the agent is given
"""

from __future__ import annotations

from ..world import from_package

WORLD = from_package(
    __name__,
    name="codehost",
    version="1.0.0",
    title="Codehost",
    description=("A GitHub-like code host: repositories, commits, branches, issues, pull requests with diffs and "
                 "reviews, labels, CI check runs, users and teams, served as GitHub's REST operations."),
)

__all__ = ["WORLD"]
