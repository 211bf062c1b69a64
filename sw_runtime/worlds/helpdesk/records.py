"""From a ``state.Builder`` to Zendesk's records: ids by creation time, and the
account's fixed furniture (groups, macros, views, SLA policies, ticket fields,
help center articles)."""

from __future__ import annotations

from .content import GROUPS, SUBDOMAIN

BASE = f"https://{SUBDOMAIN}.zendesk.com/api/v2"
HC = f"https://{SUBDOMAIN}.zendesk.com/hc/en-us/articles"
OPENED = "2024-01-08T09:00:00Z"  # when the account's furniture was set up

# Macros: (title, description, actions). Brackets are placeholders the agent fills in; {{...}} Zendesk renders.
MACROS = (
    ("Shipping: tracking information", "Tell the customer their order shipped, with its tracking number.",
     [("comment_value", "Hi {{ticket.requester.first_name}},\n\nGood news: your order [ORDER NUMBER] has shipped. "
                        "Your UPS tracking number is [TRACKING NUMBER].\n\nBrightwater Outfitters"),
      ("comment_mode_is_public", True), ("status", "pending"), ("current_tags", "shipping_update")]),
    ("Shipping: order delayed", "Apologise for a delayed order.",
     [("comment_value", "Hi {{ticket.requester.first_name}},\n\nYour order is delayed at our warehouse. We will send "
                        "tracking as soon as it ships.\n\nBrightwater Outfitters"),
      ("comment_mode_is_public", True), ("status", "pending"), ("current_tags", "shipping_delay")]),
    ("Close: no response", "Solve a pending ticket the customer has not answered for 7 days.",
     [("comment_value", "Hi {{ticket.requester.first_name}},\n\nWe haven't heard back from you, so we are closing "
                        "this request. Just reply to reopen it.\n\nBrightwater Outfitters"),
      ("comment_mode_is_public", True), ("status", "solved"), ("current_tags", "no_response")]),
    ("Returns: send return label", "Send a prepaid return label.",
     [("comment_value", "Hi {{ticket.requester.first_name}},\n\nHere is your prepaid return label for order "
                        "[ORDER NUMBER].\n\nBrightwater Outfitters"),
      ("comment_mode_is_public", True), ("status", "pending"), ("current_tags", "return_label")]),
    ("Escalate to Technical", "Hand a device problem to the Technical team.",
     [("comment_value", "Escalated to Technical: device fault that needs a specialist."),
      ("comment_mode_is_public", False), ("group_id", "Technical"), ("priority", "high"),
      ("current_tags", "escalated")]),
    ("Billing: refund processed", "Confirm an approved refund.",
     [("comment_value", "Hi {{ticket.requester.first_name}},\n\nYour refund of [AMOUNT] has been processed and will "
                        "reach your card in 5 to 7 business days.\n\nBrightwater Outfitters"),
      ("comment_mode_is_public", True), ("status", "solved"), ("current_tags", "refund_issued")]),
    ("Old: holiday shipping cutoff", "Last year's holiday message.",
     [("comment_value", "Order by 18 December for delivery before the holidays."), ("comment_mode_is_public", True)]),
)
INACTIVE_MACROS = {"Old: holiday shipping cutoff"}

# Views: (title, conditions.all) with Zendesk's condition fields and operators.
VIEWS = (
    ("Your unsolved tickets", [("assignee_id", "is", "current_user"), ("status", "less_than", "solved")]),
    ("Unassigned tickets", [("assignee_id", "is", ""), ("status", "less_than", "solved")]),
    ("All unsolved tickets", [("status", "less_than", "solved")]),
    ("New tickets", [("status", "is", "new")]),
    ("Pending tickets", [("status", "is", "pending")]),
    ("Recently solved tickets", [("status", "is", "solved")]),
)

# SLA policies: first reply time and requester wait (resolution) targets, calendar minutes, by priority.
SLAS = (
    ("VIP", "VIP organisations", [("organization_tags", "includes", "vip")],
     {"first_reply_time": {"urgent": 30, "high": 60, "normal": 120, "low": 240},
      "requester_wait_time": {"urgent": 240, "high": 480, "normal": 1440, "low": 2880}}),
    ("Standard", "Every other ticket with a priority", [],
     {"first_reply_time": {"urgent": 60, "high": 240, "normal": 480, "low": 1440},
      "requester_wait_time": {"urgent": 480, "high": 1440, "normal": 2880, "low": 5760}}),
)

FIELDS = (
    ("text", "Order number", "The order the ticket is about, BW-123456."),
    ("decimal", "Refund amount", "Dollars the customer asks back, 129.99."),
    ("tagger", "Product", "The product line."),
)


def _slug(title: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in title.lower()).strip("-").replace("--", "-")


def furniture(b) -> dict:
    """Groups, macros, views, SLA policies, ticket fields and articles."""
    from .content import PRODUCTS

    out = {c: {} for c in ("groups", "macros", "views", "sla_policies", "ticket_fields", "articles")}
    gid = {name: 36300001 + i for i, name in enumerate(GROUPS)}
    for name, i in gid.items():
        out["groups"][str(i)] = {"id": i, "url": f"{BASE}/groups/{i}.json", "name": name,
                                 "description": f"The {name} team", "default": name == "Support", "deleted": False,
                                 "is_public": True, "created_at": OPENED, "updated_at": OPENED}
    for pos, (title, desc, actions) in enumerate(MACROS):
        i = 36400001 + pos
        acts = [{"field": f, "value": gid[v] if f == "group_id" else v} for f, v in actions]
        out["macros"][str(i)] = {"id": i, "url": f"{BASE}/macros/{i}.json", "title": title, "description": desc,
                                 "active": title not in INACTIVE_MACROS, "actions": acts, "position": pos + 1,
                                 "restriction": None, "created_at": OPENED, "updated_at": OPENED}
    for pos, (title, conds) in enumerate(VIEWS):
        i = 36500001 + pos
        out["views"][str(i)] = {"id": i, "url": f"{BASE}/views/{i}.json", "title": title, "active": True,
                                "position": pos + 1, "restriction": None,
                                "conditions": {"all": [{"field": f, "operator": o, "value": v} for f, o, v in conds],
                                               "any": []},
                                "execution": {"sort_by": "created_at", "sort_order": "desc", "group_by": None},
                                "created_at": OPENED, "updated_at": OPENED}
    for pos, (title, desc, flt, targets) in enumerate(SLAS):
        i = 36600001 + pos
        metrics = [{"priority": p, "metric": m, "target": t, "business_hours": False}
                   for m, by in targets.items() for p, t in by.items()]
        out["sla_policies"][str(i)] = {"id": i, "url": f"{BASE}/slas/policies/{i}.json", "title": title,
                                       "description": desc, "position": pos + 1,
                                       "filter": {"all": [{"field": f, "operator": o, "value": v} for f, o, v in flt],
                                                  "any": []},
                                       "policy_metrics": metrics, "created_at": OPENED, "updated_at": OPENED}
    for pos, (kind, title, desc) in enumerate(FIELDS):
        i = 36700001 + pos
        options = ([{"id": 36710001 + k, "name": p.capitalize(), "value": p} for k, p in enumerate(sorted(PRODUCTS))]
                   if kind == "tagger" else None)
        out["ticket_fields"][str(i)] = {"id": i, "url": f"{BASE}/ticket_fields/{i}.json", "type": kind,
                                        "title": title, "description": desc, "active": True, "required": False,
                                        "position": pos + 1, "custom_field_options": options,
                                        "created_at": OPENED, "updated_at": OPENED}
    for pos, (title, body, section) in enumerate(b.articles):
        i = 36800001 + pos
        out["articles"][str(i)] = {"id": i, "url": f"{BASE}/help_center/en-us/articles/{i}.json",
                                   "html_url": f"{HC}/{i}-{_slug(title)}", "title": title, "body": body,
                                   "locale": "en-us", "section_id": 36810001 + section, "author_id": 36100001,
                                   "draft": False, "promoted": False, "label_names": [], "vote_sum": 0,
                                   "created_at": OPENED, "updated_at": OPENED}
    return out




def static_records(b) -> dict:
    """Every record of a built account, with ids given by creation time."""
    from .state import ASSISTANT_ID, FIELD_ORDER, FIELD_PRODUCT, FIELD_REFUND, ts

    state = furniture(b)
    gid = {g["name"]: g["id"] for g in state["groups"].values()}
    rng = b.rng
    others = [u for u in b.users if u is not b.assistant]
    rng.shuffle(others)
    b.assistant["id"] = ASSISTANT_ID
    for n, u in enumerate(others):
        u["id"] = ASSISTANT_ID + 1 + n
    orgs = list(b.orgs)
    rng.shuffle(orgs)
    org_id = {o["key"]: 36200001 + n for n, o in enumerate(orgs)}
    state["organizations"] = {}
    for o in orgs:
        i = org_id[o["key"]]
        created = ts(rng.randrange(200, 900) * 1440)
        state["organizations"][str(i)] = {
            "id": i, "url": f"{BASE}/organizations/{i}.json", "name": o["name"], "domain_names": o["domain_names"],
            "details": o["details"], "notes": o["notes"], "group_id": gid[o["group"]] if o["group"] else None,
            "shared_tickets": False, "shared_comments": False, "tags": o["tags"], "organization_fields": {},
            "external_id": None, "created_at": created, "updated_at": created}
    state["users"] = {}
    for u in b.users:
        created = ts(u["created_days"] * 1440)
        state["users"][str(u["id"])] = {
            "id": u["id"], "url": f"{BASE}/users/{u['id']}.json", "name": u["name"], "email": u["email"],
            "role": u["role"], "organization_id": org_id[u["organization_id"]] if u["organization_id"] else None,
            "phone": u["phone"], "tags": u["tags"], "suspended": u["suspended"], "active": u["active"],
            "verified": u["verified"], "time_zone": u["time_zone"], "locale": u["locale"],
            "default_group_id": gid[u["default_group_id"]] if u["default_group_id"] else None,
            "notes": u["notes"], "details": "", "external_id": None, "moderator": u["role"] != "end-user",
            "only_private_comments": False, "user_fields": {}, "created_at": created, "updated_at": created}

    order = sorted(range(len(b.specs)), key=lambda k: (-b.specs[k]["minutes_ago"], k))
    for n, k in enumerate(order):
        b.specs[k]["id"] = 1001 + n
    comments = sorted(((c[3], s["id"], j, s, c) for s in b.specs for j, c in enumerate(s["comments"])),
                      key=lambda t: (-t[0], t[1], t[2]))
    state["comments"], state["audits"], state["tickets"], state["satisfaction_ratings"] = {}, {}, {}, {}
    last: dict = {}
    for n, (ago, tid, j, s, (author, body, public, _)) in enumerate(comments):
        i = 36900001 + n
        state["comments"][str(i)] = {
            "id": i, "ticket_id": tid, "type": "Comment", "author_id": author["id"], "body": body,
            "html_body": f"<div class=\"zd-comment\"><p>{body}</p></div>", "plain_body": body, "public": public,
            "attachments": [], "via": {"channel": s["via"] if j == 0 else "web"}, "metadata": {},
            "created_at": ts(ago)}
        last[tid] = min(last.get(tid, ago), ago)
    audits = [(s["minutes_ago"], s["id"], 0, s, s["requester"], None) for s in b.specs]
    audits += [(ago, s["id"], 1 + j, s, who, events) for j, (s, ago, who, events) in enumerate(b.audits)]
    for n, (ago, tid, _, s, who, events) in enumerate(sorted(audits, key=lambda t: (-t[0], t[1], t[2]))):
        i = 37000001 + n
        if events is None:
            first = s.get("created_as", {})
            events = [{"type": "Comment", "body": s["description"], "public": True, "author_id": who["id"]}] + [
                {"type": "Create", "field_name": f, "value": first.get(f, s[f])}
                for f in ("subject", "status", "priority", "type")]
        state["audits"][str(i)] = {
            "id": i, "ticket_id": tid, "author_id": who["id"], "created_at": ts(ago), "metadata": {},
            "via": {"channel": s["via"]},
            "events": [{"id": i * 100 + k, **e} for k, e in enumerate(events)]}
        last[tid] = min(last.get(tid, ago), ago)
    ratings = sorted(b.ratings, key=lambda r: (-r[3], r[0]["id"]))
    rated: dict = {}
    for n, (s, score, remark, ago) in enumerate(ratings):
        i = 37100001 + n
        state["satisfaction_ratings"][str(i)] = {
            "id": i, "url": f"{BASE}/satisfaction_ratings/{i}.json", "ticket_id": s["id"], "score": score,
            "comment": remark, "reason": None, "requester_id": s["requester"]["id"],
            "assignee_id": s["assignee"]["id"] if s["assignee"] else None,
            "group_id": gid[s["group"]] if s["group"] else None, "created_at": ts(ago), "updated_at": ts(ago)}
        rated[s["id"]] = {"id": i, "score": score, "comment": remark}
    for s in b.specs:
        tid = s["id"]
        req = s["requester"]
        refund = None if s["refund"] is None else f"{s['refund'] // 100}.{s['refund'] % 100:02d}"
        via = {"channel": s["via"], "source": {"from": {}, "to": {}, "rel": None}}
        if s["followup"] is not None:
            via["source"] = {"from": {"ticket_id": s["followup"]["id"]}, "to": {}, "rel": "follow_up"}
        state["tickets"][str(tid)] = {
            "id": tid, "url": f"{BASE}/tickets/{tid}.json", "external_id": None, "via": via,
            "created_at": ts(s["minutes_ago"]), "updated_at": ts(last[tid]), "type": s["type"],
            "subject": s["subject"], "raw_subject": s["subject"], "description": s["description"],
            "priority": s["priority"], "status": s["status"], "recipient": f"support@{SUBDOMAIN}.zendesk.com",
            "requester_id": req["id"], "submitter_id": req["id"],
            "assignee_id": s["assignee"]["id"] if s["assignee"] else None,
            "organization_id": state["users"][str(req["id"])]["organization_id"],
            "group_id": gid[s["group"]] if s["group"] else None, "collaborator_ids": [], "follower_ids": [],
            "email_cc_ids": [], "problem_id": s["problem"]["id"] if s["problem"] else None,
            "has_incidents": any(o["problem"] is s for o in b.specs), "is_public": True, "due_at": s["due_at"],
            "tags": sorted(set(s["tags"])),
            "custom_fields": [{"id": FIELD_ORDER, "value": s["order"]}, {"id": FIELD_REFUND, "value": refund},
                              {"id": FIELD_PRODUCT, "value": s["product"]}],
            "satisfaction_rating": rated.get(tid), "allow_channelback": False, "allow_attachments": True}
    return state
