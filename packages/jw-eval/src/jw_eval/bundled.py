"""The data that ships inside the ``jw-eval`` package, found with :mod:`importlib.resources`.

``jw_eval/data/chunker_bench`` is the bundled corpus (``doctrinal_queries.yaml``
and ``corpus/<lang>/*.html``) that ``jw eval chunker-bench`` runs on by
default; ``jw_eval/data/llm_cache`` holds the ``llm`` variant's answers for it.
Both install with the wheel, so the default bench runs from an installed
package as it does from a checkout.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from jw_rag.errors import ConfigError

__all__ = ["BUNDLED", "bundled_location", "bundled_path"]

#: The bundled data directories, by name.
BUNDLED = ("chunker_bench", "llm_cache")


def bundled_location(name: str) -> Path:
    """Where the bundled data ``name`` (one of :data:`BUNDLED`) is installed,
    not checked: what a module may name when it is imported, so that a
    package installed without its data still imports (and ``--dataset``
    still works). Use :func:`bundled_path` to read it."""
    return Path(str(_resource(name)))


def _resource(name: str) -> Traversable:
    if name not in BUNDLED:
        raise ConfigError(f"no bundled data named {name!r}: choose one of {', '.join(BUNDLED)}")
    return files("jw_eval").joinpath("data", name)


def bundled_path(name: str) -> Path:
    """The directory of the bundled data ``name`` (one of :data:`BUNDLED`).

    The bench reads whole folders, so the package has to be installed as
    files (a wheel or a checkout); one imported from a zip archive gets a
    one-line :class:`~jw_rag.errors.ConfigError` saying so."""
    resource = _resource(name)
    if not isinstance(resource, Path):
        raise ConfigError(
            f"jw-eval's bundled {name} is inside an archive ({resource}): install jw-eval "
            "as files (pip install jw-eval) or pass --dataset"
        )
    if not resource.is_dir():
        raise ConfigError(
            f"jw-eval's bundled {name} is missing ({resource}): reinstall jw-eval "
            "(pip install --force-reinstall jw-eval) or pass --dataset"
        )
    return resource
