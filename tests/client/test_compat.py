"""The client checks the server's version: another API generation warns."""

from __future__ import annotations

import warnings

import pytest

import sw_runtime
from sandworld import SandworldClient, __version__
from sandworld.compat import IncompatibleServerWarning, check_server_version, compatible, generation


def test_generations_follow_the_changelogs_policy():
    assert generation("1.4.2") == (1,) and generation("0.3.1") == (0, 3) and generation("2.0.0+local") == (2,)
    assert compatible("0.1.9", "0.1.0") and not compatible("0.2.0", "0.1.0")
    assert compatible("1.9.0", "1.0.0") and not compatible("2.0.0", "1.5.0")
    assert compatible("whatever", "1.0.0") and compatible("5.0.0", "0.0.0")  # unknown: no alarm


def test_another_generation_warns_with_what_to_install():
    with pytest.warns(IncompatibleServerWarning, match="pip install 'sandworld==9.0.0'"):
        assert check_server_version("9.0.0", where="http://x") is False


def test_the_server_reports_the_version_of_this_release_and_the_client_accepts_it(api):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no IncompatibleServerWarning
        with SandworldClient(api) as client:
            health = client.health()
    assert health["version"] == sw_runtime.__version__ == __version__
