"""The registry of worlds, by name: every world is a plugin.

A world is registered through the ``sandworld.worlds`` entry-point group: the
entry's name is the world's name and its value the object that holds it
(``"flight_desk:WORLD"``, or a module whose ``WORLD`` it is). The built-in
worlds are registered the same way, in this project's ``pyproject.toml``;
a package of your own adds a world by declaring an entry point and being
installed (``sandworld new-world NAME --path DIR`` makes one). Only when this
project itself runs uninstalled, from a bare source tree, are the built-ins
read from ``BUILTIN`` instead.

``SW_WORLDS=a,b`` serves only those worlds (a world's module is imported only
when it is served).
"""

from __future__ import annotations

import importlib
import os
from importlib import metadata

from .. import errors
from . import composite

GROUP = "sandworld.worlds"
DISTRIBUTION = "sandworld-runtime"

# The same entries as pyproject.toml's [project.entry-points."sandworld.worlds"].
BUILTIN = {
    "airline": "sw_runtime.worlds.airline:WORLD",
    "billing": "sw_runtime.worlds.billing:WORLD",
    "codehost": "sw_runtime.worlds.codehost:WORLD",
    "coinpurse": "sw_runtime.worlds.coinpurse:WORLD",
    "dummy": "sw_runtime.worlds.dummy:WORLD",
    "helpdesk": "sw_runtime.worlds.helpdesk:WORLD",
    "offsite-planning": "sw_runtime.worlds.offsite_planning:WORLD",
    "quickbasket": "sw_runtime.worlds.quickbasket:WORLD",
    "receivables": "sw_runtime.worlds.receivables:WORLD",
    "tracker": "sw_runtime.worlds.tracker:WORLD",
}


def discover() -> dict:
    """Every registered world, name -> ``"module:attr"``, from the installed
    distributions' entry points. Two distributions claiming one name is an
    error that names both."""
    found: dict = {}
    owners: dict = {}
    try:
        metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # a bare source tree: the built-ins are not declared anywhere
        found.update(BUILTIN)
        owners.update({n: "this source tree" for n in BUILTIN})
    for ep in metadata.entry_points(group=GROUP):
        owner = ep.dist.name if ep.dist is not None else "?"
        if ep.name in found and found[ep.name] != ep.value:
            raise SystemExit(f"two packages register the world {ep.name!r}: {owners[ep.name]} ({found[ep.name]}) "
                             f"and {owner} ({ep.value}); uninstall one or rename its world")
        found[ep.name] = ep.value
        owners[ep.name] = owner
    return found


PACKAGES = discover()

_REGISTRY: dict | None = None


def load(name: str, target: str):
    """The ``World`` an entry point's value names, checked to be ``name``."""
    module, _, attr = target.partition(":")
    obj = importlib.import_module(module)
    for part in (attr or "WORLD").split("."):
        obj = getattr(obj, part)
    if getattr(obj, "name", None) != name:
        raise SystemExit(f"the entry point {name!r} = {target!r} holds the world {getattr(obj, 'name', obj)!r}; "
                         "the entry's name must be the world's name")
    return obj


def registry() -> dict:
    """Every served world, by name, in name order."""
    global _REGISTRY
    if _REGISTRY is None:
        wanted = [n.strip() for n in os.environ.get("SW_WORLDS", "").split(",") if n.strip()]
        unknown = sorted(set(wanted) - set(PACKAGES))
        if unknown:
            raise SystemExit(f"SW_WORLDS names unknown worlds {unknown}; known: {sorted(PACKAGES)}")
        names = wanted or sorted(PACKAGES)
        _REGISTRY = {n: load(n, PACKAGES[n]) for n in sorted(names)}
    return _REGISTRY


_COMPOSITES: dict = {}


def get_world(name: str):
    """The world named ``name``; a name joining two or three worlds with
    ``+`` (``codehost+offsite-planning``, in any order) is their composite
    (``composite.py``), made once and kept."""
    world = registry().get(name)
    if world is None:
        if composite.SEP in name:
            return get_composite(name.split(composite.SEP))
        raise errors.NotFound(f"no environment {name!r}; the environments are {', '.join(registry())}")
    return world


def get_composite(names) -> "composite.Composite":
    """The composite of the worlds ``names`` (``InvalidRequest`` naming a world
    that is unknown, twice, or one too many); one world's name is that world."""
    names = composite.part_names(names)
    unknown = [n for n in names if n not in registry()]
    if unknown:
        raise errors.InvalidRequest(f"environments: no world {', '.join(map(repr, unknown))}; "
                                    f"the worlds are {', '.join(registry())}")
    key = composite.SEP.join(names)
    if len(names) == 1:
        return registry()[key]
    got = _COMPOSITES.get(key)
    if got is None:
        from .crossapp import tasks_for

        got = _COMPOSITES[key] = composite.compose([registry()[n] for n in names], tasks_for(names))
    return got


def world_of(environment: str | None, environments: list | None):
    """The world a create names: by its path or item's ``environment``, or by
    its body's ``environments`` (one to three worlds); when both are given
    they must name the same world."""
    if environments is not None:
        if not environments:
            raise errors.InvalidRequest("environments: name one to three worlds, e.g. [\"codehost\", \"offsite-planning\"]")
        world = get_composite(environments)
        if environment and get_world(environment) is not world:
            raise errors.InvalidRequest(f"environments names {world.name}, but the request is for {environment}; "
                                        "give one of them")
        return world
    if not environment:
        raise errors.InvalidRequest("name the episode's worlds: \"environments\": [\"coinpurse\"] (one to three)")
    return get_world(environment)


def composites() -> list:
    """Every set of served worlds that has cross-app tasks, as ``GET /environments`` lists them."""
    from .crossapp import SETS

    served = registry()
    return [get_composite(names) for names in SETS if all(n in served for n in names)]
