"""A file rewritten while it is read is refused in one line, not stored as
what was read of it (part old, part new, or cut short); the store keeps what
it held, and a folder's other files are still ingested with ``skip_bad``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from jw_rag import IngestError
from jw_rag.embed import FakeEmbedder
from jw_rag.ingest import _source, ingest_folder, ingest_text, load_documents
from jw_rag.store import SQLiteStore

TEXT = "Gardens need water every morning.\n\nThe soil keeps it for the roots.\n"


class _Rewritten:
    """A file whose first read happens while another process cuts it short."""

    def __init__(self, fh: BinaryIO, path: Path) -> None:
        self._fh, self._path, self._cut = fh, path, False

    def fileno(self) -> int:
        return self._fh.fileno()

    def read(self, n: int = -1) -> bytes:
        if not self._cut:
            self._cut = True
            with open(self._path, "r+b") as other:
                other.truncate(10)
            os.utime(self._path, ns=(1, 1))  # a coarse clock must see it too
        return self._fh.read(n)


@pytest.fixture
def rewritten(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Files named ``changing*`` are rewritten while read; the names read, in order."""
    opened = _source.open_local
    seen: list[str] = []

    @contextlib.contextmanager
    def open_local(path: str | Path) -> Iterator[object]:
        with opened(path) as fh:
            seen.append(Path(path).name)
            yield _Rewritten(fh, Path(path)) if Path(path).name.startswith("changing") else fh

    monkeypatch.setattr(_source, "open_local", open_local)
    return seen


def test_a_text_rewritten_while_read_is_refused(tmp_path: Path, rewritten: list[str]) -> None:
    path = tmp_path / "changing.txt"
    path.write_text(TEXT, "utf-8")
    with pytest.raises(IngestError) as info:
        load_documents(path)
    assert (
        str(info.value) == f"{path} changed while it was being read; try again once it is settled"
    )


def test_the_store_and_a_folders_other_files_are_kept(tmp_path: Path, rewritten: list[str]) -> None:
    (tmp_path / "kept.txt").write_text(TEXT, "utf-8")
    (tmp_path / "changing-alone.txt").write_text(TEXT, "utf-8")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "changing.txt").write_text(TEXT, "utf-8")
    (notes / "steady.txt").write_text(TEXT, "utf-8")
    with SQLiteStore(tmp_path / "s.sqlite", embedder=FakeEmbedder()) as store:
        ingest_text(store, tmp_path / "kept.txt")
        with pytest.raises(IngestError, match="changed while it was being read"):
            ingest_text(store, tmp_path / "changing-alone.txt")
        done = ingest_folder(store, notes, kind="text", skip_bad=True)
        assert [r.source_id for r in done.results] == ["notes/steady"]
        assert [(s.path, s.reason) for s in done.skipped] == [
            (
                str(notes / "changing.txt"),
                "changed while it was being read; try again once it is settled",
            )
        ]
        assert store.get_source("kept") is not None and store.get_source("notes/changing") is None
        assert store.stats()["sources"] == 2
