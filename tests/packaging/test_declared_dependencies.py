"""Every package declares what its modules import: another workspace package
or a third-party one is in its ``dependencies`` or one of its extras, never
borrowed from what some other dependency happens to install."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROJECTS = sorted(REPO.glob("packages/*/pyproject.toml"))


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    return _norm(re.split(r"[\[<>=!~;@ ]", requirement.strip(), maxsplit=1)[0])


def declared(project: dict) -> set[str]:
    """The distributions a ``[project]`` table names, required or in an extra."""
    names = {_requirement_name(r) for r in project.get("dependencies", [])}
    for extra in project.get("optional-dependencies", {}).values():
        names |= {_requirement_name(r) for r in extra}
    return names


def imported(source: str) -> set[str]:
    """The top-level modules ``source`` imports (absolute imports only)."""
    tops: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            tops |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            tops.add(node.module.split(".")[0])
    return tops


def undeclared(root: Path, project: dict, owners: dict[str, list[str]]) -> dict[str, list[str]]:
    """Module -> files (relative to ``root``) that import it without the package declaring it."""
    own = {p.name for p in (root / "src").iterdir()}
    names = declared(project)
    found: dict[str, list[str]] = {}
    for path in sorted((root / "src").rglob("*.py")):
        for top in imported(path.read_text("utf-8")):
            if top in sys.stdlib_module_names or top in own or top == "__future__":
                continue
            dists = {_norm(d) for d in owners.get(top, [top])}
            if not dists & names:
                found.setdefault(top, []).append(str(path.relative_to(root)))
    return found


@pytest.mark.parametrize("pyproject", PROJECTS, ids=lambda p: p.parent.name)
def test_every_import_is_declared(pyproject: Path) -> None:
    project = tomllib.loads(pyproject.read_text("utf-8"))["project"]
    missing = undeclared(pyproject.parent, project, packages_distributions())
    assert not missing, f"{project['name']} imports packages it does not declare: {missing}"


def test_the_scan_finds_a_borrowed_import(tmp_path: Path) -> None:
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("from __future__ import annotations\nimport os\n")
    (src / "a.py").write_text(
        "import click\nfrom yaml import safe_load\nfrom . import b\nfrom pkg import c\n"
        "def f():\n    import jw_gen.errors\n"
    )
    project = {"dependencies": ["PyYAML>=6", "typer[all]>=0.12"], "optional-dependencies": {}}
    owners = {"click": ["click"], "yaml": ["PyYAML"], "jw_gen": ["jw-gen"]}
    assert undeclared(tmp_path, project, owners) == {
        "click": ["src/pkg/a.py"],
        "jw_gen": ["src/pkg/a.py"],
    }
    project["optional-dependencies"] = {"llm": ["jw-gen"], "cli": ["click ; python_version>'3'"]}
    assert undeclared(tmp_path, project, owners) == {}
