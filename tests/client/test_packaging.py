"""One distribution installs the client beside the server packages."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_the_distribution_packs_sandworld_from_clients_python():
    from setuptools.config.pyprojecttoml import read_configuration

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # setuptools calls its pyproject support "beta"
        conf = read_configuration(ROOT / "pyproject.toml", expand=True)["tool"]["setuptools"]
    packages = set(conf["packages"])
    assert {"sandworld", "sandworld.evaluation", "sw_core_ext", "sw_runtime", "sw_runtime.engine"} <= packages
    assert conf["package-dir"]["sandworld"] == "clients/python/sandworld"
    assert not any(p.startswith(("tests", "bench", "clients", "examples")) for p in packages)


def test_the_installed_sandworld_is_the_client_package():
    r = subprocess.run([sys.executable, "-c", "import sandworld, sw_runtime, sw_core_ext; print(sandworld.__file__)"],
                       capture_output=True, text=True, cwd="/", timeout=60)
    assert r.returncode == 0, r.stderr
    assert pathlib.Path(r.stdout.strip()) == ROOT / "clients" / "python" / "sandworld" / "__init__.py"
