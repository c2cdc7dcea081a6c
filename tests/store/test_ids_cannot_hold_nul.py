"""A NUL character in a source or chunk id is refused where ids enter a store
(writes, reads by id, search filters), with one line saying ids cannot
contain NUL, alike on SQLite and PostgreSQL: PostgreSQL text cannot hold one,
and its refusal used to read as a server failure ("check the server")."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jw_rag.errors import ConfigError, IngestError, StoreError
from jw_rag.ingest import ingest_text
from jw_rag.model import Chunk
from jw_rag.retrieve import retrieve, unknown_sources
from jw_rag.store import Store
from tests.store.store_helpers import make_chunks

NUL_IDS = ["a\x00b", "\x00", "book\x00", "x" * 100_000 + "\x00"]

CALLS: dict[str, Callable[[Store, str], Any]] = {
    "get_source": lambda s, i: s.get_source(i),
    "delete_source": lambda s, i: s.delete_source(i),
    "get": lambda s, i: s.get(["book:0", i]),
    "get_parents": lambda s, i: s.get_parents([i]),
    "vectors": lambda s, i: s.vectors([i]),
    "search source_id": lambda s, i: s.search("lamps", mode="bm25", filters={"source_id": i}),
    "search source_ids": lambda s, i: s.search(
        "lamps", mode="hybrid", filters={"source_id": ["book", i]}
    ),
    "search chunker": lambda s, i: s.search("lamps", filters={"chunker": [i]}),
    "search language": lambda s, i: s.search("lamps", mode="bm25", filters={"language": i}),
    "retrieve": lambda s, i: retrieve(s, "lamps", 3, filters={"source_id": i}),
    "unknown_sources": lambda s, i: unknown_sources(s, {"source_id": [i]}),
    "replace_source": lambda s, i: s.replace_source(i, []),
    "add chunk id": lambda s, i: s.add([Chunk(i, "text", "book")]),
    "add source id": lambda s, i: s.add([Chunk("book:99", "text", i)]),
    "add_parents": lambda s, i: s.add_parents([Chunk(i, "text", "book")]),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_a_nul_in_an_id_is_one_line_saying_ids_cannot_hold_it(store: Store, call: str) -> None:
    store.add(make_chunks("book", 3))
    for bad in NUL_IDS:
        with pytest.raises(StoreError) as caught:
            CALLS[call](store, bad)
        message = str(caught.value)
        assert "ids cannot contain NUL" in message, message
        assert "\n" not in message and len(message) < 400 and "server" not in message
    assert store.stats()["chunks"] == 3 and store.get_source("book") is not None


ODD_IDS = ["caf\u00e9", "cafe\u0301", "it's \"q\"", "caf%", "a\nb\x1b[31m\x07", "\u202eevil",
           "x" * 10_000, "🙂", " ", "NUL"]  # fmt: skip


def test_every_other_id_is_still_stored_found_and_deleted(store: Store) -> None:
    for i, sid in enumerate(ODD_IDS):
        store.replace_source(sid, [Chunk(f"{sid}#{i}", f"lamps number {i}", sid)])
    for i, sid in enumerate(ODD_IDS):
        assert store.get_source(sid) is not None, sid
        assert [c.id for c in store.get([f"{sid}#{i}"])] == [f"{sid}#{i}"]
        hits = store.search("lamps", k=50, mode="bm25", filters={"source_id": sid})
        assert {h.chunk.source_id for h in hits} >= {sid}
    for sid in ODD_IDS:
        assert store.delete_source(sid) == 1, sid
    assert store.stats()["chunks"] == 0


@pytest.mark.parametrize("call", list(CALLS))
def test_an_id_that_is_not_text_is_one_line_asking_for_utf8(store: Store, call: str) -> None:
    """A lone surrogate (bytes that are not UTF-8, decoded with surrogateescape)
    cannot be encoded by either store: one line, not the codec's message."""
    store.add(make_chunks("book", 3))
    for bad in ["\udcff", "caf\udce9", "é" * 5000 + "\udcff"]:
        with pytest.raises(ConfigError) as caught:
            CALLS[call](store, bad)
        message = str(caught.value)
        assert "pass it as UTF-8 text" in message and "codec" not in message, message
        assert "\n" not in message and len(message) < 400
    assert store.stats()["chunks"] == 3


@pytest.mark.parametrize("mode", ["bm25", "dense", "hybrid"])
def test_a_query_that_is_not_text_is_one_line_asking_for_utf8(store: Store, mode: str) -> None:
    store.add(make_chunks("book", 3))
    with pytest.raises(ConfigError, match=r"^the query .* pass it as UTF-8 text$"):
        store.search("lamps \udcff", mode=mode)  # type: ignore[arg-type]
    assert len(store.search("lamps \x00 oil é", mode=mode, k=2)) == 2  # type: ignore[arg-type]


def test_a_file_whose_path_is_not_utf8_is_refused_alike_by_every_backend(
    store: Store, tmp_path: Path
) -> None:
    raw = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9.txt"))
    raw.write_text("Lamps and oil.\n\nMore lamps.\n", encoding="utf-8")
    for source_id in (None, "cafe"):
        with pytest.raises(IngestError, match=r"the path is not UTF-8, .*: rename the file"):
            ingest_text(store, raw, source_id=source_id)
    assert store.stats()["sources"] == 0
