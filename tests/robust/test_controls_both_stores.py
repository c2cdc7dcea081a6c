"""The control-character rule makes SQLite and PostgreSQL accept the same
input: a NUL after the first 4 KiB (past the binary check) is removed when the
source is decoded, so both stores hold the same text."""

from __future__ import annotations

from pathlib import Path

from jw_rag.embed.fake import FakeEmbedder
from jw_rag.ingest import ingest_article, ingest_markdown, ingest_text
from jw_rag.store import open_store
from tests.postgres.pg_harness import PgDatabase

FILLER = "Plain words fill the first four kibibytes of this file. " * 80


def _sources(folder: Path) -> list[tuple[object, Path]]:
    (folder / "late.txt").write_bytes(FILLER.encode() + b"\n\nEnd\x00 of\x1f the text.\n")
    (folder / "late-notes.md").write_bytes(
        b"# Notes\n\n" + FILLER.encode() + b"\n\n## Late\x00 heading\n\nEnd\x00 of notes.\n"
    )
    (folder / "late-page.html").write_bytes(
        f"<html><body><article><p>{FILLER}</p><p>End\x00 of\x07 page.</p></article></body></html>".encode()
    )
    return [
        (ingest_text, folder / "late.txt"),
        (ingest_markdown, folder / "late-notes.md"),
        (ingest_article, folder / "late-page.html"),
    ]


def _texts(location: str, sources: list[tuple[object, Path]]) -> set[tuple[str, str]]:
    store = open_store(location, embedder=FakeEmbedder(dim=32))
    try:
        for ingest, path in sources:
            ingest(store, path)  # type: ignore[operator]
        ids = [h.chunk.id for h in store.search("End of", k=500, mode="bm25")]
        return {(c.source_id, c.text) for c in store.get(ids) if "End" in c.text}
    finally:
        store.close()


def test_nul_late_in_a_source_is_stored_the_same_by_sqlite_and_postgres(
    tmp_path: Path, pg_database: PgDatabase
) -> None:
    sources = _sources(tmp_path)
    in_sqlite = _texts(str(tmp_path / "s.sqlite"), sources)
    in_postgres = _texts(pg_database(), sources)
    assert in_sqlite == in_postgres
    texts = " ".join(text for _, text in in_sqlite)
    assert "End of the text." in texts and "End of notes." in texts and "End of page." in texts
    assert "\x00" not in texts and "\x1f" not in texts and "\x07" not in texts
