"""A JWPUB whose database holds more Document rows than a publication does
is refused in one line before any is read: each document read is held until
the whole publication is stored (a 6 MB file of 100,000 tiny documents took
640 MB and three minutes to ingest)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_core.jwpub import MAX_DOCUMENTS, JwFormatError, read_jwpub
from tests.jwpub.jw_formats_builder import Doc, jwpub_database, write_jwpub
from tests.robust.hostile_files import snapshot

PAGE = "<html><body><article><p data-pid='1'>A paragraph of text.</p></article></body></html>"


def _publication(path: Path, rows: int) -> Path:
    """A JWPUB of one document with text and ``rows - 1`` without (image pages)."""
    conn = sqlite3.connect(":memory:")
    db = jwpub_database([Doc(1, 1, "T", PAGE)], symbol="tp", year=2024, meps_language_index=0)
    conn.deserialize(db)
    conn.executemany(
        "INSERT INTO Document (DocumentId, PublicationId, MepsDocumentId, Content) "
        "VALUES (?, 1, ?, NULL)",
        ((i, i) for i in range(2, rows + 1)),
    )
    conn.commit()
    data = bytes(conn.serialize())
    conn.close()
    return write_jwpub(path, [], database=data)


def test_a_publication_of_more_documents_than_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _publication(tmp_path / "crowded.jwpub", MAX_DOCUMENTS + 1)
    with pytest.raises(JwFormatError) as info:
        read_jwpub(path)
    assert str(info.value) == (
        f"{path}: the publication holds 50,001 documents, more than the 50,000 one "
        "may hold; this is not a genuine publication"
    )
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    store = tmp_path / "store.sqlite"
    (tmp_path / "kept.txt").write_text("Gardens need water.", "utf-8")
    assert main(["--store", str(store), "rag", "ingest", "text", str(tmp_path / "kept.txt")]) == 0
    before = snapshot(store)
    capsys.readouterr()
    assert main(["--store", str(store), "rag", "ingest", "jwpub", str(path)]) == 1
    assert capsys.readouterr().err == f"error: {info.value}\n"
    assert snapshot(store) == before


def test_a_publication_at_the_cap_is_read(tmp_path: Path) -> None:
    pub = read_jwpub(_publication(tmp_path / "full.jwpub", MAX_DOCUMENTS))
    assert [d.document_id for d in pub.documents] == [1]
