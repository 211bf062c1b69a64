"""A documented subset of JQL, parsed and run over the site's issues.

Grammar (keywords and field names are case-insensitive)::

    query   := [or] [ORDER BY sort ("," sort)*]
    or      := and (OR and)*
    and     := not (AND not)*
    not     := NOT not | "(" or ")" | clause
    clause  := field op value
    op      := = | != | ~ | !~ | > | >= | < | <= | IN | NOT IN | IS | IS NOT
    value   := word | "quoted" | EMPTY | NULL | func() | "(" value ("," value)* ")"
    sort    := field [ASC | DESC]

Fields: project, key (issuekey), issuetype (type), status, statusCategory,
resolution, priority, assignee, reporter, labels, component, fixVersion,
sprint, parent ("Epic Link"), watcher, summary, description, text, created,
updated, resolved, "Story Points" (cf[10016]) and level (the security
level); ``resolution = Unresolved`` is ``resolution IS EMPTY``. Functions:
currentUser(), openSprints(), futureSprints(), closedSprints(),
releasedVersions(), unreleasedVersions(), now().
As in Jira, ``!=`` and NOT IN leave out issues where the field is empty;
``~`` matches when every word of the value starts a word of the field;
dates take ``2026-06-10``, ``2026-06-10 14:00`` or ``-7d`` (``w``, ``d``,
``h``, ``m``) from now. Without ORDER BY the newest issue comes first; ties
go by key. A query Jira would refuse raises ``JqlError`` with Jira's words.
``jql_run.py`` runs a parsed query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|(?P<op>!=|!~|>=|<=|[=~<>(),])'
                    r'|(?P<word>cf\[\d+\]|[^\s=!~<>(),"\']+))')
KEYWORDS = {"and", "or", "not", "in", "is", "empty", "null", "order", "by", "asc", "desc"}
FIELDS = {"project": "project", "key": "key", "issuekey": "key", "id": "key", "issuetype": "issuetype",
          "type": "issuetype", "status": "status", "statuscategory": "statusCategory", "resolution": "resolution",
          "priority": "priority", "assignee": "assignee", "reporter": "reporter", "labels": "labels",
          "label": "labels", "component": "component", "fixversion": "fixVersion", "sprint": "sprint",
          "parent": "parent", "epic link": "parent", "watcher": "watcher", "summary": "summary", "description": "description", "text": "text",
          "created": "created", "createddate": "created", "updated": "updated", "updateddate": "updated",
          "resolved": "resolved", "resolutiondate": "resolved", "story points": "points",
          "story point estimate": "points", "cf[10016]": "points", "level": "level", "rank": "created"}
TEXT = {"summary", "description", "text"}
DATES = {"created", "updated", "resolved"}


class JqlError(ValueError):
    """A query Jira answers 400 for; the message is Jira's."""


@dataclass(frozen=True)
class Query:
    where: tuple | None
    order: tuple  # ((field, descending), ...)


def _tokens(text: str) -> list:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise JqlError(f"Error in the JQL Query: The character '{text[pos:].strip()[:1]}' is a reserved JQL "
                           f"character. You must enclose it in a string or use the escape '\\u0022' instead. "
                           f"(line 1, character {pos + 1})")
        pos = m.end()
        if m.group("str"):
            out.append(("str", re.sub(r"\\(.)", r"\1", m.group("str")[1:-1])))
        elif m.group("op"):
            out.append(("op", m.group("op")))
        else:
            w = m.group("word")
            out.append(("kw", w.lower()) if w.lower() in KEYWORDS else ("word", w))
    return out


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, kind=None, value=None):
        if self.i >= len(self.toks):
            return None
        t = self.toks[self.i]
        if (kind and t[0] != kind) or (value and t[1] != value):
            return None
        return t

    def take(self, kind=None, value=None):
        t = self.peek(kind, value)
        if t is not None:
            self.i += 1
        return t

    def fail(self, expecting: str):
        got = self.toks[self.i][1] if self.i < len(self.toks) else "end of query"
        raise JqlError(f"Error in the JQL Query: Expecting {expecting} but got '{got}'.")

    def query(self) -> Query:
        where = None if self.peek("kw", "order") or self.i >= len(self.toks) else self.or_()
        order = []
        if self.take("kw", "order"):
            if not self.take("kw", "by"):
                self.fail("'by'")
            while True:
                name = self.field()
                desc = bool(self.take("kw", "desc"))
                if not desc:
                    self.take("kw", "asc")
                order.append((name, desc))
                if not self.take("op", ","):
                    break
        if self.i < len(self.toks):
            self.fail("either 'OR' or 'AND'" if where else "'ORDER BY'")
        return Query(where, tuple(order))

    def or_(self):
        parts = [self.and_()]
        while self.take("kw", "or"):
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else ("or", tuple(parts))

    def and_(self):
        parts = [self.not_()]
        while self.take("kw", "and"):
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else ("and", tuple(parts))

    def not_(self):
        if self.take("kw", "not"):
            return ("not", self.not_())
        if self.take("op", "("):
            inner = self.or_()
            if not self.take("op", ")"):
                self.fail("')'")
            return inner
        return self.clause()

    def field(self) -> str:
        t = self.take("word") or self.take("str")
        if t is None:
            self.fail("a field name")
        name = FIELDS.get(t[1].lower())
        if name is None:
            raise JqlError(f"Field '{t[1]}' does not exist or you do not have permission to view it.")
        return name

    def clause(self):
        name = self.field()
        if self.take("kw", "is"):
            neg = bool(self.take("kw", "not"))
            if not (self.take("kw", "empty") or self.take("kw", "null")):
                self.fail("EMPTY")
            return ("empty", name, not neg)
        if self.take("kw", "not"):
            if not self.take("kw", "in"):
                self.fail("'IN'")
            return ("cmp", name, "not in", self.values())
        if self.take("kw", "in"):
            return ("cmp", name, "in", self.values())
        t = self.take("op")
        if t is None or t[1] in "(),":
            self.fail("operator")
        return ("cmp", name, t[1], (self.value(),))

    def values(self) -> tuple:
        if not self.take("op", "("):
            return (self.value(),)
        vals = [self.value()]
        while self.take("op", ","):
            vals.append(self.value())
        if not self.take("op", ")"):
            self.fail("')'")
        return tuple(vals)

    def value(self):
        if self.take("kw", "empty") or self.take("kw", "null"):
            return ("empty",)
        t = self.take("str") or self.take("word")
        if t is None:
            self.fail("either a value, list or function")
        if t[0] == "word" and self.take("op", "("):
            args = []
            while not self.take("op", ")"):
                a = self.take("str") or self.take("word")
                if a is None:
                    self.fail("')'")
                args.append(a[1])
                self.take("op", ",")
            return ("fn", t[1].lower(), tuple(args))
        return ("str", t[1])


def parse(text: str) -> Query:
    return _Parser(text or "").query()
