"""The real APIs' methods and paths, and the tool each one is.

``route(method, path)`` maps a request under ``tools_url`` (``path`` is what
follows it, ``gmail.googleapis.com/gmail/v1/users/me/messages`` or
``api.github.com/repos/acme/api/pulls/7``,
``brightwater.zendesk.com/api/v2/tickets/1042.json``) to the world's tool and the
arguments found in the path. Query and body arguments
are added by the gateway (``gateway.py``): path, query and body merge into the
one object the tool takes, as in the trace of reference 001.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GMAIL = r"gmail\.googleapis\.com/gmail/v1/users/(?P<userId>[^/]+)"
CALENDAR = r"www\.googleapis\.com/calendar/v3"
SLACK = r"slack\.com/api/(?P<method>[A-Za-z][A-Za-z0-9_.]*)"
GITHUB = r"api\.github\.com"
JIRA = r"[a-z0-9][a-z0-9-]*\.atlassian\.net/rest/"
STRIPE = r"api\.stripe\.com/v1"
ZENDESK = r"[a-z0-9][a-z0-9-]*\.zendesk\.com/api/v2"  # any account's subdomain


@dataclass(frozen=True)
class Address:
    provider: str
    surface: str
    methods: tuple
    pattern: re.Pattern
    tool: str | None  # None: named by the path (Slack's method)
    template: str | None = None  # the REST docs' path, where they give one (GitHub's, Jira's)
    ok_status: int = 200  # a success's HTTP status, where the API varies it (Jira's 201 and 204)
    body_field: str | None = None  # the argument a bare JSON body is (Jira's addWatcher takes "accountId")


def _a(provider, surface, methods, pattern, tool=None, template=None, ok_status=200, body_field=None) -> Address:
    return Address(provider, surface, tuple(methods.split()), re.compile(pattern + r"/?\Z"), tool, template,
                   ok_status, body_field)


def _github(method: str, template: str, tool: str) -> Address:
    """GitHub's REST docs' template (``/repos/{owner}/{repo}/pulls/{pull_number}``):
    ``{name+}`` takes the rest of the path (a file's), ``{*_number}`` digits only
    (``/issues/x`` is GitHub's 404, not a refused call)."""
    pattern = GITHUB
    for part in re.split(r"(\{[a-z_]+\+?\})", template):
        if not part.startswith("{"):
            pattern += re.escape(part)
            continue
        name = part.strip("{}+")
        pattern += f"(?P<{name}>.+)" if part.endswith("+}") else (
            f"(?P<{name}>[0-9]+)" if name.endswith("_number") else f"(?P<{name}>[^/]+)")
    return _a("github", "rest", method, pattern, tool, template)


def _jira(method: str, template: str, tool: str, ok_status: int = 200, body_field: str | None = None) -> Address:
    """Jira Cloud's REST docs' template under any site (``{site}.atlassian.net``):
    ``/rest/api/3/issue/{issueIdOrKey}`` also answers as API v2 and ``latest``
    (pycontribs' SDK uses both), ``/rest/agile/1.0/...`` as written; ``{boardId}``
    and ``{sprintId}`` take digits only."""
    pattern = JIRA
    for part in re.split(r"(\{[A-Za-z]+\})", template.removeprefix("/rest/")):
        if not part.startswith("{"):
            pattern += re.escape(part).replace(r"api/3/", "api/(?:3|2|latest)/")
            continue
        name = part.strip("{}")
        pattern += f"(?P<{name}>[0-9]+)" if name in ("boardId", "sprintId") else f"(?P<{name}>[^/]+)"
    return _a("jira", "rest", method, pattern, tool, template, ok_status, body_field)


def _zendesk(method: str, template: str, tool: str, ok_status: int = 200) -> Address:
    """Zendesk's REST reference's path (``/tickets/{ticket_id}.json``) under any
    account's subdomain: every ``{*_id}`` takes digits, and the ``.json`` ending is
    optional, as Zendesk's is."""
    pattern = ZENDESK
    for part in re.split(r"(\{[a-z_]+\})", template.removesuffix(".json")):
        pattern += f"(?P<{part.strip('{}')}>[0-9]+)" if part.startswith("{") else re.escape(part)
    return _a("zendesk", "rest", method, pattern + r"(?:\.json)?", tool, template, ok_status)


def _stripe(method: str, path: str, tool: str) -> Address:
    """Stripe's reference path (``/customers/{id}``, under ``/v1``); ids are one path segment."""
    pattern = STRIPE + re.sub(r"\\\{id\\\}", "(?P<id>[^/]+)", re.escape(path))
    return _a("stripe", "rest", method, pattern, tool, "/v1" + path)


_STRIPE = [("GET", "/customers", "Customer.list"), ("POST", "/customers", "Customer.create"),
           ("GET", "/customers/search", "Customer.search"), ("GET", "/customers/{id}", "Customer.retrieve"),
           ("POST", "/customers/{id}", "Customer.modify"), ("GET", "/payment_methods", "PaymentMethod.list"),
           ("GET", "/products", "Product.list"), ("GET", "/prices", "Price.list"),
           ("GET", "/subscriptions", "Subscription.list"), ("GET", "/subscriptions/{id}", "Subscription.retrieve"),
           ("POST", "/subscriptions/{id}", "Subscription.modify"), ("DELETE", "/subscriptions/{id}", "Subscription.cancel"),
           ("GET", "/invoices", "Invoice.list"), ("POST", "/invoices/create_preview", "Invoice.create_preview"),
           ("GET", "/invoices/{id}", "Invoice.retrieve"), ("POST", "/invoices/{id}/pay", "Invoice.pay"),
           ("POST", "/invoices/{id}/void", "Invoice.void_invoice"),
           ("POST", "/invoices/{id}/mark_uncollectible", "Invoice.mark_uncollectible"),
           ("GET", "/invoiceitems", "InvoiceItem.list"), ("GET", "/payment_intents", "PaymentIntent.list"),
           ("GET", "/payment_intents/{id}", "PaymentIntent.retrieve"), ("GET", "/charges", "Charge.list"),
           ("GET", "/charges/{id}", "Charge.retrieve"), ("GET", "/refunds", "Refund.list"),
           ("POST", "/refunds", "Refund.create"), ("GET", "/refunds/{id}", "Refund.retrieve"),
           ("GET", "/disputes", "Dispute.list"), ("GET", "/disputes/{id}", "Dispute.retrieve"),
           ("POST", "/disputes/{id}", "Dispute.modify"), ("POST", "/disputes/{id}/close", "Dispute.close"),
           ("GET", "/coupons", "Coupon.list"), ("GET", "/promotion_codes", "PromotionCode.list"),
           ("GET", "/balance_transactions", "BalanceTransaction.list"), ("GET", "/payouts", "Payout.list"),
           ("GET", "/payouts/{id}", "Payout.retrieve"), ("GET", "/events", "Event.list")]

ADDRESSES = [
    _a("google.gmail", "rest", "GET", GMAIL + "/messages", "gmail.messages.list"),
    _a("google.gmail", "rest", "POST", GMAIL + "/messages/send", "gmail.messages.send"),
    _a("google.gmail", "rest", "GET", GMAIL + "/messages/(?P<id>[^/]+)", "gmail.messages.get"),
    _a("google.gmail", "rest", "POST", GMAIL + "/messages/(?P<id>[^/]+)/modify", "gmail.messages.modify"),
    _a("google.gmail", "rest", "GET", GMAIL + "/threads/(?P<id>[^/]+)", "gmail.threads.get"),
    _a("google.gmail", "rest", "GET", GMAIL + "/labels", "gmail.labels.list"),
    _a("google.gmail", "rest", "GET", GMAIL + "/drafts", "gmail.drafts.list"),
    _a("google.gmail", "rest", "POST", GMAIL + "/drafts", "gmail.drafts.create"),
    _a("google.gmail", "rest", "GET", GMAIL + "/drafts/(?P<id>[^/]+)", "gmail.drafts.get"),
    _a("google.calendar", "rest", "GET", CALENDAR + "/users/me/calendarList", "calendar.calendarList.list"),
    _a("google.calendar", "rest", "GET", CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events", "calendar.events.list"),
    _a("google.calendar", "rest", "POST", CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events",
       "calendar.events.insert"),
    _a("google.calendar", "rest", "GET", CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)",
       "calendar.events.get"),
    _a("google.calendar", "rest", "PATCH PUT",
       CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)", "calendar.events.patch"),
    _a("google.calendar", "rest", "DELETE",
       CALENDAR + "/calendars/(?P<calendarId>[^/]+)/events/(?P<eventId>[^/]+)", "calendar.events.delete"),
    _a("google.calendar", "rest", "POST", CALENDAR + "/freeBusy", "calendar.freebusy.query"),
    _a("slack", "web-api", "GET POST", SLACK),
    _github("GET", "/repos/{owner}/{repo}", "repos.get"),
    _github("GET", "/repos/{owner}/{repo}/branches", "repos.listBranches"),
    _github("GET", "/repos/{owner}/{repo}/contents", "repos.getContent"),
    _github("GET", "/repos/{owner}/{repo}/contents/{path+}", "repos.getContent"),
    _github("GET", "/repos/{owner}/{repo}/commits", "repos.listCommits"),
    _github("GET", "/repos/{owner}/{repo}/commits/{ref}", "repos.getCommit"),
    _github("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs", "checks.listForRef"),
    _github("GET", "/repos/{owner}/{repo}/issues", "issues.listForRepo"),
    _github("POST", "/repos/{owner}/{repo}/issues", "issues.create"),
    _github("GET", "/repos/{owner}/{repo}/issues/{issue_number}", "issues.get"),
    _github("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", "issues.update"),
    _github("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels", "issues.addLabels"),
    _github("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "issues.listComments"),
    _github("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", "issues.createComment"),
    _github("GET", "/repos/{owner}/{repo}/labels", "issues.listLabelsForRepo"),
    _github("GET", "/repos/{owner}/{repo}/pulls", "pulls.list"),
    _github("GET", "/repos/{owner}/{repo}/pulls/{pull_number}", "pulls.get"),
    _github("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files", "pulls.listFiles"),
    _github("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "pulls.listReviews"),
    _github("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", "pulls.createReview"),
    _github("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", "pulls.requestReviewers"),
    _github("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", "pulls.merge"),
    _github("GET", "/orgs/{org}/teams/{team_slug}/members", "teams.listMembersInOrg"),
    _jira("GET", "/rest/api/3/serverInfo", "jira.getServerInfo"),
    _jira("GET", "/rest/api/3/myself", "jira.getCurrentUser"),
    _jira("GET", "/rest/api/3/field", "jira.getFields"),
    _jira("GET", "/rest/api/3/issueLinkType", "jira.getIssueLinkTypes"),
    _jira("GET", "/rest/api/3/project", "jira.getAllProjects"),
    _jira("GET", "/rest/api/3/project/{projectIdOrKey}", "jira.getProject"),
    _jira("GET", "/rest/api/3/project/{projectIdOrKey}/versions", "jira.getProjectVersions"),
    _jira("GET", "/rest/api/3/project/{projectIdOrKey}/components", "jira.getProjectComponents"),
    _jira("GET", "/rest/api/3/user/search", "jira.findUsers"),
    _jira("GET POST", "/rest/api/3/search", "jira.searchForIssuesUsingJql"),
    _jira("GET POST", "/rest/api/3/search/jql", "jira.searchAndReconsileIssuesUsingJql"),
    _jira("POST", "/rest/api/3/issue", "jira.createIssue", 201),
    _jira("GET", "/rest/api/3/issue/{issueIdOrKey}", "jira.getIssue"),
    _jira("PUT", "/rest/api/3/issue/{issueIdOrKey}", "jira.editIssue", 204),
    _jira("DELETE", "/rest/api/3/issue/{issueIdOrKey}", "jira.deleteIssue", 204),
    _jira("GET", "/rest/api/3/issue/{issueIdOrKey}/transitions", "jira.getTransitions"),
    _jira("POST", "/rest/api/3/issue/{issueIdOrKey}/transitions", "jira.doTransition", 204),
    _jira("GET", "/rest/api/3/issue/{issueIdOrKey}/comment", "jira.getComments"),
    _jira("POST", "/rest/api/3/issue/{issueIdOrKey}/comment", "jira.addComment", 201),
    _jira("PUT", "/rest/api/3/issue/{issueIdOrKey}/assignee", "jira.assignIssue", 204),
    _jira("GET", "/rest/api/3/issue/{issueIdOrKey}/worklog", "jira.getIssueWorklog"),
    _jira("POST", "/rest/api/3/issue/{issueIdOrKey}/worklog", "jira.addWorklog", 201),
    _jira("GET", "/rest/api/3/issue/{issueIdOrKey}/watchers", "jira.getIssueWatchers"),
    _jira("POST", "/rest/api/3/issue/{issueIdOrKey}/watchers", "jira.addWatcher", 204, body_field="accountId"),
    _jira("DELETE", "/rest/api/3/issue/{issueIdOrKey}/watchers", "jira.removeWatcher", 204),
    _jira("POST", "/rest/api/3/issueLink", "jira.linkIssues", 201),
    _jira("GET", "/rest/agile/1.0/board", "jira.getAllBoards"),
    _jira("GET", "/rest/agile/1.0/board/{boardId}/sprint", "jira.getAllSprints"),
    _jira("GET", "/rest/agile/1.0/sprint/{sprintId}/issue", "jira.getIssuesForSprint"),
    _jira("POST", "/rest/agile/1.0/sprint/{sprintId}/issue", "jira.moveIssuesToSprintAndRank", 204),
    # Fixed paths first: /customers/search and /invoices/create_preview are not ids.
    *[_stripe(m, p, t) for m, p, t in sorted(_STRIPE, key=lambda r: "{id}" in r[1])],
    _zendesk("GET", "/tickets.json", "zendesk.tickets.list"),
    _zendesk("POST", "/tickets.json", "zendesk.tickets.create", 201),
    _zendesk("PUT", "/tickets/update_many.json", "zendesk.tickets.update_many"),
    _zendesk("GET", "/tickets/{ticket_id}.json", "zendesk.tickets.show"),
    _zendesk("PUT", "/tickets/{ticket_id}.json", "zendesk.tickets.update"),
    _zendesk("POST", "/tickets/{ticket_id}/merge.json", "zendesk.tickets.merge"),
    _zendesk("GET", "/tickets/{ticket_id}/comments.json", "zendesk.tickets.comments.list"),
    _zendesk("GET", "/tickets/{ticket_id}/audits.json", "zendesk.tickets.audits.list"),
    _zendesk("GET", "/tickets/{ticket_id}/macros/{macro_id}/apply.json", "zendesk.macros.apply"),
    _zendesk("GET", "/search.json", "zendesk.search"),
    _zendesk("GET", "/users.json", "zendesk.users.list"),
    _zendesk("GET", "/users/{user_id}.json", "zendesk.users.show"),
    _zendesk("GET", "/users/{user_id}/tickets/requested.json", "zendesk.users.tickets.requested"),
    _zendesk("GET", "/organizations.json", "zendesk.organizations.list"),
    _zendesk("GET", "/organizations/{organization_id}.json", "zendesk.organizations.show"),
    _zendesk("GET", "/groups.json", "zendesk.groups.list"),
    _zendesk("GET", "/macros.json", "zendesk.macros.list"),
    _zendesk("GET", "/views.json", "zendesk.views.list"),
    _zendesk("GET", "/views/{view_id}/tickets.json", "zendesk.views.tickets"),
    _zendesk("GET", "/slas/policies.json", "zendesk.slas.policies.list"),
    _zendesk("GET", "/ticket_fields.json", "zendesk.ticket_fields.list"),
    _zendesk("GET", "/satisfaction_ratings.json", "zendesk.satisfaction_ratings.list"),
    _zendesk("GET", "/help_center/articles/search.json", "zendesk.help_center.articles.search"),
]


@dataclass(frozen=True)
class Routed:
    address: Address
    tool: str
    path_args: dict


def route(method: str, path: str) -> Routed | None:
    """The tool a real method and path name, or None when none does."""
    for a in ADDRESSES:
        m = a.pattern.match(path)
        if m is None or method not in a.methods:
            continue
        args = {k: v for k, v in m.groupdict().items() if k != "method"}
        tool = a.tool if a.tool is not None else "slack." + m.group("method")
        return Routed(a, tool, args)
    return None

