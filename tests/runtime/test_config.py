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


@pytest.mark.parametrize("env, says", [
    ({"SW_IP_RATE": "1e-300"}, "SW_IP_RATE"),
    ({"SW_KEY_RATE": "nan"}, "SW_KEY_RATE"),
    ({"SW_KEY_RATE": "-1"}, "SW_KEY_RATE"),
    ({"SW_IP_BURST": "-1"}, "SW_IP_BURST"),
    ({"SW_WEBHOOK_QUEUE": "-3"}, "SW_WEBHOOK_QUEUE"),
    ({"SW_READ_CACHE": "-1"}, "SW_READ_CACHE"),
    ({"SW_WEBHOOK_BACKOFF": "1,x"}, "SW_WEBHOOK_BACKOFF"),
    ({"SW_JUDGE_URL": "ftp://x"}, "SW_JUDGE_URL"),
    ({"SW_USER_SIM_URL": "localhost:9"}, "SW_USER_SIM_URL"),
    ({"SW_PURE": "maybe"}, "SW_PURE"),
    ({"SW_MAX_EPISODES": "lots"}, "SW_MAX_EPISODES"),
    ({"SW_AUTH": "maybe"}, "SW_AUTH"),
])
def test_every_setting_from_the_environment_is_checked_with_one_line_and_exit_2(env, says):
    import os

    r = subprocess.run([sys.executable, "-m", "sw_runtime", "serve", "--port", "1"], env={**os.environ, **env},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in r.stderr, r.stderr


def test_a_rate_of_zero_is_no_limit_and_a_tiny_one_is_refused():
    assert Settings(ip_rate=0).validate().ip_rate == 0
    with pytest.raises(SettingsError, match="SW_IP_RATE"):
        Settings(ip_rate=1e-300).validate()
