"""psycopg is jw-rag's `postgres` extra: without it, a PostgreSQL DSN (to
open_store, the CLI or an import of the PostgreSQL store) stops in one line
naming the extra, not in 'unexpected ModuleNotFoundError: ... a bug'."""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.errors import MissingDependencyError
from jw_rag.store import open_store

FIX = "pip install 'jw-rag[postgres]'"
DSN = "postgresql://nobody@localhost:1/none"


class _NoDriver(importlib.abc.MetaPathFinder):
    """An import hook that finds no ``psycopg``, as on a machine without the extra."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "psycopg" or name.startswith("psycopg."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


@pytest.fixture
def without_psycopg(monkeypatch: pytest.MonkeyPatch) -> None:
    """psycopg as if it were not installed, and the PostgreSQL store not yet imported."""
    for name in list(sys.modules):
        if name.partition(".")[0] == "psycopg" or name.startswith("jw_rag.store._pg_"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.delitem(sys.modules, "jw_rag.store.postgres", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoDriver(), *sys.meta_path])


@pytest.mark.usefixtures("without_psycopg")
def test_importing_the_postgres_store_names_the_extra() -> None:
    with pytest.raises(MissingDependencyError) as info:
        importlib.import_module("jw_rag.store.postgres")
    assert str(info.value).startswith("the PostgreSQL store needs the 'psycopg' package")
    assert FIX in str(info.value) and info.value.extra == "postgres"


@pytest.mark.usefixtures("without_psycopg")
def test_open_store_with_a_dsn_names_the_extra(tmp_path: Path) -> None:
    with pytest.raises(MissingDependencyError, match=r"jw-rag\[postgres\]"):
        open_store(DSN)
    assert open_store(tmp_path / "s.sqlite").stats()["chunks"] == 0  # SQLite still works


@pytest.mark.usefixtures("without_psycopg")
def test_the_cli_says_it_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--store", DSN, "rag", "stats"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and FIX in lines[0] and "unexpected" not in lines[0], err
