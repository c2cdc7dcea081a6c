"""``list_sources`` shows the language the store records for each source: the
one its chunks record (given at ingest, else detected), or the list when they
are several; before, it read only the language given at ingest (``null`` for
every detected one)."""

from __future__ import annotations

import threading
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio

from jw_rag.embed.fake import FakeEmbedder
from jw_rag.model import Chunk
from jw_rag.source_list import list_sources
from jw_rag.store import SQLiteStore
from tests.mcp.mcp_client import connect


def _chunk(source: str, i: int, language: str | None, text: str) -> Chunk:
    span = {"start_para": i, "start_char": 0, "end_para": i, "end_char": len(text)}
    meta = {"language": language, "chunker": "paragraph", "chunker_version": "1", "span": span}
    return Chunk(f"{source}:{i}", text, source, meta)


def _fill(store: Path) -> None:
    with closing(SQLiteStore(store, embedder=FakeEmbedder(dim=64))) as st:
        st.replace_source("mixed", [_chunk("mixed", 0, "es", "Hola."),
                                    _chunk("mixed", 1, "en", "Hello."),
                                    _chunk("mixed", 2, "es", "Adiós.")])  # fmt: skip
        st.replace_source("none", [_chunk("none", 0, None, "1 2 3")])
        st.replace_source("\x7fodd\u202e", [_chunk("\x7fodd\u202e", 0, "pt", "Olá.")])


def test_detected_languages_are_shown_one_or_the_list(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "alma.txt").write_text(
        "El alma es la persona misma y muere cuando la persona muere.\n", encoding="utf-8"
    )
    _fill(tmp_path / "store.sqlite")  # the server's store (JW_STORE)
    rows: dict[str, Any] = {}

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(docs)) as c:
            error, _ = await c.call("ingest", kind="text", source=str(docs / "alma.txt"))
            assert not error
            error, page = await c.call("list_sources")
            assert not error
            rows.update({s["source_id"]: s["language"] for s in page["sources"]})

    anyio.run(scenario)
    assert rows == {"alma": "es", "mixed": ["en", "es"], "none": None, "\x7fodd\u202e": "pt"}


def test_the_library_entry_holds_the_list_and_the_one_language(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    _fill(store)
    with closing(SQLiteStore(store, embedder=FakeEmbedder(dim=64))) as st:
        got = {e.source_id: (e.language, e.languages) for e in list_sources(st).sources}
        assert got == {
            "mixed": (None, ("en", "es")),
            "none": (None, ()),
            "\x7fodd\u202e": ("pt", ("pt",)),
        }
        assert st.source_languages("gone") == []
        assert list_sources(st, offset=5).sources == []


def test_listing_while_a_source_is_rewritten_sees_one_whole_version(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    _fill(store)
    seen: list[tuple[str, ...]] = []
    errors: list[BaseException] = []

    def write() -> None:
        with closing(SQLiteStore(store, embedder=FakeEmbedder(dim=64))) as st:
            for n in range(20):
                lang = "en" if n % 2 else "de"
                st.replace_source(
                    "mixed", [_chunk("mixed", i, lang, f"T{n} {i}") for i in range(3)]
                )

    def read() -> None:
        try:
            with closing(SQLiteStore(store, embedder=FakeEmbedder(dim=64))) as st:
                for _ in range(20):
                    entry = next(e for e in list_sources(st).sources if e.source_id == "mixed")
                    seen.append(entry.languages)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write), threading.Thread(target=read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert set(seen) <= {("en", "es"), ("en",), ("de",)}
