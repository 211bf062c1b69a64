"""The run book's tools tokens: HMAC-SHA256 of the episode id under the book's secret."""

from __future__ import annotations

import hashlib
import hmac

from sw_runtime.engine.runs import TOKEN_PREFIX, RunBook


def test_a_tools_token_is_the_hmac_of_its_episode_id_and_opens_only_it():
    book = RunBook()
    for eid in ("ep_0_abcdef_0123456789abcdef0123", "ep_12_000001_ffffffffffffffffffff", "é"):
        want = TOKEN_PREFIX + hmac.new(book._secret, eid.encode(), hashlib.sha256).hexdigest()[:32]
        assert book.issue(eid) == want == book.issue(eid)
        assert book.opens(want, eid) and not book.opens(want, eid + "x") and not book.opens(None, eid)
    assert RunBook().issue("ep_1") != book.issue("ep_1")  # each book draws its own secret
