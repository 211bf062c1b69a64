"""Settings are validated at start: a server that cannot run with them says
which one and why, and exits 2 (the real command)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sw_runtime.config import Settings, SettingsError


@pytest.mark.parametrize("flags, says", [
    (["--step-limit", "-1"], "--step-limit"),
    (["--step-limit", "100000000"], "--step-limit"),
    (["--idle-timeout", "0"], "--idle-timeout"),
    (["--max-episodes", "0"], "--max-episodes"),
    (["--shard", "100"], "--shard"),
])
def test_bad_settings_stop_the_server_with_a_clear_message(flags, says):
    r = subprocess.run([sys.executable, "-m", "sw_runtime", "serve", "--port", "1", *flags],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert says in r.stderr and "must be from" in r.stderr and "Traceback" not in r.stderr


def test_settings_from_the_environment_are_validated_too(monkeypatch):
    monkeypatch.setenv("SW_DURABILITY", "sometimes")
    with pytest.raises(SettingsError, match="fsync, write or none"):
        Settings.from_env().validate()
    assert Settings().validate().durability == "write"
