"""Slack: the Nordlys workspace, on the Slack Web API's methods, argument
names and answer shapes (``conversations.history`` is
``slack.conversations.history``). The assistant is the user ``U_ASSIST``.

A message's id is its ``ts`` (``1793001621.000000``), derived from the
simulated clock: the seconds and milliseconds of the step that posted it.
Refusals carry Slack's own error names (``channel_not_found``,
``not_in_channel``, ``thread_not_found``, ``message_not_found``...).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from ..tool import Refused, tool
from . import clock
from .office import ASSISTANT

ME = ASSISTANT.uid

ChannelId = Annotated[str, Meta(description="The channel id, e.g. C_GENERAL (from slack.conversations.list).")]
Cursor = Annotated[str | None, Meta(description="next_cursor of the previous page.")]


class ListArgs(msgspec.Struct, forbid_unknown_fields=True):
    types: Annotated[str, Meta(description=(
        "Comma-separated: public_channel, private_channel. Default public_channel only, as in Slack: pass "
        "\"public_channel,private_channel\" to see private channels such as #leadership."))] = "public_channel"
    exclude_archived: Annotated[bool, Meta(description="Leave out archived channels.")] = False
    limit: Annotated[int, Meta(ge=1, le=1000, description="At most this many (default 100).")] = 100
    cursor: Cursor = None


class HistoryArgs(msgspec.Struct, forbid_unknown_fields=True):
    channel: ChannelId
    limit: Annotated[int, Meta(ge=1, le=1000, description="At most this many messages (default 100).")] = 100
    oldest: Annotated[str | None, Meta(description="Only messages after this ts.")] = None
    latest: Annotated[str | None, Meta(description="Only messages before this ts.")] = None
    inclusive: Annotated[bool, Meta(description="Include messages exactly at oldest or latest.")] = False
    cursor: Cursor = None


class RepliesArgs(msgspec.Struct, forbid_unknown_fields=True):
    channel: ChannelId
    ts: Annotated[str, Meta(description="The ts of the thread's parent message.")]
    limit: Annotated[int, Meta(ge=1, le=1000, description="At most this many (default 100).")] = 100
    cursor: Cursor = None


class PostArgs(msgspec.Struct, forbid_unknown_fields=True):
    channel: Annotated[str, Meta(description="Where to post: a channel id (C_GENERAL) or name (#general).")]
    text: Annotated[str, Meta(max_length=40_000, description="The message, in Slack mrkdwn.")]
    thread_ts: Annotated[str | None, Meta(description="Reply in the thread of the message with this ts.")] = None
    reply_broadcast: Annotated[bool, Meta(description="With thread_ts: also show the reply in the channel.")] = False


class DeleteArgs(msgspec.Struct, forbid_unknown_fields=True):
    channel: ChannelId
    ts: Annotated[str, Meta(description="The ts of the message to delete.")]


class UsersArgs(msgspec.Struct, forbid_unknown_fields=True):
    limit: Annotated[int, Meta(ge=1, le=1000, description="At most this many (default 100).")] = 100
    cursor: Cursor = None


# -- helpers ----------------------------------------------------------------------------------------------------


def _channel(ctx, ref: str, by_name: bool = False) -> dict:
    c = ctx.store.get("channels", ref)
    if c is None and by_name:
        name = ref.lstrip("#").lower()
        c = next((x for _, x in ctx.store.scan("channels") if x["name"] == name), None)
    if c is None:
        hint = "a channel id such as C_GENERAL or a name such as #general" if by_name else \
            "a channel id such as C_GENERAL (slack.conversations.list gives them)"
        raise Refused("channel_not_found", f"Value passed for channel was invalid: {ref!r}. Give {hint}.")
    if ME not in c["members"]:
        raise Refused("not_in_channel", f"The assistant is not a member of #{c['name']}.")
    return c


def _page(items: list, cursor: str | None, limit: int) -> tuple:
    try:
        start = int(cursor) if cursor else 0
    except ValueError:
        raise Refused("invalid_cursor", f"Value passed for cursor was not valid: {cursor!r}.") from None
    nxt = str(start + limit) if start + limit < len(items) else ""
    return items[start:start + limit], nxt


def _in_channel(ctx, cid: str) -> list:
    return [m for _, m in ctx.store.scan("slack_messages") if m["channelId"] == cid]


def view(m: dict, replies: list | None = None) -> dict:
    """A stored message as Slack shows it; a thread parent carries its reply summary."""
    out = {"type": "message", "user": m["user"], "text": m["text"], "ts": m["ts"]}
    if m["thread_ts"]:
        out["thread_ts"] = m["thread_ts"]
    if replies:
        out["thread_ts"] = m["ts"]
        out["reply_count"] = len(replies)
        out["reply_users"] = list(dict.fromkeys(r["user"] for r in replies))
        out["latest_reply"] = max((r["ts"] for r in replies), key=_ts_key)
    return out


def _ts_key(ts: str) -> tuple:
    sec, _, frac = ts.partition(".")
    return int(sec), int(frac or 0)


def fresh_ts(ctx, offset_ms: int = 0) -> str:
    """The ts of a message posted now (plus ``offset_ms``), unique in the workspace."""
    ms = ctx.at_ms + offset_ms
    while ctx.store.get("slack_messages", clock.slack_ts(ms)) is not None:
        ms += 1
    return clock.slack_ts(ms)


def insert(ctx, channel: str, user: str, text: str, thread_ts: str | None, ts: str) -> dict:
    record = {"ts": ts, "type": "message", "channelId": channel, "user": user, "text": text, "thread_ts": thread_ts}
    ctx.store.insert("slack_messages", ts, record)
    return record


# -- tools --------------------------------------------------------------------------------------------------------


@tool(writes=False, params=ListArgs, name="slack.conversations.list", pure=True, reads=("channels",))
def conversations_list(ctx, args):
    """The workspace's channels (Slack conversations.list): {ok, channels: [{id, name, is_private, is_member,
    topic: {value}, purpose: {value}, num_members}], response_metadata: {next_cursor}}. Only public channels
    unless types includes private_channel."""
    kinds = {t.strip() for t in args.types.split(",") if t.strip()}
    unknown = kinds - {"public_channel", "private_channel", "mpim", "im"}
    if unknown:
        raise Refused("invalid_types", f"Unknown conversation types: {', '.join(sorted(unknown))}.")
    out = []
    for _, c in ctx.store.scan("channels"):
        if ("private_channel" if c["is_private"] else "public_channel") not in kinds:
            continue
        if args.exclude_archived and c["is_archived"]:
            continue
        if c["is_private"] and ME not in c["members"]:
            continue
        view_c = {k: v for k, v in c.items() if k != "members"}
        view_c["is_member"] = ME in c["members"]
        view_c["num_members"] = len(c["members"])
        out.append(view_c)
    out.sort(key=lambda c: c["name"])
    page, nxt = _page(out, args.cursor, args.limit)
    return {"ok": True, "channels": page, "response_metadata": {"next_cursor": nxt}}


@tool(writes=False, params=HistoryArgs, name="slack.conversations.history", pure=True,
      reads=("channels", "slack_messages"))
def conversations_history(ctx, args):
    """A channel's messages, newest first (Slack conversations.history): {ok, messages: [{type, user, text, ts,
    thread_ts?, reply_count?, reply_users?, latest_reply?}], has_more, response_metadata}. Thread replies are
    not listed here: read them with slack.conversations.replies. The channel must be an id."""
    c = _channel(ctx, args.channel)
    msgs = _in_channel(ctx, c["id"])
    threads: dict = {}
    for m in msgs:
        if m["thread_ts"]:
            threads.setdefault(m["thread_ts"], []).append(m)
    top = [m for m in msgs if not m["thread_ts"]]
    lo = _ts_key(args.oldest) if args.oldest else None
    hi = _ts_key(args.latest) if args.latest else None

    def keep(m):
        k = _ts_key(m["ts"])
        if lo is not None and (k < lo or (k == lo and not args.inclusive)):
            return False
        if hi is not None and (k > hi or (k == hi and not args.inclusive)):
            return False
        return True

    top = sorted((m for m in top if keep(m)), key=lambda m: _ts_key(m["ts"]), reverse=True)
    page, nxt = _page(top, args.cursor, args.limit)
    return {"ok": True, "messages": [view(m, threads.get(m["ts"])) for m in page], "has_more": bool(nxt),
            "pin_count": 0, "response_metadata": {"next_cursor": nxt}}


@tool(writes=False, params=RepliesArgs, name="slack.conversations.replies", pure=True,
      reads=("channels", "slack_messages"))
def conversations_replies(ctx, args):
    """A thread (Slack conversations.replies): {ok, messages: [parent, replies...] oldest first, has_more}.
    ts is the parent's ts (a reply's ts also finds its thread)."""
    c = _channel(ctx, args.channel)
    m = ctx.store.get("slack_messages", args.ts)
    if m is None or m["channelId"] != c["id"]:
        raise Refused("thread_not_found", f"No message with ts {args.ts} in #{c['name']}.")
    parent_ts = m["thread_ts"] or m["ts"]
    parent = ctx.store.get("slack_messages", parent_ts)
    replies = sorted((x for x in _in_channel(ctx, c["id"]) if x["thread_ts"] == parent_ts),
                     key=lambda x: _ts_key(x["ts"]))
    msgs = ([view(parent, replies)] if parent is not None else []) + [view(x) for x in replies]
    page, nxt = _page(msgs, args.cursor, args.limit)
    return {"ok": True, "messages": page, "has_more": bool(nxt), "response_metadata": {"next_cursor": nxt}}


@tool(writes=True, params=PostArgs, name="slack.chat.postMessage")
def chat_post_message(ctx, args):
    """Post a message as the assistant (U_ASSIST) (Slack chat.postMessage); with thread_ts, as a reply in that
    thread. Everyone in the channel sees it at once. Answers {ok, channel, ts, message: {type, user, text, ts}};
    the ts identifies the message (for thread_ts, chat.delete)."""
    c = _channel(ctx, args.channel, by_name=True)
    if not args.text.strip():
        raise Refused("no_text", "The message has no text.")
    thread = None
    if args.thread_ts is not None:
        parent = ctx.store.get("slack_messages", args.thread_ts)
        if parent is None or parent["channelId"] != c["id"]:
            raise Refused("thread_not_found", f"No message with ts {args.thread_ts} in #{c['name']} to reply to.")
        thread = parent["thread_ts"] or parent["ts"]
    ts = fresh_ts(ctx)
    insert(ctx, c["id"], ME, args.text, thread, ts)
    message = {"type": "message", "user": ME, "text": args.text, "ts": ts}
    if thread:
        message["thread_ts"] = thread
    return {"ok": True, "channel": c["id"], "ts": ts, "message": message}


@tool(writes=True, params=DeleteArgs, name="slack.chat.delete")
def chat_delete(ctx, args):
    """Delete a message (Slack chat.delete). The assistant's token is a workspace admin's, so Slack lets it
    delete anyone's message; the policy says whose it may delete. Deleting cannot be undone. Answers
    {ok, channel, ts}."""
    c = _channel(ctx, args.channel)
    m = ctx.store.get("slack_messages", args.ts)
    if m is None or m["channelId"] != c["id"]:
        raise Refused("message_not_found", f"No message with ts {args.ts} in #{c['name']}.")
    ctx.store.remove("slack_messages", args.ts)
    return {"ok": True, "channel": c["id"], "ts": args.ts}


@tool(writes=False, params=UsersArgs, name="slack.users.list", pure=True, reads=("users",))
def users_list(ctx, args):
    """The workspace's members (Slack users.list): {ok, members: [{id, name, real_name, is_bot, is_admin, tz,
    profile: {title, display_name, email, phone}}], response_metadata}. U_ASSIST is the assistant (a bot)."""
    members = [u for _, u in ctx.store.scan("users")]
    page, nxt = _page(members, args.cursor, args.limit)
    return {"ok": True, "members": page, "cache_ts": clock.EPOCH_S, "response_metadata": {"next_cursor": nxt}}


TOOLS = [conversations_list, conversations_history, conversations_replies, chat_post_message, chat_delete, users_list]
