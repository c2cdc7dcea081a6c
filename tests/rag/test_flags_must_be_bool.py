"""A yes/no argument of the public API takes only True or False: ``replace="no"``
was taken as true (any non-empty string is) and replaced a source stored from
another file. Each such argument (ingest ``replace`` / ``skip_bad``, a store's
``read_only`` / ``create``, ``SourceWrite.keep_origin``, ``register_chunker``'s
``replace``, ``get_embedder``'s ``cache``, the windows' ``pooled``) now refuses
anything else in one line naming it, before any work: nothing is read,
created or stored."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jw_rag import ConfigError, Document, Paragraph
from jw_rag.chunkers import get_chunker, register_chunker
from jw_rag.chunkers.paragraph_chunker import ParagraphChunker
from jw_rag.embed import FakeEmbedder, get_embedder
from jw_rag.errors import check_flag
from jw_rag.ingest import (
    ingest,
    ingest_bible_chapter,
    ingest_folder,
    ingest_text,
    load_folder,
)
from jw_rag.ingest.generic import load_kind
from jw_rag.ingest.pipeline import chunk_document, ingest_document, ingest_documents, ingest_parsed
from jw_rag.store import SourceWrite, SQLiteStore, open_store
from jw_rag.windows import iter_window_units, window_units, with_window_units

NOT_BOOLS = ["no", "false", "", 0, 1, None, [], 0.0]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.txt").write_text("Gardens need water.\n\nSoil keeps it.", "utf-8")
    (root / "b.txt").write_text("Rivers run to the sea.", "utf-8")
    return root


@pytest.fixture
def store(tmp_path: Path, folder: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "s.sqlite", embedder=FakeEmbedder()) as s:
        ingest_folder(s, folder)
        yield s


def _rows(store: SQLiteStore) -> list[tuple[Any, ...]]:
    with sqlite3.connect(store.stats()["path"]) as conn:
        return conn.execute(
            "SELECT s.source_id, s.content_hash, s.metadata, c.id, c.text FROM sources s "
            "JOIN chunks c USING (source_id) ORDER BY c.id"
        ).fetchall()


DOC = Document(source_id="notes/a", paragraphs=[Paragraph("Other text for a.")])

INGESTS: dict[str, Callable[[SQLiteStore, Path, object], object]] = {
    "ingest_documents": lambda s, f, v: ingest_documents(s, [DOC], replace=v),
    "ingest_document": lambda s, f, v: ingest_document(s, DOC, replace=v),
    "ingest_parsed": lambda s, f, v: ingest_parsed(s, DOC, replace=v, language="es"),
    "ingest replace": lambda s, f, v: ingest(s, "text", f / "a.txt", replace=v),
    "ingest skip_bad": lambda s, f, v: ingest(s, "text", f, skip_bad=v),
    "ingest_text": lambda s, f, v: ingest_text(s, f / "a.txt", replace=v),
    "ingest_bible_chapter": lambda s, f, v: ingest_bible_chapter(
        s, f / "a.txt", book="Genesis", chapter=1, replace=v
    ),
    "ingest_folder replace": lambda s, f, v: ingest_folder(s, f, replace=v),
    "ingest_folder skip_bad": lambda s, f, v: ingest_folder(s, f, skip_bad=v),
    "load_folder": lambda s, f, v: load_folder(f, skip_bad=v),
    "load_kind": lambda s, f, v: load_kind("text", f, skip_bad=v),
    "replace_sources": lambda s, f, v: s.replace_sources(
        [SourceWrite("notes/a", chunk_document(DOC), keep_origin=v)]  # type: ignore[arg-type]
    ),
}
NAMES = {
    "ingest skip_bad": "skip_bad",
    "ingest_folder skip_bad": "skip_bad",
    "load_folder": "skip_bad",
    "load_kind": "skip_bad",
    "replace_sources": "SourceWrite('notes/a').keep_origin",
}


@pytest.mark.parametrize("value", NOT_BOOLS, ids=repr)
@pytest.mark.parametrize("call", sorted(INGESTS))
def test_an_ingest_flag_that_is_not_a_bool_is_refused_and_nothing_changes(
    store: SQLiteStore, folder: Path, call: str, value: object
) -> None:
    before = _rows(store)
    with pytest.raises(ConfigError) as info:
        INGESTS[call](store, folder, value)
    name = NAMES.get(call, "replace")
    assert str(info.value) == f"{name} must be True or False, got {value!r}"
    assert _rows(store) == before


def test_replace_no_does_not_replace_a_source_from_another_file(
    store: SQLiteStore, tmp_path: Path
) -> None:
    other = tmp_path / "other" / "notes"
    other.mkdir(parents=True)
    (other / "a.txt").write_text("Another file under the same id.", "utf-8")
    before = _rows(store)
    with pytest.raises(ConfigError, match="^replace must be True or False, got 'no'$"):
        ingest_folder(store, other, replace="no")  # type: ignore[arg-type]
    assert _rows(store) == before
    # replace=True is still what replaces it
    ingest_folder(store, other, replace=True)
    assert [r[4] for r in _rows(store) if r[0] == "notes/a"] == ["Another file under the same id."]


@pytest.mark.parametrize("value", NOT_BOOLS, ids=repr)
@pytest.mark.parametrize("flag", ["read_only", "create"])
@pytest.mark.parametrize("opener", ["open_store", "SQLiteStore"])
def test_a_store_flag_that_is_not_a_bool_is_refused_and_no_file_is_made(
    tmp_path: Path, opener: str, flag: str, value: object
) -> None:
    path = tmp_path / "deep" / "new.sqlite"
    with pytest.raises(ConfigError) as info:
        if opener == "open_store":
            open_store(path, embedder=FakeEmbedder(), **{flag: value})
        else:
            SQLiteStore(path, embedder=FakeEmbedder(), **{flag: value})
    assert str(info.value) == f"{flag} must be True or False, got {value!r}"
    assert not (tmp_path / "deep").exists()


@pytest.mark.parametrize("value", ["no", 0, None])
def test_register_chunker_and_get_embedder_refuse_a_flag_that_is_not_a_bool(
    value: object,
) -> None:
    with pytest.raises(ConfigError) as info:
        register_chunker("paragraph", ParagraphChunker, replace=value)  # type: ignore[arg-type]
    assert str(info.value) == f"replace must be True or False, got {value!r}"
    assert isinstance(get_chunker("paragraph"), ParagraphChunker)
    with pytest.raises(ConfigError) as info:
        get_embedder("fake", cache=value)  # type: ignore[arg-type]
    assert str(info.value) == f"cache must be True or False, got {value!r}"


@pytest.mark.parametrize("value", ["no", 1, None])
def test_the_windows_pooled_flag_must_be_a_bool(value: object) -> None:
    doc = Document(source_id="w", paragraphs=[Paragraph(f"Sentence {i}.") for i in range(6)])
    chunks = chunk_document(doc)
    for make in (window_units, iter_window_units, with_window_units):
        with pytest.raises(ConfigError) as info:
            make(chunks, doc.paragraphs, max_chars=100, pooled=value)  # type: ignore[arg-type]
        assert str(info.value) == f"pooled must be True or False, got {value!r}"


def test_check_flag_gives_back_a_bool_and_cuts_a_long_value() -> None:
    assert check_flag("replace", True) is True
    assert check_flag("replace", False) is False
    with pytest.raises(ConfigError) as info:
        check_flag("replace", "x" * 500)
    assert len(str(info.value)) < 120
    assert "\n" not in str(info.value)


def test_numpy_bools_are_bools(tmp_path: Path) -> None:
    """``np.True_`` / ``np.False_`` (a flag read from a table column) worked
    before the flags were checked, and they are True and False: taken as such."""
    import numpy as np

    assert check_flag("replace", np.True_) is True
    assert check_flag("replace", np.False_) is False
    with SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(8), read_only=np.False_) as store:
        ingest_documents(store, [DOC], replace=np.True_)
        assert store.stats()["sources"] == 1
    with pytest.raises(ConfigError, match="replace must be True or False"):
        check_flag("replace", np.int64(1))
