"""The action log file: one line per request, a torn tail cut off, and
compaction while lines keep arriving."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import msgspec
import pytest

from sw_runtime.config import Settings
from sw_runtime.store import log as action_log
from sw_runtime.store.folder import DataFolder


def records(path, upto=None):
    return [[msgspec.json.decode(r) for r in line] for line in action_log.read(str(path), upto)]


def test_each_append_is_one_line_read_back_in_order(tmp_path):
    path = tmp_path / "actions.log"
    log = action_log.ActionLog(str(path), "fsync")
    log.append([("c", "ep_1", "dummy", msgspec.Raw(b'{"seed":1}'), "t")])
    log.append([("s", "ep_1", "noop", msgspec.Raw(b"{}"), 1, "sha256:x"), ("e", "ep_1", "finished", "", None, 1.0)])
    log.close()
    assert records(path) == [[["c", "ep_1", "dummy", {"seed": 1}, "t"]],
                             [["s", "ep_1", "noop", {}, 1, "sha256:x"], ["e", "ep_1", "finished", "", None, 1.0]]]
    assert path.read_bytes().count(b"\n") == 3  # the version header, then one line per append


def test_a_torn_last_line_is_cut_off(tmp_path, caplog):
    path = tmp_path / "actions.log"
    log = action_log.ActionLog(str(path), "write")
    log.append([("pd", "snap_1")])
    log.close()
    whole = path.stat().st_size
    with open(path, "ab") as f:
        f.write(b'[["s","ep_1","noop",{}')  # the server died here
    assert records(path) == [[["pd", "snap_1"]]]
    assert path.stat().st_size == whole and "torn line" in caplog.text


def test_the_mode_none_has_no_log(tmp_path):
    with pytest.raises(ValueError):
        action_log.ActionLog(str(tmp_path / "x"), "none")


def test_compaction_keeps_what_is_appended_while_it_runs(tmp_path):
    folder = DataFolder(Settings(data_dir=str(tmp_path)))

    class Nothing:  # an engine (and keys) with nothing to replay
        journal = on_event = None
        users = SimpleNamespace(on_reply=None)
        pending_results: dict = {}
        on_finish = None

        def take_results(self):
            return []

        def free(self, _):
            pass

    nothing = Nothing()
    folder.open(nothing, nothing)
    folder.log.append([("c", "ep_dead", "dummy", msgspec.Raw(b"{}"), "t"), ("e", "ep_dead", "idle", "", None, 0)])
    folder.log.append([("c", "ep_live", "dummy", msgspec.Raw(b"{}"), "t")])

    async def run():
        task = asyncio.create_task(folder.compact())
        await asyncio.sleep(0)
        folder.log.append([("s", "ep_live", "noop", msgspec.Raw(b"{}"), 1, "sha256:y")])  # during compaction
        await task

    asyncio.run(run())
    folder.log.append([("s", "ep_live", "noop", msgspec.Raw(b"{}"), 2, "sha256:z")])
    kinds = [(r[0], r[1]) for line in records(folder.log_path) for r in line]
    assert kinds == [("c", "ep_live"), ("s", "ep_live"), ("s", "ep_live")]
    folder.close()


def test_the_replay_notice_at_start_is_information_not_a_warning(tmp_path, caplog):
    from sw_runtime.service import Service

    async def once(body: bytes | None):
        svc = Service(Settings(data_dir=str(tmp_path)))
        await svc.start()
        if body is not None:
            await svc.create("dummy", body)
        await svc.stop()

    asyncio.run(once(b'{"task_id": "dm-01"}'))
    caplog.clear()
    with caplog.at_level("INFO", logger="sandworld.store"):
        asyncio.run(once(None))
    notice = [r for r in caplog.records if "replayed the action log" in r.getMessage()]
    assert notice and all(r.levelname == "INFO" for r in notice)
    assert not [r for r in caplog.records if r.levelno >= 30]
