"""Each real method and path names the world's tool; every tool of
offsite-planning, of codehost and of billing has an address, and no address names a tool
its world lacks."""

from __future__ import annotations

import pytest

from sw_runtime.runs import addresses
from sw_runtime.worlds.codehost import WORLD as CODEHOST
from sw_runtime.worlds.offsite_planning import WORLD

G = "gmail.googleapis.com/gmail/v1/users/me"
C = "www.googleapis.com/calendar/v3"
R = "api.github.com/repos/acme/api"
S = "api.stripe.com/v1"
API = {"owner": "acme", "repo": "api"}


@pytest.mark.parametrize("method,path,tool,args", [
    ("GET", f"{G}/messages", "gmail.messages.list", {"userId": "me"}),
    ("POST", f"{G}/messages/send", "gmail.messages.send", {"userId": "me"}),
    ("GET", f"{G}/messages/m_q4_1", "gmail.messages.get", {"userId": "me", "id": "m_q4_1"}),
    ("POST", f"{G}/messages/m_q4_1/modify", "gmail.messages.modify", {"userId": "me", "id": "m_q4_1"}),
    ("GET", f"{G}/threads/t_q4offsite", "gmail.threads.get", {"userId": "me", "id": "t_q4offsite"}),
    ("GET", f"{G}/labels", "gmail.labels.list", {"userId": "me"}),
    ("GET", f"{G}/drafts", "gmail.drafts.list", {"userId": "me"}),
    ("POST", f"{G}/drafts", "gmail.drafts.create", {"userId": "me"}),
    ("GET", f"{G}/drafts/r-1", "gmail.drafts.get", {"userId": "me", "id": "r-1"}),
    ("GET", f"{C}/users/me/calendarList", "calendar.calendarList.list", {}),
    ("GET", f"{C}/calendars/primary/events", "calendar.events.list", {"calendarId": "primary"}),
    ("POST", f"{C}/calendars/erik@nordlys.no/events", "calendar.events.insert", {"calendarId": "erik@nordlys.no"}),
    ("GET", f"{C}/calendars/primary/events/e1", "calendar.events.get", {"calendarId": "primary", "eventId": "e1"}),
    ("PATCH", f"{C}/calendars/primary/events/e1", "calendar.events.patch", {"calendarId": "primary", "eventId": "e1"}),
    ("DELETE", f"{C}/calendars/primary/events/e1", "calendar.events.delete",
     {"calendarId": "primary", "eventId": "e1"}),
    ("POST", f"{C}/freeBusy", "calendar.freebusy.query", {}),
    ("POST", "slack.com/api/chat.postMessage", "slack.chat.postMessage", {}),
    ("GET", "slack.com/api/conversations.history", "slack.conversations.history", {}),
    ("GET", R, "repos.get", API),
    ("GET", f"{R}/contents/app/billing.py", "repos.getContent", {**API, "path": "app/billing.py"}),
    ("PUT", f"{R}/pulls/7/merge", "pulls.merge", {**API, "pull_number": "7"}),
    ("GET", f"{R}/commits/main/check-runs", "checks.listForRef", {**API, "ref": "main"}),
    ("GET", "api.github.com/orgs/acme/teams/backend/members", "teams.listMembersInOrg",
     {"org": "acme", "team_slug": "backend"}),
    ("GET", f"{S}/customers/search", "Customer.search", {}),
    ("GET", f"{S}/customers/cus_A1", "Customer.retrieve", {"id": "cus_A1"}),
    ("POST", f"{S}/subscriptions/sub_A1", "Subscription.modify", {"id": "sub_A1"}),
    ("DELETE", f"{S}/subscriptions/sub_A1", "Subscription.cancel", {"id": "sub_A1"}),
    ("POST", f"{S}/invoices/create_preview", "Invoice.create_preview", {}),
    ("POST", f"{S}/invoices/in_A1/void", "Invoice.void_invoice", {"id": "in_A1"}),
    ("POST", f"{S}/refunds", "Refund.create", {}),
])
def test_real_requests_name_their_tool(method, path, tool, args):
    routed = addresses.route(method, path)
    assert routed is not None and (routed.tool, routed.path_args) == (tool, args)


@pytest.mark.parametrize("method,path", [
    ("DELETE", f"{G}/messages"), ("GET", f"{C}/freeBusy"), ("GET", "gmail.googleapis.com/gmail/v2/users/me/labels"),
    ("GET", "example.com/api/x"), ("PUT", "slack.com/api/chat.postMessage"), ("GET", "slack.com/api/"),
    ("DELETE", R), ("GET", f"{R}/issues/x"), ("GET", "api.github.com/repos/acme"),
    ("DELETE", f"{S}/customers"), ("GET", f"{S}/invoices/in_A1/void"), ("GET", "api.stripe.com/v2/customers"),
])
def test_other_requests_name_none(method, path):
    assert addresses.route(method, path) is None


def test_every_offsite_tool_has_an_address():
    named = {a.tool for a in addresses.ADDRESSES
             if a.tool and a.provider not in ("github", "jira", "stripe", "zendesk")} | {
        t.alias for t in WORLD.tools if t.alias.startswith("slack.")}
    assert named == {t.alias or t.name for t in WORLD.tools}  # addresses name the real APIs' methods


def test_every_codehost_tool_has_its_github_path():
    assert {a.tool for a in addresses.ADDRESSES if a.provider == "github"} == {t.alias for t in CODEHOST.tools}
