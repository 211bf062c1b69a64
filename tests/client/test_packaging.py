"""Two distributions: the pure-Python client `sandworld` (clients/python) and
the server `sandworld-runtime` (the root), which depends on it."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tomllib
import venv
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"


def _project(path: pathlib.Path) -> dict:
    return tomllib.loads((path / "pyproject.toml").read_text())


def test_the_client_is_pure_python_with_three_dependencies_and_an_extra_per_integration():
    conf = _project(CLIENT)
    assert conf["project"]["name"] == "sandworld"
    assert sorted(d.split(">")[0] for d in conf["project"]["dependencies"]) == ["httpx", "msgspec", "orjson"]
    assert {"eval", "trl", "verl", "openenv", "gym", "skyrl"} <= set(conf["project"]["optional-dependencies"])
    assert conf["build-system"]["requires"] == ["setuptools>=77"]  # no Cython, no compiler
    assert conf["project"]["scripts"]["sandworld"] == "sandworld.cli:main"


def test_the_server_depends_on_the_client_of_its_own_version_and_packs_only_its_packages():
    server, client = _project(ROOT)["project"], _project(CLIENT)["project"]
    assert f"sandworld[eval]=={client['version']}" in server["dependencies"]
    assert server["version"] == client["version"]
    find = _project(ROOT)["tool"]["setuptools"]["packages"]["find"]
    assert find["where"] == ["."] and not any(p.startswith("sandworld") for p in find["include"])


def test_the_installed_sandworld_is_the_client_package():
    r = subprocess.run([sys.executable, "-c", "import sandworld, sw_runtime, sw_core_ext; print(sandworld.__file__)"],
                       capture_output=True, text=True, cwd="/", timeout=60)
    assert r.returncode == 0, r.stderr
    assert pathlib.Path(r.stdout.strip()) == CLIENT / "sandworld" / "__init__.py"


def test_the_client_ships_the_same_license_as_the_repository():
    assert (CLIENT / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert "Apache License" in (ROOT / "LICENSE").read_text() and "Version 2.0" in (ROOT / "LICENSE").read_text()


def test_the_command_hands_server_commands_to_the_server_when_installed():
    r = subprocess.run([sys.executable, "-m", "sandworld.cli", "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for command in ("serve", "digest", "bench", "check-world", "new-world", "eval", "report"):
        assert command in r.stdout


@pytest.mark.parametrize("dockerfile", ["Dockerfile", "clients/python/sandworld/integrations/openenv/Dockerfile"])
def test_every_file_a_dockerfile_copies_is_in_the_repository(dockerfile):
    # The images are not built here (no container registry is reachable); this keeps
    # their build context honest as the tree moves.
    copies = [line.split()[1:-1] for line in (ROOT / dockerfile).read_text().splitlines()
              if line.startswith("COPY") and "--from" not in line]
    assert copies
    for sources in copies:
        for source in sources:
            assert (ROOT / source).exists(), f"{dockerfile} copies {source}, which is not in the repository"


@pytest.mark.slow
def test_the_client_installs_alone_in_a_fresh_venv_without_a_compiler(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    # CC=false: any attempt to compile fails the install. pip's cache is kept,
    # setuptools and the three dependencies come from PyPI.
    env = {**os.environ, "CC": "false", "CXX": "false", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    r = subprocess.run([py, "-m", "pip", "install", "--quiet", str(CLIENT)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    listed = subprocess.run([py, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True,
                            env=env, timeout=120).stdout.lower()
    assert "sandworld==" in listed and "sandworld-runtime" not in listed
    assert not any(name in listed for name in ("rich==", "matplotlib==", "cython==", "torch=="))
    check = subprocess.run([py, "-c", "import sandworld, sandworld.integrations.trl, sandworld.integrations.verl; "
                            "print(sandworld.__version__)"], capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=120)
    assert check.returncode == 0 and check.stdout.strip() == _project(CLIENT)["project"]["version"], check.stderr
    gym = subprocess.run([py, "-c", "import sandworld.integrations.gym"], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=120)
    assert gym.returncode == 1 and "pip install 'sandworld[gym]'" in gym.stderr
    serve = subprocess.run([env_dir / "bin" / "sandworld", "serve"], capture_output=True, text=True, env=env,
                           cwd=tmp_path, timeout=120)
    assert serve.returncode == 2 and "pip install sandworld-runtime" in serve.stderr


@pytest.mark.slow
def test_build_makes_an_sdist_and_a_wheel_of_each_distribution(tmp_path):
    for source, wheel_prefix in ((CLIENT, "sandworld-"), (ROOT, "sandworld_runtime-")):
        out = tmp_path / wheel_prefix.strip("-_")
        r = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                           capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        names = sorted(p.name for p in out.iterdir())
        assert any(n.endswith(".tar.gz") for n in names) and any(n.endswith(".whl") for n in names), names
    client_wheel = next((tmp_path / "sandworld").glob("*.whl"))
    assert client_wheel.name.endswith("-py3-none-any.whl")  # pure Python
    files = zipfile.ZipFile(client_wheel).namelist()
    assert "sandworld/integrations/trl.py" in files and not any(f.startswith("sw_runtime/") for f in files)
    assert "sandworld/integrations/openenv/openenv.yaml" in files
    server_files = zipfile.ZipFile(next((tmp_path / "sandworld_runtime").glob("*.whl"))).namelist()
    assert any(f.startswith("sw_core_ext/_store") and f.endswith(".so") for f in server_files)
    assert not any(f.startswith("sandworld/") for f in server_files)
    # the viewer's templates and static files are package data (docs/VIEWER.md: no CDN, nothing fetched)
    assert {"sw_runtime/ui/templates/episode.html", "sw_runtime/ui/static/ui.css",
            "sw_runtime/ui/static/ui.js"} <= set(server_files)
