"""``only``: a task's cast finds exactly one record per part, or says what it lacks."""

from __future__ import annotations

import pytest

from sw_runtime.worlds.task import only


def test_only_answers_the_one_item():
    assert only([{"id": "rq-16"}], "duplicate pair", "coinpurse") == {"id": "rq-16"}


@pytest.mark.parametrize("items", [[], [1, 2]])
def test_none_or_several_say_the_world_the_part_and_the_count(items):
    with pytest.raises(ValueError, match=rf"^receivables state: expected exactly one promise email, "
                                         rf"found {len(items)}$"):
        only(items, "promise email", "receivables")
