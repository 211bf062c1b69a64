"""Gmail: the assistant's mailbox, on the Gmail API's methods, parameter
names and answer shapes (``users.messages.list`` is ``gmail.messages.list``;
``userId`` may be given and must be ``me``).

As in the real API, a message's text is ``payload.body.data``, base64url
encoded, and a mail to send or a draft to save is ``raw``: a whole RFC 2822
message, base64url encoded. The store keeps mail as plain fields (``from``,
``to``, ``subject``, ``body``...), which is what checks look at.
"""

from __future__ import annotations

import base64
import binascii
import email.parser
import email.policy
import hashlib
import re
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from ..tool import Refused, tool
from . import clock
from .seed_mail import ASSISTANT_FROM

# -- arguments ------------------------------------------------------------------------------------------------

UserId = Annotated[str, Meta(description='The mailbox: "me" (the assistant). Optional.')]
Format = Literal["full", "metadata", "minimal", "raw"]


class ListArgs(msgspec.Struct, forbid_unknown_fields=True):
    userId: UserId = "me"
    q: Annotated[str | None, Meta(description=(
        "Gmail search, e.g. 'offsite', 'from:erik@nordlys.no', 'subject:\"Q4 offsite\"', 'is:unread', "
        "'label:Finance', 'in:inbox', 'after:2026/10/20', 'before:2026/10/23', '-webinar'. Words match whole "
        "words of the sender, recipients, subject and text; all terms must match."))] = None
    maxResults: Annotated[int, Meta(ge=1, le=500, description="At most this many ids per page (default 100).")] = 100
    labelIds: Annotated[list[str] | None, Meta(description="Only messages with all of these label ids, e.g. "
                                                           "[\"INBOX\"] or [\"Label_1\"].")] = None
    pageToken: Annotated[str | None, Meta(description="nextPageToken of the previous page.")] = None
    includeSpamTrash: Annotated[bool, Meta(description="Also search SPAM and TRASH (default false).")] = False


class GetArgs(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, Meta(description="The message id, e.g. m_q4_1.")]
    userId: UserId = "me"
    format: Annotated[Format, Meta(description="full (default: headers and base64url body), metadata (headers "
                                               "only), minimal (no payload) or raw (the RFC 2822 message, "
                                               "base64url).")] = "full"
    metadataHeaders: Annotated[list[str] | None, Meta(description="With format metadata: only these headers.")] = None


class ThreadArgs(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, Meta(description="The thread id, e.g. t_q4offsite.")]
    userId: UserId = "me"
    format: Annotated[Format, Meta(description="As for gmail.messages.get; default full.")] = "full"


Raw = Annotated[str, Meta(min_length=1, max_length=200_000, description=(
    "The whole mail in RFC 2822 format (headers To, Cc, Subject and, for a reply, In-Reply-To; a blank line; "
    "the text), encoded as base64url."))]
ThreadId = Annotated[str | None, Meta(description="Put the mail in this existing thread (a reply), e.g. t_venue.")]


class SendArgs(msgspec.Struct, forbid_unknown_fields=True):
    raw: Raw
    threadId: ThreadId = None
    userId: UserId = "me"


class DraftMessage(msgspec.Struct, forbid_unknown_fields=True):
    """The draft's message: {raw, threadId}."""

    raw: Raw
    threadId: ThreadId = None


class DraftArgs(msgspec.Struct, forbid_unknown_fields=True):
    message: Annotated[DraftMessage, Meta(description="The draft: {raw, threadId}.")]
    userId: UserId = "me"


class DraftListArgs(msgspec.Struct, forbid_unknown_fields=True):
    userId: UserId = "me"
    maxResults: Annotated[int, Meta(ge=1, le=500, description="At most this many (default 100).")] = 100


class DraftGetArgs(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, Meta(description="The draft id, e.g. r-4417300982716640213.")]
    userId: UserId = "me"


class ModifyArgs(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, Meta(description="The message id.")]
    addLabelIds: Annotated[list[str], Meta(description="Label ids to add, e.g. [\"Label_1\"].")] = []
    removeLabelIds: Annotated[list[str], Meta(description="Label ids to remove, e.g. [\"INBOX\"] to archive, "
                                                          "[\"UNREAD\"] to mark read.")] = []
    userId: UserId = "me"


class LabelsArgs(msgspec.Struct, forbid_unknown_fields=True):
    userId: UserId = "me"


# -- helpers -------------------------------------------------------------------------------------------------


def _me(user_id: str) -> None:
    if user_id not in ("me", "assistant@nordlys.no"):
        raise Refused("forbidden", f"Delegation denied for {user_id}: this mailbox is 'me' (assistant@nordlys.no).")


def b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii")


def snippet(body: str) -> str:
    text = " ".join(body.replace(">", " ").split())
    return text[:140] + ("…" if len(text) > 140 else "")


def _headers(m: dict) -> list:
    h = [("From", m["from"]), ("To", m["to"])]
    if m.get("cc"):
        h.append(("Cc", m["cc"]))
    h += [("Subject", m["subject"]), ("Date", m["date"]), ("Message-ID", m["messageId"])]
    if m.get("inReplyTo"):
        h += [("In-Reply-To", m["inReplyTo"]), ("References", m["inReplyTo"])]
    h.append(("Content-Type", 'text/plain; charset="UTF-8"'))
    return [{"name": k, "value": v} for k, v in h]


def rfc822(m: dict) -> str:
    return "".join(f"{h['name']}: {h['value']}\r\n" for h in _headers(m)) + "\r\n" + m["body"]


def render(m: dict, fmt: str = "full", only: list | None = None) -> dict:
    """A stored mail as the Gmail API's Message resource."""
    out = {"id": m["id"], "threadId": m["threadId"], "labelIds": list(m["labelIds"]), "snippet": snippet(m["body"]),
           "historyId": m["historyId"], "internalDate": m["internalDate"],
           "sizeEstimate": len(rfc822(m).encode("utf-8"))}
    if fmt == "raw":
        out["raw"] = b64(rfc822(m))
    elif fmt in ("full", "metadata"):
        headers = _headers(m)
        if fmt == "metadata" and only:
            wanted = {x.lower() for x in only}
            headers = [h for h in headers if h["name"].lower() in wanted]
        payload = {"partId": "", "mimeType": "text/plain", "filename": "", "headers": headers}
        if fmt == "full":
            data = m["body"].encode("utf-8")
            payload["body"] = {"size": len(data), "data": b64(m["body"])}
        out["payload"] = payload
    return out


def _message(ctx, mid: str) -> dict:
    m = ctx.store.get("messages", mid)
    if m is None:
        raise Refused("not_found", f"Requested entity was not found: no message {mid!r}. Ids come from "
                                   "gmail.messages.list.")
    return m


def _label_ids(ctx) -> dict:
    return {lid: lab for lid, lab in ctx.store.scan("labels")}


def new_hex(ctx, kind: str, collection: str, width: int = 16) -> str:
    """A fresh id like Gmail's (hex), the same whenever the same call is replayed."""
    n = 0
    while True:
        raw = hashlib.sha256(f"{kind}/{ctx.seed}/{ctx.step}/{n}".encode()).hexdigest()[:width]
        if ctx.store.get(collection, raw) is None:
            return raw
        n += 1


def parse_raw(raw: str) -> dict:
    """The fields of a base64url RFC 2822 mail; ``Refused`` if it is not one."""
    try:
        data = base64.urlsafe_b64decode(raw.strip() + "=" * (-len(raw.strip()) % 4))
        msg = email.parser.BytesParser(policy=email.policy.default).parsebytes(data)
    except (binascii.Error, ValueError) as e:
        raise Refused("invalid_argument", f"'raw' is not a base64url-encoded RFC 2822 message: {e}") from None
    if not msg.keys():
        raise Refused("invalid_argument", "'raw' decodes to a message without headers: start with 'To: ...', "
                                          "'Subject: ...', a blank line, then the text, and encode it as base64url.")
    part = msg.get_body(preferencelist=("plain", "html"))
    body = part.get_content() if part is not None else ""
    return {
        "to": str(msg.get("To", "") or ""),
        "cc": str(msg.get("Cc", "") or ""),
        "subject": str(msg.get("Subject", "") or ""),
        "inReplyTo": str(msg.get("In-Reply-To")) if msg.get("In-Reply-To") else None,
        "body": body.replace("\r\n", "\n"),
    }


_OPERATOR = re.compile(r'(-?)(\w+):("[^"]*"|\S+)|(-?)"([^"]*)"|(-?)(\S+)')


def _words(text: str) -> list:
    return re.findall(r"\w+", text.casefold())


def _has_phrase(words: list, phrase: str) -> bool:
    want = _words(phrase)
    if not want:
        return True
    n = len(want)
    return any(words[i:i + n] == want for i in range(len(words) - n + 1))


def _date_ms(text: str) -> int:
    y, mo, d = (int(x) for x in re.split(r"[/-]", text))
    return clock.local(f"{y:04d}-{mo:02d}-{d:02d}", 0) * 1000


def _matcher(q: str, labels: dict):
    """A predicate for Gmail's search syntax (the common operators)."""
    tests = []
    by_name = {lab["name"].casefold(): lid for lid, lab in labels.items()}
    for m in _OPERATOR.finditer(q or ""):
        if m.group(2):
            neg, op, value = m.group(1) == "-", m.group(2).lower(), m.group(3).strip('"')
            if op in ("from", "to", "cc", "subject"):
                def t(msg, op=op, value=value):
                    return _has_phrase(_words(msg[op]), value)
            elif op in ("label", "in", "is"):
                v = value.casefold()
                alias = {"inbox": "INBOX", "sent": "SENT", "spam": "SPAM", "trash": "TRASH", "unread": "UNREAD",
                         "starred": "STARRED", "important": "IMPORTANT"}
                if op == "in" and v == "anywhere":
                    continue
                if op == "is" and v == "read":
                    def t(msg):
                        return "UNREAD" not in msg["labelIds"]
                else:
                    lid = alias.get(v) or by_name.get(v) or (value if value in labels else None)
                    if lid is None:
                        raise Refused("invalid_argument", f"Invalid label in query: {value!r}. gmail.labels.list "
                                                          "gives the labels.")

                    def t(msg, lid=lid):
                        return lid in msg["labelIds"]
            elif op in ("after", "before", "newer", "older"):
                try:
                    ms = _date_ms(value)
                except ValueError:
                    raise Refused("invalid_argument", f"Invalid date in query: {value!r}; write YYYY/MM/DD.") from None
                if op in ("after", "newer"):
                    def t(msg, ms=ms):
                        return int(msg["internalDate"]) >= ms
                else:
                    def t(msg, ms=ms):
                        return int(msg["internalDate"]) < ms
            else:  # an unknown operator is searched as words, as Gmail does
                def t(msg, text=f"{op} {value}"):
                    return _has_phrase(_all_words(msg), text)
        else:
            neg = (m.group(4) or m.group(6)) == "-"
            text = m.group(5) if m.group(5) is not None else m.group(7)
            if text.upper() in ("OR", "AND"):
                continue

            def t(msg, text=text):
                return _has_phrase(_all_words(msg), text)
        tests.append((neg, t))

    def match(msg) -> bool:
        return all(t(msg) != neg for neg, t in tests)

    return match


def _all_words(msg: dict) -> list:
    return _words(" ".join((msg["from"], msg["to"], msg["cc"], msg["subject"], msg["body"])))


def _page(items: list, token: str | None, size: int) -> tuple:
    try:
        start = int(token) if token else 0
    except ValueError:
        raise Refused("invalid_argument", f"Invalid pageToken {token!r}: pass nextPageToken as it was given.") from None
    page = items[start:start + size]
    nxt = str(start + size) if start + size < len(items) else None
    return page, nxt


# -- tools ---------------------------------------------------------------------------------------------------


@tool(writes=False, params=ListArgs, name="gmail.messages.list", pure=True, reads=("labels", "messages"))
def messages_list(ctx, args):
    """Search the assistant's mailbox (Gmail users.messages.list). Answers {messages: [{id, threadId}],
    resultSizeEstimate, nextPageToken?}, newest first; no messages key when nothing matches. Read a message with
    gmail.messages.get and a whole conversation with gmail.threads.get. SPAM and TRASH are left out unless
    includeSpamTrash is true."""
    _me(args.userId)
    labels = _label_ids(ctx)
    match = _matcher(args.q or "", labels)
    for lid in args.labelIds or ():
        if lid not in labels:
            raise Refused("invalid_argument", f"Invalid label: {lid}. gmail.labels.list gives the label ids.")
    found = []
    for _, m in ctx.store.scan("messages"):
        if not args.includeSpamTrash and ("SPAM" in m["labelIds"] or "TRASH" in m["labelIds"]):
            continue
        if all(lid in m["labelIds"] for lid in args.labelIds or ()) and match(m):
            found.append(m)
    found.sort(key=lambda m: (int(m["internalDate"]), m["id"]), reverse=True)
    page, nxt = _page(found, args.pageToken, args.maxResults)
    out = {}
    if page:
        out["messages"] = [{"id": m["id"], "threadId": m["threadId"]} for m in page]
    if nxt:
        out["nextPageToken"] = nxt
    out["resultSizeEstimate"] = len(found)
    return out


@tool(writes=False, params=GetArgs, name="gmail.messages.get", pure=True, reads=("messages",))
def messages_get(ctx, args):
    """Read one message (Gmail users.messages.get): {id, threadId, labelIds, snippet, internalDate, payload:
    {headers: [{name, value}] (From, To, Cc, Subject, Date...), body: {size, data}}}. The text is
    payload.body.data, base64url-encoded UTF-8, as in the Gmail API; snippet is its first 140 characters."""
    _me(args.userId)
    return render(_message(ctx, args.id), args.format, args.metadataHeaders)


@tool(writes=False, params=ThreadArgs, name="gmail.threads.get", pure=True, reads=("messages",))
def threads_get(ctx, args):
    """Read a whole conversation (Gmail users.threads.get): {id, historyId, messages: [Message...]}, oldest
    first, each as gmail.messages.get answers it."""
    _me(args.userId)
    msgs = [m for _, m in ctx.store.scan("messages") if m["threadId"] == args.id]
    if not msgs:
        raise Refused("not_found", f"Requested entity was not found: no thread {args.id!r}.")
    msgs.sort(key=lambda m: (int(m["internalDate"]), m["id"]))
    return {"id": args.id, "historyId": msgs[-1]["historyId"], "messages": [render(m, args.format) for m in msgs]}


def _thread_for(ctx, thread_id: str | None, new_id: str) -> str:
    if thread_id is None:
        return new_id
    if not any(m["threadId"] == thread_id for _, m in ctx.store.scan("messages")):
        raise Refused("not_found", f"Requested entity was not found: no thread {thread_id!r}.")
    return thread_id


@tool(writes=True, params=SendArgs, name="gmail.messages.send")
def messages_send(ctx, args):
    """Send a mail now, from assistant@nordlys.no (Gmail users.messages.send). raw is the whole RFC 2822
    message, base64url-encoded; give threadId to send it as a reply in that thread. It reaches the recipients at
    once and cannot be recalled. Answers {id, threadId, labelIds: ["SENT"]}."""
    _me(args.userId)
    fields = parse_raw(args.raw)
    if not fields["to"].strip():
        raise Refused("invalid_argument", "Invalid To header: a mail to send needs at least one recipient.")
    mid = new_hex(ctx, "message", "messages")
    record = {
        "id": mid, "threadId": _thread_for(ctx, args.threadId, mid), "labelIds": ["SENT"], "from": ASSISTANT_FROM,
        "date": clock.rfc2822(ctx.at_ms // 1000), "internalDate": str(ctx.at_ms), "messageId": f"<{mid}@nordlys.no>",
        "historyId": str(ctx.at_ms // 1000), **fields,
    }
    ctx.store.insert("messages", mid, record)
    return {"id": mid, "threadId": record["threadId"], "labelIds": ["SENT"]}


@tool(writes=True, params=DraftArgs, name="gmail.drafts.create")
def drafts_create(ctx, args):
    """Save a draft in the assistant's mailbox without sending it (Gmail users.drafts.create). message.raw is
    the whole RFC 2822 mail, base64url-encoded; message.threadId makes it a reply in that thread. Nothing is
    sent: a person reviews and sends drafts. Answers {id, message: {id, threadId, labelIds: ["DRAFT"]}}."""
    _me(args.userId)
    fields = parse_raw(args.message.raw)
    mid = new_hex(ctx, "draft-message", "messages")
    n = int(hashlib.sha256(f"draft/{ctx.seed}/{ctx.step}".encode()).hexdigest(), 16) % 10**19
    did = f"r-{n:019d}"
    while ctx.store.get("drafts", did) is not None:
        n = (n + 1) % 10**19
        did = f"r-{n:019d}"
    record = {"id": did, "messageId": mid, "threadId": _thread_for(ctx, args.message.threadId, mid),
              "created": ctx.at, **{k: fields[k] for k in ("to", "cc", "subject", "body", "inReplyTo")}}
    ctx.store.insert("drafts", did, record)
    return {"id": did, "message": {"id": mid, "threadId": record["threadId"], "labelIds": ["DRAFT"]}}


def _draft_message(d: dict) -> dict:
    return {"id": d["messageId"], "threadId": d["threadId"], "labelIds": ["DRAFT"], "from": ASSISTANT_FROM,
            "to": d["to"], "cc": d["cc"], "subject": d["subject"], "body": d["body"], "inReplyTo": d["inReplyTo"],
            "date": "", "messageId": f"<{d['messageId']}@nordlys.no>", "historyId": "0",
            "internalDate": str(clock.parse(d["created"]) * 1000)}


@tool(writes=False, params=DraftListArgs, name="gmail.drafts.list", pure=True, reads=("drafts",))
def drafts_list(ctx, args):
    """The saved drafts (Gmail users.drafts.list): {drafts: [{id, message: {id, threadId}}], resultSizeEstimate}.
    Read one with gmail.drafts.get."""
    _me(args.userId)
    ds = sorted((d for _, d in ctx.store.scan("drafts")), key=lambda d: (d["created"], d["id"]), reverse=True)
    out = {"drafts": [{"id": d["id"], "message": {"id": d["messageId"], "threadId": d["threadId"]}}
                      for d in ds[:args.maxResults]]} if ds else {}
    out["resultSizeEstimate"] = len(ds)
    return out


@tool(writes=False, params=DraftGetArgs, name="gmail.drafts.get", pure=True, reads=("drafts",))
def drafts_get(ctx, args):
    """Read one draft (Gmail users.drafts.get): {id, message: Message} with the text in
    message.payload.body.data (base64url)."""
    _me(args.userId)
    d = ctx.store.get("drafts", args.id)
    if d is None:
        raise Refused("not_found", f"Requested entity was not found: no draft {args.id!r}.")
    return {"id": d["id"], "message": render(_draft_message(d))}


@tool(writes=True, params=ModifyArgs, name="gmail.messages.modify")
def messages_modify(ctx, args):
    """Add or remove labels on one message (Gmail users.messages.modify), by label id: remove "INBOX" to
    archive, remove "UNREAD" to mark read, add "Label_1" to file under Finance (gmail.labels.list gives the
    ids). Answers {id, threadId, labelIds}."""
    _me(args.userId)
    m = _message(ctx, args.id)
    labels = _label_ids(ctx)
    for lid in list(args.addLabelIds) + list(args.removeLabelIds):
        if lid not in labels:
            raise Refused("invalid_argument", f"Invalid label: {lid}. Labels are given by id (Label_1, INBOX...): "
                                              "see gmail.labels.list.")
    now = set(m["labelIds"]) | set(args.addLabelIds)
    now -= set(args.removeLabelIds)
    ids = sorted(now)
    if ids != m["labelIds"]:
        m = ctx.store.update("messages", m["id"], {"labelIds": ids})
    return {"id": m["id"], "threadId": m["threadId"], "labelIds": list(m["labelIds"])}


@tool(writes=False, params=LabelsArgs, name="gmail.labels.list", pure=True, reads=("labels",))
def labels_list(ctx, args):
    """The mailbox's labels (Gmail users.labels.list): {labels: [{id, name, type (system or user),
    messageListVisibility, labelListVisibility}]}. Other tools take label ids, not names."""
    _me(args.userId)
    return {"labels": [lab for _, lab in ctx.store.scan("labels")]}


TOOLS = [messages_list, messages_get, threads_get, messages_send, drafts_create, drafts_list, drafts_get,
         messages_modify, labels_list]
