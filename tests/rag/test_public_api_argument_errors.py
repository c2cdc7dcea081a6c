"""The mistakes a developer makes with the documented library API (README,
docstrings) are one-line ``ConfigError`` messages naming the argument, and
nothing is stored: a path for the store, one Document for the list, plain
strings for paragraphs, a number for a name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jw_rag import ConfigError, Document, Paragraph, get_chunker
from jw_rag.chunkers.semantic_chunker import SemanticChunker
from jw_rag.embed import FakeEmbedder
from jw_rag.ingest import (
    ingest,
    ingest_article,
    ingest_documents,
    ingest_folder,
    ingest_jw_library_backup,
    load_documents,
    parse_jwpub,
    parse_pdf,
)
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore, open_store

DOC = Document(source_id="notes", paragraphs=[Paragraph("Gardens need water.")])


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteStore]:
    with SQLiteStore(tmp_path / "s.sqlite", embedder=FakeEmbedder()) as s:
        ingest_documents(s, [DOC])
        yield s


def _one_line(exc: pytest.ExceptionInfo[ConfigError]) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


@pytest.mark.parametrize(
    ("docs", "message"),
    [
        (DOC, "docs must be a list of Document objects, got one Document: pass [doc]"),
        ("notes.txt", "docs must be a list of Document objects, got str"),
        (None, "docs must be a list of Document objects, got NoneType"),
        ({"notes": DOC}, "docs must be a list of Document objects, got dict"),
        (
            [DOC, "more text"],
            "docs[1] is a str, not a Document: pass Document(source_id, [Paragraph(text), ...]) "
            "(jw_rag.Document)",
        ),
        (
            [Document(source_id="n", paragraphs=["Gardens need water.", "Soil keeps it."])],
            "docs[0].paragraphs[0] is a str, not a Paragraph: wrap each text as Paragraph(text) "
            "(jw_rag.Paragraph)",
        ),
        (
            [Document(source_id="n", paragraphs="Gardens need water.")],  # type: ignore[arg-type]
            "docs[0].paragraphs must be a list of Paragraph objects, got str",
        ),
        (
            [Document(source_id=5, paragraphs=[Paragraph("t")])],  # type: ignore[arg-type]
            "docs[0].source_id must be a str, got int",
        ),
    ],
)
def test_ingest_documents_names_what_docs_must_be(
    store: SQLiteStore, docs: object, message: str
) -> None:
    before = store.stats()
    with pytest.raises(ConfigError) as info:
        ingest_documents(store, docs)  # type: ignore[arg-type]
    assert _one_line(info) == message
    assert store.stats() == before


@pytest.mark.parametrize("given", [None, "store.sqlite", Path("store.sqlite"), 5])
def test_ingest_documents_names_what_the_store_must_be(given: object) -> None:
    with pytest.raises(ConfigError) as info:
        ingest_documents(given, [DOC])  # type: ignore[arg-type]
    assert _one_line(info) == (
        f"store must be an open store, got {type(given).__name__}: open one with "
        "jw_rag.store.open_store(path or postgresql:// DSN)"
    )
    assert not Path("store.sqlite").exists()


def test_a_tuple_or_generator_of_documents_is_still_taken(store: SQLiteStore) -> None:
    other = Document(source_id="other", paragraphs=[Paragraph("Soil keeps water.")])
    assert [r.source_id for r in ingest_documents(store, (d for d in [other]))] == ["other"]
    assert [r.skipped for r in ingest_documents(store, (DOC,))] == [True]


@pytest.mark.parametrize("given", [None, "store.sqlite", Path("store.sqlite")])
def test_retrieve_names_what_the_store_must_be(given: object) -> None:
    with pytest.raises(ConfigError) as info:
        retrieve(given, "water")  # type: ignore[arg-type]
    assert _one_line(info) == (
        f"store must be an open store, got {type(given).__name__}: open one with "
        "jw_rag.store.open_store(path or postgresql:// DSN)"
    )


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            {"expand": 5},
            "expand must be one of segment, relevant, chain, neighbors, parent, none (or None), "
            "got int",
        ),
        ({"expand": ["parent"]}, "expand must be one of"),
        ({"max_parents": "1"}, "max_parents must be a whole number >= 1, got '1'"),
        ({"max_parents": 1.5}, "max_parents must be a whole number >= 1, got 1.5"),
        ({"max_parents": True}, "max_parents must be a whole number >= 1, got True"),
        ({"max_parents": 0}, "max_parents must be a whole number >= 1, got 0"),
    ],
)
def test_retrieve_names_a_bad_expansion_option(
    store: SQLiteStore, option: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        retrieve(store, "water", **option)  # type: ignore[arg-type]
    assert _one_line(info).startswith(message)
    assert [h.chunk.source_id for h in retrieve(store, "water", max_parents=2)] == ["notes"]


@pytest.mark.parametrize(
    ("given", "tail"),
    [
        (5, "got int"),
        (b"semantic", "got bytes"),
        (["semantic"], "got list"),
        (SemanticChunker(), "got SemanticChunker: it is a chunker already, use it as it is"),
    ],
)
def test_get_chunker_names_what_the_name_must_be(given: object, tail: str) -> None:
    with pytest.raises(ConfigError) as info:
        get_chunker(given)  # type: ignore[arg-type]
    assert _one_line(info) == (
        "the chunker name must be a str such as 'semantic' or 'semantic:target_chars=800', " + tail
    )
    assert get_chunker("semantic:target_chars=800").name == "semantic"


PATH_TAKERS = {
    "ingest": lambda store, source: ingest(store, "text", source),
    "ingest backup": lambda store, source: ingest(store, "backup", source),
    "ingest_article": lambda store, source: ingest_article(store, source),
    "ingest_folder": lambda store, source: ingest_folder(store, source),
    "ingest_jw_library_backup": lambda store, source: ingest_jw_library_backup(store, source),
    "load_documents": lambda store, source: load_documents(source),
    "parse_jwpub": lambda store, source: parse_jwpub(source),
    "parse_pdf": lambda store, source: parse_pdf(source),
}


@pytest.mark.parametrize("taker", sorted(PATH_TAKERS))
@pytest.mark.parametrize(
    ("given", "tail"),
    [
        (None, "got NoneType"),
        (5, "got int"),
        (b"notes.txt", "got bytes: decode it with os.fsdecode()"),
    ],
)
def test_every_reader_names_a_source_that_is_no_path(
    store: SQLiteStore, taker: str, given: object, tail: str
) -> None:
    before = store.stats()
    with pytest.raises(ConfigError) as info:
        PATH_TAKERS[taker](store, given)
    assert _one_line(info) == (
        "the source must be a path or an http(s) URL (a str or pathlib.Path), " + tail
    )
    assert store.stats() == before


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"language": 5}, "language must be a str (en, es, pt, auto) or None, got int"),
        ({"language": ["en"]}, "language must be a str (en, es, pt, auto) or None, got list"),
        ({"source_id": 5}, "source_id must be a str, got int"),
        ({"source_id": b"notes"}, "source_id must be a str, got bytes"),
    ],
)
def test_ingest_names_a_language_or_source_id_of_the_wrong_type(
    store: SQLiteStore, tmp_path: Path, option: dict[str, object], message: str
) -> None:
    text = tmp_path / "garden.txt"
    text.write_text("Gardens need water.\n\nSoil keeps it.", "utf-8")
    before = store.stats()
    with pytest.raises(ConfigError) as info:
        ingest(store, "text", text, **option)  # type: ignore[arg-type]
    assert _one_line(info) == message
    if "language" in option:
        with pytest.raises(ConfigError) as info:
            parse_jwpub(text, **option)  # type: ignore[arg-type]
    else:
        with pytest.raises(ConfigError) as info:
            load_documents(text, **option)  # type: ignore[arg-type]
    assert _one_line(info) == message
    assert store.stats() == before


@pytest.mark.parametrize("given", [5, 3.5, b"store.sqlite", ["store.sqlite"]])
def test_open_store_names_a_location_that_is_no_path(
    given: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as info:
        open_store(given)  # type: ignore[arg-type]
    assert _one_line(info) == (
        "the store location must be a SQLite file path or a postgresql:// DSN (a str or "
        f"pathlib.Path), got {type(given).__name__}"
    )
    assert list(tmp_path.iterdir()) == []  # no store file named '5' made
