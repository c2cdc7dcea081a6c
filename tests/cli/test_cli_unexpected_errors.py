"""Errors from deep inside a command still end in one line and a non-zero
exit, never a traceback: recursion, memory, numeric overflow, a damaged store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import jw_cli.rag_commands as rag_commands
from jw_cli.app import main
from jw_rag.embed import FakeEmbedder
from jw_rag.store import SQLiteStore


@pytest.mark.parametrize(
    ("error", "code", "words"),
    [
        (RecursionError("maximum recursion depth exceeded"), 1, "nests too deeply"),
        (MemoryError(), 1, "not enough memory"),
        (OverflowError("int too large to convert"), 2, "out of range"),
        (sqlite3.DatabaseError("database disk image is malformed"), 1, "cannot be read"),
    ],
)
def test_unexpected_errors_are_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    error: BaseException,
    code: int,
    words: str,
) -> None:
    store = tmp_path / "s.sqlite"
    SQLiteStore(store, FakeEmbedder(dim=8)).close()

    def boom(*_args: object, **_kwargs: object) -> None:
        raise error

    monkeypatch.setattr(rag_commands, "retrieve", boom)
    assert main(["rag", "search", "soul", "--store", str(store)]) == code
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_toolkit_warnings_print_as_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A JwRagWarning raised inside a command (an old pgvector, say) is one
    ``warning:`` line on stderr; the command still succeeds."""
    import warnings

    from jw_rag.errors import JwRagWarning
    from jw_rag.retrieve import Delivery

    store = tmp_path / "s.sqlite"
    SQLiteStore(store, FakeEmbedder(dim=8)).close()

    def warn_then_retrieve(*_args: object, **_kwargs: object) -> Delivery:
        warnings.warn(
            "pgvector 0.6.2 at db lacks iterative index scans:\n  upgrade",
            JwRagWarning,
            stacklevel=2,
        )
        return Delivery()

    monkeypatch.setattr(rag_commands, "retrieve", warn_then_retrieve)
    assert main(["rag", "search", "soul", "--store", str(store)]) == 0
    err = capsys.readouterr().err
    assert err == "warning: pgvector 0.6.2 at db lacks iterative index scans: upgrade\n"
