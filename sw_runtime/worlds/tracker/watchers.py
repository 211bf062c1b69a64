"""Tracker's watchers: who follows an issue, and adding or removing one (Jira REST API v3's
getIssueWatchers, addWatcher, removeWatcher). addWatcher's body is the account id as a bare JSON
string, as Jira takes it; the tools address maps it to ``accountId``."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from ..tool import tool
from . import rules as R, views as V
from .args import Key, _S


class WatcherArgs(_S):
    issueIdOrKey: Key
    accountId: Annotated[str, Meta(description="The user's account id; default the agent.")] | None = None


@tool(writes=False, params=WatcherArgs, name="jira.getIssueWatchers", pure=True, reads=("issues", "users"))
def get_watchers(ctx, args):
    """Get who watches an issue (GET /rest/api/3/issue/{issueIdOrKey}/watchers)."""
    i = R.visible(ctx.store, args.issueIdOrKey)
    return {"self": f"{V.API3}/issue/{i['key']}/watchers", "isWatching": R.me() in i["watchers"],
            "watchCount": len(i["watchers"]), "watchers": [V.user(ctx.store, w) for w in i["watchers"]]}


def _watcher(ctx, args) -> tuple:
    i = R.visible(ctx.store, args.issueIdOrKey)
    who = args.accountId or R.me()
    if ctx.store.get("users", who) is None:
        raise V.refuse(404, f"User with accountId '{who}' does not exist")
    return i, who


@tool(writes=True, params=WatcherArgs, name="jira.addWatcher")
def add_watcher(ctx, args):
    """Add a watcher to an issue (POST /rest/api/3/issue/{issueIdOrKey}/watchers, the body being the account id as
    a JSON string); without accountId, the agent. Answers 204."""
    i, who = _watcher(ctx, args)
    if who not in i["watchers"]:
        ctx.store.update("issues", i["key"], {"watchers": [*i["watchers"], who]})
    return None


@tool(writes=True, params=WatcherArgs, name="jira.removeWatcher")
def remove_watcher(ctx, args):
    """Remove a watcher from an issue (DELETE /rest/api/3/issue/{issueIdOrKey}/watchers?accountId=...). Answers
    204."""
    i, who = _watcher(ctx, args)
    if who in i["watchers"]:
        ctx.store.update("issues", i["key"], {"watchers": [w for w in i["watchers"] if w != who]})
    return None


TOOLS = [get_watchers, add_watcher, remove_watcher]
