"""Codehost's tools on GitHub's REST paths, for a door that serves them there.

``ROUTES`` pairs each tool with its method and path template
(``GET /repos/{owner}/{repo}``); ``match(method, path)`` answers the tool and
the path's parameters, which join the query string or JSON body to make the
tool's arguments. A gateway at ``{tools_url}/api.github.com/...`` needs
nothing else.
"""

from __future__ import annotations

import re

ROUTES = (
    ("GET", "/repos/{owner}/{repo}", "repos.get"),
    ("GET", "/repos/{owner}/{repo}/branches", "repos.listBranches"),
    ("GET", "/repos/{owner}/{repo}/contents", "repos.getContent"),
    ("GET", "/repos/{owner}/{repo}/contents/{path+}", "repos.getContent"),
    ("GET", "/repos/{owner}/{repo}/commits", "repos.listCommits"),
    ("GET", "/repos/{owner}/{repo}/commits/{ref}", "repos.getCommit"),
    ("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", "checks.listForRef"),
    ("GET", "/repos/{owner}/{repo}/issues", "issues.listForRepo"),
    ("POST", "/repos/{owner}/{repo}/issues", "issues.create"),
    ("GET", "/repos/{owner}/{repo}/issues/{issue_number}", "issues.get"),
    ("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", "issues.update"),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "issues.addLabels"),
    ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "issues.listComments"),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "issues.createComment"),
    ("GET", "/repos/{owner}/{repo}/labels", "issues.listLabelsForRepo"),
    ("GET", "/repos/{owner}/{repo}/pulls", "pulls.list"),
    ("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "pulls.get"),
    ("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", "pulls.listFiles"),
    ("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "pulls.listReviews"),
    ("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "pulls.createReview"),
    ("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", "pulls.requestReviewers"),
    ("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", "pulls.merge"),
    ("GET", "/orgs/{org}/teams/{team_slug}/members", "teams.listMembersInOrg"),
)
_INTS = {"issue_number", "pull_number"}


def _compile(template: str) -> re.Pattern:
    out = ""
    for part in re.split(r"(\{[a-z_]+\+?\})", template):
        if part.startswith("{"):
            name = part.strip("{}+")
            out += f"(?P<{name}>.+)" if part.endswith("+}") else (
                f"(?P<{name}>[0-9]+)" if name in _INTS else f"(?P<{name}>[^/]+)")
        else:
            out += re.escape(part)
    return re.compile(out + "$")


_COMPILED = [(method, _compile(template), tool) for method, template, tool in ROUTES]


def match(method: str, path: str):
    """``(tool, path_params)`` for a GitHub REST call, or None."""
    for m, pattern, tool in _COMPILED:
        if m == method.upper():
            found = pattern.match(path)
            if found:
                params = found.groupdict()
                return tool, {k: int(v) if k in _INTS else v for k, v in params.items()}
    return None
