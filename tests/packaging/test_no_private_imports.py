"""No module under packages/*/src imports a private name from another package.

A name that starts with one underscore (``_rows``, ``_SentenceCursor``) belongs
to the package that defines it: that package and the packages inside it may
use it, nobody else. Private is read from every part of the import: a private
module (``jw_rag.store._rows``) belongs to the package holding it
(``jw_rag.store``), a private name to the package of the module defining it.
The scan reads the source with :mod:`ast`, so imports inside functions and
``TYPE_CHECKING`` blocks count too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted(REPO.glob("packages/*/src/*/**/*.py"))

#: Imports waiting for their owner to publish the name, as (file, target).
#: Remove an entry when the import goes; nothing may be added here.
PENDING: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class PrivateImport:
    where: str  # file:line
    importer: str  # the importing module's package
    target: str  # the private thing, dotted
    owner: str  # the package it belongs to


def _is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _module_name(path: Path) -> tuple[str, str]:
    """(module, package) of a file under packages/<dist>/src/."""
    rel = path.relative_to(path.parents[len(path.parts) - path.parts.index("src") - 2])
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _owner(dotted: list[str], modules: set[str]) -> str | None:
    """The package owning the first private part of ``dotted``, or None."""
    for i, part in enumerate(dotted):
        if _is_private(part):
            parent = ".".join(dotted[:i])
            # a private name in a module belongs to that module's package
            if parent in modules and parent not in PACKAGES:
                return parent.rpartition(".")[0]
            return parent
    return None


def _inside(importer: str, owner: str) -> bool:
    return importer == owner or importer.startswith(owner + ".")


def private_imports(path: Path, source: str, modules: set[str]) -> list[PrivateImport]:
    """Every import in ``source`` (the file at ``path``) of another package's private name."""
    _, package = _module_name(path)
    found: list[PrivateImport] = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            targets = [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
        for target in targets:
            if target.split(".")[0] not in TOPS:
                continue  # another project's privates are its own business
            owner = _owner(target.split("."), modules)
            if owner is not None and not _inside(package, owner):
                where = f"{path.relative_to(REPO)}:{node.lineno}"
                found.append(PrivateImport(where, package, target, owner))
    return found


def _modules() -> set[str]:
    return {_module_name(p)[0] for p in SOURCES}


PACKAGES = {_module_name(p)[1] for p in SOURCES if p.name == "__init__.py"}
TOPS = {name.split(".")[0] for name in PACKAGES}


def test_the_scan_sees_the_workspace() -> None:
    assert {"jw_core", "jw_rag", "jw_eval", "jw_gen", "jw_cli", "jw_mcp"} <= TOPS
    assert len(SOURCES) > 100


def test_no_module_imports_another_packages_private_name() -> None:
    modules = _modules()
    found = [
        hit for path in SOURCES for hit in private_imports(path, path.read_text("utf-8"), modules)
    ]
    lines = [
        f"{h.where}: {h.target} is private to {h.owner}"
        for h in found
        if (h.where.rpartition(":")[0], h.target) not in PENDING
    ]
    assert not lines, "private imports across packages (make the name public):\n" + "\n".join(lines)


@pytest.mark.parametrize(
    ("file", "source", "expected"),
    [
        # a private module of a subpackage, from the parent package
        ("jw_rag/retrieve.py", "from jw_rag.store._rows import embed_text", "jw_rag.store"),
        # a private name of another distribution, also inside a function
        (
            "jw_rag/chunkers/x.py",
            "def f():\n    from jw_core.sentences import _SentenceCursor",
            "jw_core",
        ),
        ("jw_cli/x.py", "import jw_rag.store._rows", "jw_rag.store"),
        # relative import climbing out of the package
        ("jw_rag/ingest/x.py", "from ..store._rows import embed_text", "jw_rag.store"),
        ("jw_rag/ingest/x.py", "from jw_rag.store import _helper", "jw_rag.store"),
    ],
)
def test_the_scan_finds_private_imports(file: str, source: str, expected: str) -> None:
    path = REPO / "packages" / "dist" / "src" / file
    modules = _modules()
    hits = private_imports(path, source, modules)
    assert [h.owner for h in hits] == [expected]


@pytest.mark.parametrize(
    ("file", "source"),
    [
        ("jw_rag/ingest/article.py", "from jw_rag.ingest._source import read_source"),
        ("jw_rag/ingest/deep/x.py", "from jw_rag.ingest._source import read_source"),
        ("jw_rag/ingest/x.py", "from ._source import read_source"),
        ("jw_rag/x.py", "from jw_rag import __version__"),
        ("jw_rag/x.py", "from numpy import _core"),
        ("jw_eval/datasets/questions_jsonl.py", "from jw_eval.datasets.chroma import _Mapper"),
    ],
)
def test_the_scan_allows_a_packages_own_privates(file: str, source: str) -> None:
    path = REPO / "packages" / "dist" / "src" / file
    assert private_imports(path, source, _modules()) == []
