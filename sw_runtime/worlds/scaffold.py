"""``new_world(name)``: a new world package, copied from the dummy world.

The dummy world (``worlds/dummy``) is the template: the copy gets the new
name, title and task-id prefix, and its relative imports become absolute
(``from sw_runtime.worlds.tool import ...``) so the package works wherever it
is put. It is a complete, checkable world from the first minute; the author
then grows its state, tools and tasks (see ``docs/WORLDS.md``).

With ``path`` it is an installable project outside this source tree: a
``pyproject.toml`` that declares the world in the ``sandworld.worlds``
entry-point group, a README, and the package. ``pip install -e DIR`` and
the server serves it. Without, the package goes next to the built-in worlds
and the author adds its entry point to this project's ``pyproject.toml``.
"""

from __future__ import annotations

import keyword
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

TEMPLATE = Path(__file__).parent / "dummy"
WORLDS_DIR = Path(__file__).parent
NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class ScaffoldError(ValueError):
    """The world cannot be made as asked (bad name, already exists...)."""


@dataclass(frozen=True)
class NewWorld:
    name: str
    package: str  # the Python package name (dashes become underscores)
    path: Path  # the package directory
    module: str  # the dotted module path of the package
    prefix: str  # task ids are <prefix>-01, ...
    project: Path | None = None  # the installable project's directory, when one was made

    @property
    def entry_point(self) -> str:
        """The line that registers it, under ``[project.entry-points."sandworld.worlds"]``."""
        return f'{self.name} = "{self.module}:WORLD"'


def default_prefix(name: str) -> str:
    parts = name.split("-")
    return "".join(p[0] for p in parts) if len(parts) > 1 else name[:2]


def new_world(name: str, path: Path | None = None, prefix: str | None = None, title: str | None = None) -> NewWorld:
    """Copy the dummy world into a package for the world ``name``.

    ``path``: make an installable project in that directory (it must not
    exist, or be empty); default: a package next to the built-in worlds, in
    ``sw_runtime/worlds``. Raises ``ScaffoldError``."""
    from . import PACKAGES

    if not NAME.match(name) or len(name) > 40:
        raise ScaffoldError(f"{name!r} is not a world name: lowercase letters and digits, words joined by '-', "
                            "like 'flight-desk' (at most 40 characters)")
    package = name.replace("-", "_")
    if keyword.iskeyword(package):
        raise ScaffoldError(f"{name!r} would make the package {package!r}, a Python keyword")
    if name in PACKAGES:
        raise ScaffoldError(f"a world named {name!r} is already registered ({PACKAGES[name]})")
    prefix = prefix or default_prefix(name)
    if not re.fullmatch(r"[a-z]{1,4}", prefix):
        raise ScaffoldError(f"task-id prefix {prefix!r}: use 1 to 4 lowercase letters")
    project = Path(path) if path is not None else None
    if project is not None:
        if project.exists() and (not project.is_dir() or any(project.iterdir())):
            raise ScaffoldError(f"{project} already exists and is not an empty directory")
        if project.resolve().is_relative_to(WORLDS_DIR.parent.parent.resolve()):
            raise ScaffoldError(f"{project} is inside the sandworld source tree; a plugin lives in its own directory "
                                "(leave out --path to add a built-in world)")
        dest = project
    else:
        dest = WORLDS_DIR
    path = dest / package
    if path.exists():
        raise ScaffoldError(f"{path} already exists")
    module = package if project is not None else f"sw_runtime.worlds.{package}"

    path.mkdir(parents=True)
    try:
        for src in sorted(TEMPLATE.rglob("*")):
            rel = src.relative_to(TEMPLATE)
            if "__pycache__" in rel.parts:
                continue
            out = path / rel
            if src.is_dir():
                out.mkdir(exist_ok=True)
            elif src.suffix == ".py":
                out.write_text(_rewrite(src.read_text(encoding="utf-8"), name, prefix, title, rel), encoding="utf-8")
            else:
                shutil.copyfile(src, out)
        if project is not None:
            _write_project(project, name, package, title)
    except Exception:
        shutil.rmtree(project if project is not None else path, ignore_errors=True)
        raise
    return NewWorld(name=name, package=package, path=path, module=module, prefix=prefix, project=project)


def _write_project(root: Path, name: str, package: str, title: str | None) -> None:
    """The files that make ``root`` an installable plugin project."""
    title = title or " ".join(w.capitalize() for w in name.split("-"))
    (root / "pyproject.toml").write_text(f"""[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "sandworld-world-{name}"
version = "0.1.0"
description = "The {name} world for Sandworld runtime."
requires-python = ">=3.11"
dependencies = ["sandworld-runtime"]

# This line is what makes a server serve the world: the entry point's name is
# the world's name, its value the World object.
[project.entry-points."sandworld.worlds"]
{name} = "{package}:WORLD"

[tool.setuptools]
packages = ["{package}"]

[tool.setuptools.package-data]
"{package}" = ["*.md"]
""", encoding="utf-8")
    (root / "README.md").write_text(f"""# {title}

A world for Sandworld runtime, made by `sandworld new-world {name} --path ...`.

```bash
pip install -e .                 # registers the world (entry point sandworld.worlds: {name})
sandworld check-world {name}     # its contract: schemas, determinism, reference solutions
sandworld serve                  # serves it with every other installed world
```
""", encoding="utf-8")


def _sub(pattern: str, repl: str, text: str, what: str, count: int = 0) -> str:
    out, n = re.subn(pattern, repl, text, count=count)
    if n == 0:
        raise ScaffoldError(f"the dummy template no longer has {what}; update sw_runtime/worlds/scaffold.py")
    return out


def _rewrite(text: str, name: str, prefix: str, title: str | None, rel: Path) -> str:
    depth = len(rel.parts) - 1  # files in subpackages of the template import one level further up
    # Relative imports become absolute, so the package works outside sw_runtime/worlds too.
    text = re.sub(r"^from \.{%d}(\w)" % (3 + depth), r"from sw_runtime.\1", text, flags=re.M)
    text = re.sub(r"^from \.{%d}(\w)" % (2 + depth), r"from sw_runtime.worlds.\1", text, flags=re.M)
    if rel.name != "__init__.py" or depth:
        return text
    title = title or " ".join(w.capitalize() for w in name.split("-"))
    doc = (f'"""The {name} world, made by ``sandworld new-world`` from the dummy world.\n\n'
           "It starts as the dummy's five numbered items, its tools and one task. Grow it\n"
           "into a real world: the seeded state (``generate``), the tools, the tasks and\n"
           'their checks, the policy. docs/WORLDS.md explains each step.\n"""')
    text = _sub(r'\A"""(.|\n)*?"""', doc.replace("\\", "\\\\"), text, "a module docstring", count=1)
    text = _sub(r'name="dummy"', f'name="{name}"', text, 'name="dummy"')
    text = _sub(r'title="Dummy"', f'title="{title}"', text, 'title="Dummy"')
    text = _sub(r'version="[0-9.]+"', 'version="0.1.0"', text, "a version")
    text = _sub(r'"dm-(\d\d)"', f'"{prefix}-\\1"', text, 'a task id "dm-01"')
    return text
