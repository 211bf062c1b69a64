"""Helpdesk's reading tools: Zendesk's list, show and search operations.

Each answers Zendesk's body for its path (``GET /api/v2/tickets/{ticket_id}.json``
answers ``{"ticket": {...}}``, a list ``{"tickets": [...], "next_page",
"previous_page", "count"}``) and refuses an unknown id with Zendesk's 404.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal
from urllib.parse import quote_plus

import msgspec
from msgspec import Meta

from ..tool import tool
from .search import PRIORITY_ORDER, STATUS_ORDER, Searcher
from .shapes import Id, Page, PerPage, not_found, page, ticket_view
from .state import ASSISTANT_ID

Include = Annotated[str, Meta(max_length=100, description="Sideloads, comma-separated: slas adds each ticket's "
                                                          "SLA metrics with their breach_at times.")]
SortOrder = Literal["asc", "desc"]
TICKET_READS = ("tickets", "comments", "users", "organizations", "sla_policies")


class ListArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    page: Page = 1
    per_page: PerPage = 100


class TicketsArgs(ListArgs, kw_only=True):
    sort_by: Literal["id", "created_at", "updated_at", "status", "priority"] = "id"
    sort_order: SortOrder = "asc"
    include: Include | None = None


def _sorted(tickets: list, by: str, order: str) -> list:
    def key(t):
        if by == "status":
            return (STATUS_ORDER.index(t["status"]), t["id"])
        if by == "priority":
            return (PRIORITY_ORDER.index(t["priority"]) + 1 if t["priority"] else 0, t["id"])
        return (t[by], t["id"])
    return sorted(tickets, key=key, reverse=order == "desc")


def _tickets(ctx, args, tickets: list, path: str) -> dict:
    out = page(_sorted(tickets, args.sort_by, args.sort_order), "tickets", path, args)
    out["tickets"] = [ticket_view(ctx.store, t, args.include) for t in out["tickets"]]
    return out


@tool(writes=False, params=TicketsArgs, name="zendesk.tickets.list", pure=True, reads=TICKET_READS)
def tickets_list(ctx, args):
    """List Tickets (GET /api/v2/tickets.json): every ticket, by id unless sort_by says otherwise, 100 a page."""
    return _tickets(ctx, args, [t for _, t in ctx.store.scan("tickets")], "tickets.json")


class TicketArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ticket_id: Annotated[Id, Meta(description="The ticket's id, e.g. 1042.")]
    include: Include | None = None


def get_ticket(store, ticket_id: int) -> dict:
    t = store.get("tickets", str(ticket_id))
    if t is None:
        raise not_found(f"Ticket {ticket_id}")
    return t


@tool(writes=False, params=TicketArgs, name="zendesk.tickets.show", pure=True, reads=TICKET_READS)
def tickets_show(ctx, args):
    """Show Ticket (GET /api/v2/tickets/{ticket_id}.json): subject, description, status, priority, type, tags,
    requester, assignee, group, organization, custom_fields, due_at, via. include=slas adds its SLA metrics."""
    return {"ticket": ticket_view(ctx.store, get_ticket(ctx.store, args.ticket_id), args.include)}


class TicketListArgs(ListArgs, kw_only=True):
    ticket_id: Annotated[Id, Meta(description="The ticket's id.")]
    sort_order: SortOrder = "asc"


@tool(writes=False, params=TicketListArgs, name="zendesk.tickets.comments.list", pure=True,
      reads=("tickets", "comments"))
def comments_list(ctx, args):
    """List Comments (GET /api/v2/tickets/{ticket_id}/comments.json): the ticket's public replies and internal
    notes (public: false), oldest first, each with author_id and created_at."""
    get_ticket(ctx.store, args.ticket_id)
    items = sorted((c for _, c in ctx.store.scan("comments", {"ticket_id": args.ticket_id})),
                   key=lambda c: (c["created_at"], c["id"]), reverse=args.sort_order == "desc")
    return page(items, "comments", f"tickets/{args.ticket_id}/comments.json", args)


@tool(writes=False, params=TicketListArgs, name="zendesk.tickets.audits.list", pure=True, reads=("tickets", "audits"))
def audits_list(ctx, args):
    """List Audits for a Ticket (GET /api/v2/tickets/{ticket_id}/audits.json): every change made to the ticket,
    oldest first; each audit has author_id, created_at and events (Create, Change with field_name, value and
    previous_value, Comment)."""
    get_ticket(ctx.store, args.ticket_id)
    items = sorted((a for _, a in ctx.store.scan("audits", {"ticket_id": args.ticket_id})),
                   key=lambda a: (a["created_at"], a["id"]), reverse=args.sort_order == "desc")
    return page(items, "audits", f"tickets/{args.ticket_id}/audits.json", args)


class SearchArgs(ListArgs, kw_only=True):
    query: Annotated[str, Meta(min_length=1, max_length=1000, description=(
        "Zendesk search syntax, e.g. 'type:ticket status<solved requester:ana@example.com'. Properties: type "
        "(ticket, user, organization), status, priority, ticket_type, tags, assignee, requester, group, "
        "organization, subject, description, created, updated, fieldvalue, custom_field_<id>; users: role, "
        "email, name; '-' negates; bare words search the text."))]
    sort_by: Literal["created_at", "updated_at", "priority", "status", "ticket_type"] | None = None
    sort_order: SortOrder = "desc"


@tool(writes=False, params=SearchArgs, name="zendesk.search", pure=True,
      reads=("tickets", "comments", "users", "organizations", "groups"))
def search(ctx, args):
    """Search (GET /api/v2/search.json?query=...): tickets, users and organizations matching a query in
    Zendesk's syntax; each result has result_type. Without sort_by, newest updated first."""
    found = Searcher(ctx.store, ASSISTANT_ID).run(args.query)
    by = args.sort_by or "updated_at"
    if by == "ticket_type":
        by = "type"

    def key(item):
        kind, rec = item
        v = rec.get(by)
        if by == "status" and v is not None:
            v = STATUS_ORDER.index(v)
        elif by == "priority":
            v = PRIORITY_ORDER.index(v) + 1 if v else 0
        return (v is not None, v if v is not None else "", rec["id"])
    found.sort(key=key, reverse=args.sort_order == "desc")
    results = [{**rec, "result_type": kind} for kind, rec in found]
    out = page(results, "results", "search.json", args, query=f"query={quote_plus(args.query)}")
    out["facets"] = None
    return out


class UsersArgs(ListArgs, kw_only=True):
    role: Literal["end-user", "agent", "admin"] | None = None


@tool(writes=False, params=UsersArgs, name="zendesk.users.list", pure=True, reads=("users",))
def users_list(ctx, args):
    """List Users (GET /api/v2/users.json): end users, agents and admins, by id; role filters."""
    users = [u for _, u in ctx.store.scan("users") if args.role is None or u["role"] == args.role]
    return page(users, "users", "users.json", args)


class UserArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    user_id: Annotated[Id, Meta(description="The user's id.")]


def get_user(store, user_id: int) -> dict:
    u = store.get("users", str(user_id))
    if u is None:
        raise not_found(f"User {user_id}")
    return u


@tool(writes=False, params=UserArgs, name="zendesk.users.show", pure=True, reads=("users",))
def users_show(ctx, args):
    """Show User (GET /api/v2/users/{user_id}.json): name, email, role, organization_id, tags, suspended,
    notes."""
    return {"user": get_user(ctx.store, args.user_id)}


class RequestedArgs(TicketsArgs, kw_only=True):
    user_id: Annotated[Id, Meta(description="The requester's user id.")]


@tool(writes=False, params=RequestedArgs, name="zendesk.users.tickets.requested", pure=True, reads=TICKET_READS)
def users_requested(ctx, args):
    """List Requested Tickets (GET /api/v2/users/{user_id}/tickets/requested.json): every ticket the user
    asked for, in every status."""
    get_user(ctx.store, args.user_id)
    mine = [t for _, t in ctx.store.scan("tickets", {"requester_id": args.user_id})]
    return _tickets(ctx, args, mine, f"users/{args.user_id}/tickets/requested.json")


@tool(writes=False, params=ListArgs, name="zendesk.organizations.list", pure=True, reads=("organizations",))
def organizations_list(ctx, args):
    """List Organizations (GET /api/v2/organizations.json): name, domain_names, tags (vip marks a VIP
    account), notes, group_id."""
    return page([o for _, o in ctx.store.scan("organizations")], "organizations", "organizations.json", args)


class OrgArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    organization_id: Annotated[Id, Meta(description="The organization's id.")]


@tool(writes=False, params=OrgArgs, name="zendesk.organizations.show", pure=True, reads=("organizations",))
def organizations_show(ctx, args):
    """Show Organization (GET /api/v2/organizations/{organization_id}.json)."""
    org = ctx.store.get("organizations", str(args.organization_id))
    if org is None:
        raise not_found(f"Organization {args.organization_id}")
    return {"organization": org}


@tool(writes=False, params=ListArgs, name="zendesk.groups.list", pure=True, reads=("groups",))
def groups_list(ctx, args):
    """List Groups (GET /api/v2/groups.json): the teams tickets are routed to, with their ids."""
    return page([g for _, g in ctx.store.scan("groups")], "groups", "groups.json", args)


class MacrosArgs(ListArgs, kw_only=True):
    active: bool | None = None


@tool(writes=False, params=MacrosArgs, name="zendesk.macros.list", pure=True, reads=("macros",))
def macros_list(ctx, args):
    """List Macros (GET /api/v2/macros.json): canned responses; each has actions (comment_value,
    comment_mode_is_public, status, priority, group_id, current_tags). active filters."""
    items = [m for _, m in ctx.store.scan("macros") if args.active is None or m["active"] == args.active]
    return page(items, "macros", "macros.json", args)


class ApplyArgs(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    ticket_id: Annotated[Id, Meta(description="The ticket to apply the macro to.")]
    macro_id: Annotated[Id, Meta(description="The macro's id.")]


_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_.]+)\s*\}\}")


def _render(store, ticket: dict, text: str) -> str:
    """Zendesk's placeholders in a macro's comment; [BRACKETS] are the agent's to fill."""
    req = store.get("users", str(ticket["requester_id"]))
    values = {"ticket.id": str(ticket["id"]), "ticket.requester.name": req["name"],
              "ticket.requester.first_name": req["name"].split()[0], "ticket.subject": ticket["subject"],
              "current_user.name": "Brightwater Assistant", "current_user.first_name": "Brightwater"}
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), ""), text)


@tool(writes=False, params=ApplyArgs, name="zendesk.macros.apply", pure=True,
      reads=("tickets", "macros", "users"))
def macros_apply(ctx, args):
    """Show Changes to Ticket (GET /api/v2/tickets/{ticket_id}/macros/{macro_id}/apply.json): what the macro
    would do to the ticket, with its comment's placeholders rendered. Nothing changes: send the result's ticket
    fields and comment with zendesk.tickets.update (after filling any [BRACKETED] placeholder)."""
    ticket = get_ticket(ctx.store, args.ticket_id)
    macro = ctx.store.get("macros", str(args.macro_id))
    if macro is None:
        raise not_found(f"Macro {args.macro_id}")
    changes: dict = {"id": ticket["id"], "url": ticket["url"]}
    comment = {"body": "", "public": True}
    tags = list(ticket["tags"])
    for a in macro["actions"]:
        f, v = a["field"], a["value"]
        if f == "comment_value":
            comment["body"] = _render(ctx.store, ticket, v)
        elif f == "comment_mode_is_public":
            comment["public"] = bool(v)
        elif f == "current_tags":
            tags += [x for x in v.split() if x not in tags]
            changes["tags"] = tags
        elif f == "set_tags":
            changes["tags"] = tags = v.split()
        else:
            changes[f] = v
    result = {"ticket": changes}
    if comment["body"]:
        comment["html_body"] = f"<div class=\"zd-comment\"><p>{comment['body']}</p></div>"
        result["comment"] = comment
    return {"result": result}


@tool(writes=False, params=ListArgs, name="zendesk.views.list", pure=True, reads=("views",))
def views_list(ctx, args):
    """List Views (GET /api/v2/views.json): saved ticket lists with their conditions."""
    return page([v for _, v in ctx.store.scan("views")], "views", "views.json", args)


class ViewArgs(ListArgs, kw_only=True):
    view_id: Annotated[Id, Meta(description="The view's id.")]
    include: Include | None = None


def _meets(ticket: dict, cond: dict) -> bool:
    f, op, v = cond["field"], cond["operator"], cond["value"]
    if f == "status":
        a, b = STATUS_ORDER.index(ticket["status"]), STATUS_ORDER.index(v)
        return {"is": a == b, "is_not": a != b, "less_than": a < b, "greater_than": a > b}[op]
    have = ticket.get(f)
    want = ASSISTANT_ID if v == "current_user" else (None if v == "" else v)
    return (have == want) if op == "is" else (have != want)


@tool(writes=False, params=ViewArgs, name="zendesk.views.tickets", pure=True, reads=("views",) + TICKET_READS)
def views_tickets(ctx, args):
    """List Tickets From a View (GET /api/v2/views/{view_id}/tickets.json): the tickets meeting the view's
    conditions, newest first. include=slas adds each ticket's SLA metrics."""
    view = ctx.store.get("views", str(args.view_id))
    if view is None:
        raise not_found(f"View {args.view_id}")
    items = [t for _, t in ctx.store.scan("tickets") if all(_meets(t, c) for c in view["conditions"]["all"])]
    items.sort(key=lambda t: (t["created_at"], t["id"]), reverse=True)
    out = page(items, "tickets", f"views/{args.view_id}/tickets.json", args)
    out["tickets"] = [ticket_view(ctx.store, t, args.include) for t in out["tickets"]]
    return out


@tool(writes=False, name="zendesk.slas.policies.list", pure=True, reads=("sla_policies",))
def slas_list(ctx, args):
    """List SLA Policies (GET /api/v2/slas/policies.json): each policy's filter and its targets in minutes per
    priority (first_reply_time, requester_wait_time for resolution)."""
    items = sorted((p for _, p in ctx.store.scan("sla_policies")), key=lambda p: p["position"])
    return {"sla_policies": items, "next_page": None, "previous_page": None, "count": len(items)}


@tool(writes=False, params=ListArgs, name="zendesk.ticket_fields.list", pure=True, reads=("ticket_fields",))
def ticket_fields_list(ctx, args):
    """List Ticket Fields (GET /api/v2/ticket_fields.json): the custom fields (Order number, Refund amount,
    Product) with the ids custom_fields uses."""
    return page([f for _, f in ctx.store.scan("ticket_fields")], "ticket_fields", "ticket_fields.json", args)


class RatingsArgs(ListArgs, kw_only=True):
    score: Literal["offered", "unoffered", "received", "good", "bad"] | None = None
    start_time: Annotated[int, Meta(ge=0, description="Only ratings created at or after this Unix time.")] | None = None
    end_time: Annotated[int, Meta(ge=0, description="Only ratings created before this Unix time.")] | None = None


@tool(writes=False, params=RatingsArgs, name="zendesk.satisfaction_ratings.list", pure=True,
      reads=("satisfaction_ratings",))
def ratings_list(ctx, args):
    """List Satisfaction Ratings (GET /api/v2/satisfaction_ratings.json): score (good, bad, offered), comment,
    ticket_id, created_at; score, start_time and end_time filter."""
    from .sla import parse

    def keep(r):
        unix = int(parse(r["created_at"]).timestamp())
        if args.start_time is not None and unix < args.start_time:
            return False
        if args.end_time is not None and unix >= args.end_time:
            return False
        if args.score in (None, "received"):
            return args.score is None or r["score"] in ("good", "bad")
        return r["score"] == args.score

    items = [r for _, r in ctx.store.scan("satisfaction_ratings") if keep(r)]
    return page(items, "satisfaction_ratings", "satisfaction_ratings.json", args)


class ArticleSearchArgs(ListArgs, kw_only=True):
    query: Annotated[str, Meta(min_length=1, max_length=500, description="Words to find in titles and bodies.")]


@tool(writes=False, params=ArticleSearchArgs, name="zendesk.help_center.articles.search", pure=True,
      reads=("articles",))
def articles_search(ctx, args):
    """Search Articles (GET /api/v2/help_center/articles/search.json?query=...): help center articles whose
    title or body has every word, most words in the title first; each has html_url, the link to send."""
    words = [w.lower() for w in re.findall(r"\w+", args.query)]
    hits = []
    for _, a in ctx.store.scan("articles"):
        text = f"{a['title']} {a['body']}".lower()
        if words and all(w in text for w in words):
            hits.append((-sum(w in a["title"].lower() for w in words), a["id"], a))
    hits.sort(key=lambda h: h[:2])
    out = page([h[2] for h in hits], "results", "help_center/articles/search.json", args,
               query=f"query={quote_plus(args.query)}")
    out.update(page=args.page, per_page=args.per_page, page_count=max(1, -(-out["count"] // args.per_page)))
    return out


TOOLS = [tickets_list, tickets_show, comments_list, audits_list, search, users_list, users_show, users_requested,
         organizations_list, organizations_show, groups_list, macros_list, macros_apply, views_list, views_tickets,
         slas_list, ticket_fields_list, ratings_list, articles_search]
