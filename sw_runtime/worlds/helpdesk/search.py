"""Zendesk's search query syntax, for the fields helpdesk supports.

A query is space-separated terms. ``key:value`` (also ``<``, ``>``, ``<=``,
``>=``) filters on a property; a leading ``-`` negates a term; a quoted value
or phrase may hold spaces; a bare word or ``"phrase"`` must appear in the
ticket's subject, description or comments (a user's name or email, an
organisation's name or domains). ``type:ticket``, ``type:user`` and
``type:organization`` pick the kind; without it every kind is searched and a
term a kind has no property for rules it out.

Ticket properties: status, priority, ticket_type, tags (tag), assignee,
requester, submitter, group, organization, subject, description, via,
created, updated, due_date, fieldvalue, custom_field_<id>. Statuses compare in
Zendesk's order (``status<solved`` is every unsolved ticket) and priorities
low < normal < high < urgent. People are matched by id, email or full name
(``none`` for no one, ``me`` for the assistant); groups and organisations by
id or name. Dates are ``YYYY-MM-DD`` or full times, in UTC.
"""

from __future__ import annotations

import re

STATUS_ORDER = ("new", "open", "pending", "hold", "solved", "closed")
PRIORITY_ORDER = ("low", "normal", "high", "urgent")
_TERM = re.compile(r'(-?)(?:([a-z_0-9]+)(<=|>=|:|<|>)("[^"]*"|\S*)|"([^"]*)"|(\S+))', re.I)


class Term:
    __slots__ = ("negate", "key", "op", "value")

    def __init__(self, negate: bool, key: str | None, op: str | None, value: str):
        self.negate, self.key, self.op, self.value = negate, key, op, value


def parse(query: str) -> list:
    terms = []
    for m in _TERM.finditer(query):
        neg, key, op, value, phrase, word = m.groups()
        if key is not None:
            terms.append(Term(bool(neg), key.lower(), op, value.strip('"')))
        else:
            terms.append(Term(bool(neg), None, None, phrase if phrase is not None else word))
    return terms


def _ordered(order: tuple, have, op: str, want: str) -> bool | None:
    want = want.lower()
    if have is None or want not in order:
        return op == ":" and want in ("none", "") and have is None
    a, b = order.index(have), order.index(want)
    return {":": a == b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]


def _date(have: str | None, op: str, want: str) -> bool:
    if have is None:
        return False
    if len(want) == 10:  # a day: ':' is that day, '<' before it, '>' after it
        day = have[:10]
        return {":": day == want, "<": day < want, ">": day > want, "<=": day <= want, ">=": day >= want}[op]
    have = have[:19]
    want = want.rstrip("Z")[:19]
    return {":": have == want, "<": have < want, ">": have > want, "<=": have <= want, ">=": have >= want}[op]


class Searcher:
    """Runs parsed terms against a store's tickets, users and organisations."""

    def __init__(self, store, me: int):
        self.store, self.me = store, me
        self._text: dict = {}

    def person(self, user_id, value: str) -> bool:
        v = value.lower()
        if v == "none":
            return user_id is None
        if user_id is None:
            return False
        if v == "me":
            return user_id == self.me
        if v.isdigit():
            return int(v) == user_id
        u = self.store.get("users", str(user_id))
        return u is not None and v in (u["email"].lower(), u["name"].lower())

    def named(self, collection: str, rid, value: str) -> bool:
        v = value.lower()
        if v == "none":
            return rid is None
        if rid is None:
            return False
        if v.isdigit():
            return int(v) == rid
        rec = self.store.get(collection, str(rid))
        return rec is not None and rec["name"].lower() == v

    def text_of(self, ticket: dict) -> str:
        tid = ticket["id"]
        if tid not in self._text:
            bodies = [c["body"] for _, c in self.store.scan("comments", {"ticket_id": tid})]
            self._text[tid] = "\n".join([ticket["subject"] or "", ticket["description"] or "", *bodies]).lower()
        return self._text[tid]

    def ticket_term(self, t: dict, term: Term) -> bool | None:
        k, v, op = term.key, term.value, term.op
        if k is None:
            return v.lower() in self.text_of(t)
        if k == "status":
            return _ordered(STATUS_ORDER, t["status"], op, v)
        if k == "priority":
            return _ordered(PRIORITY_ORDER, t["priority"], op, v)
        if k == "ticket_type":
            return (t["type"] or "none") == v.lower()
        if k in ("tags", "tag"):
            return v.lower() in t["tags"] or (v.lower() == "none" and not t["tags"])
        if k in ("assignee", "requester", "submitter"):
            return self.person(t[f"{k}_id"], v)
        if k == "group":
            return self.named("groups", t["group_id"], v)
        if k == "organization":
            return self.named("organizations", t["organization_id"], v)
        if k in ("subject", "description"):
            return v.lower() in (t[k] or "").lower()
        if k == "via":
            return t["via"]["channel"] == v.lower()
        if k in ("created", "updated"):
            return _date(t[f"{k}_at"], op, v)
        if k == "due_date":
            return _date(t["due_at"], op, v)
        if k == "fieldvalue":
            return any(str(f["value"]).lower() == v.lower() for f in t["custom_fields"] if f["value"] is not None)
        if k.startswith("custom_field_") and k[13:].isdigit():
            return any(f["id"] == int(k[13:]) and str(f["value"]).lower() == v.lower() for f in t["custom_fields"])
        return None  # not a ticket property

    def user_term(self, u: dict, term: Term) -> bool | None:
        k, v = term.key, term.value.lower()
        if k is None:
            return v in u["name"].lower() or v in u["email"].lower()
        if k == "role":
            return u["role"] == v
        if k == "email":
            return u["email"].lower() == v
        if k == "name":
            return v in u["name"].lower()
        if k in ("tags", "tag"):
            return v in u["tags"]
        if k == "organization":
            return self.named("organizations", u["organization_id"], v)
        if k in ("created", "updated"):
            return _date(u[f"{k}_at"], term.op, term.value)
        return None

    def org_term(self, o: dict, term: Term) -> bool | None:
        k, v = term.key, term.value.lower()
        if k is None:
            return v in o["name"].lower() or any(v in d for d in o["domain_names"])
        if k == "name":
            return v in o["name"].lower()
        if k in ("tags", "tag"):
            return v in o["tags"]
        if k in ("created", "updated"):
            return _date(o[f"{k}_at"], term.op, term.value)
        return None

    def run(self, query: str) -> list:
        """``[(result_type, record)]`` matching every term of ``query``."""
        terms = parse(query)
        kinds = [t.value.lower() for t in terms if t.key == "type" and not t.negate]
        terms = [t for t in terms if t.key != "type"]
        wanted = kinds[-1] if kinds else None
        out = []
        for kind, collection, test in (("ticket", "tickets", self.ticket_term), ("user", "users", self.user_term),
                                       ("organization", "organizations", self.org_term)):
            if wanted not in (None, kind):
                continue
            for _, rec in self.store.scan(collection):
                if all(self._holds(test(rec, t), t) for t in terms):
                    out.append((kind, rec))
        return out

    @staticmethod
    def _holds(result: bool | None, term: Term) -> bool:
        if result is None:
            return False
        return not result if term.negate else result
