"""Episode and snapshot ids carry the shard and the boot that made them."""

from __future__ import annotations

import pytest

from sw_runtime import errors
from sw_runtime.config import Settings
from sw_runtime.engine.engine import Engine
from sw_runtime.engine.ids import Minter, parse
from sw_runtime.schemas import Call, CreateEpisode


def test_an_id_names_its_shard_at_any_width_and_its_boot():
    for shard in (0, 7, 12, 4096):
        m = Minter(shard, boot="a1b2c3")
        ep, snap = m.episode(), m.snapshot()
        assert parse(ep) == ("ep", shard, "a1b2c3")
        assert parse(snap) == ("snap", shard, "a1b2c3")
    assert parse("ep_00nope") is None and parse("ep_1_zzzzzz_00") is None and parse(None) is None


def test_ids_are_unique_and_each_start_draws_a_new_boot():
    m = Minter(1)
    assert len({m.episode() for _ in range(1000)}) == 1000
    assert len({Minter(1).boot for _ in range(50)}) > 45


def test_a_missing_id_says_why_when_its_shape_tells():
    m = Minter(3, boot="000001")
    assert m.why_missing(m.episode()) is None  # this boot's: simply not here (never made, or evicted)
    assert "restarted" in m.why_missing(Minter(3, boot="000002").episode())
    assert "shard 5" in m.why_missing(Minter(5).episode())
    assert m.why_missing("ep_nonsense") is None


def test_the_engine_answers_an_earlier_boots_episode_with_not_found_saying_it_restarted():
    before = Engine(Settings(shard=2))
    eid = before.create("coinpurse", CreateEpisode(task_id="cp-01")).id
    assert parse(eid).shard == 2
    after = Engine(Settings(shard=2))  # the same shard, started again
    with pytest.raises(errors.NotFound) as gone:
        after.get(eid)
    assert "restarted" in gone.value.message
    slot = after.batch([Call(episode_id=eid, tool="get_balance")])[0]
    assert slot["ok"] is False and "restarted" in slot["error"]["message"]
