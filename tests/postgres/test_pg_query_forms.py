"""A PostgreSQL full-text query finds precomposed text whatever Unicode form
it is typed in: accents as combining marks (NFD, pasted from a PDF or a macOS
file name), fullwidth letters and ligatures (compatibility forms). The query
was analysed as given, so ``Jesu\u0301s`` and ``Ｓｏｕｌ`` found nothing on
PostgreSQL while the SQLite store found the chunks; the form as given is still
asked for too, so text stored in such a form is still found by it."""

from __future__ import annotations

import unicodedata

from jw_rag.model import Chunk
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder

CHUNKS = [
    Chunk("es:jesus", "Jesús enseñó la canción del corazón.", "b", {"language": "es"}),
    Chunk("en:soul", "The soul is the living person, as the first fire showed.", "b",
          {"language": "en"}),
    Chunk("en:wide", "The ﬁre of Ｗｉｄｅ letters.", "b", {"language": "en"}),
    Chunk("es:agua", "El agua y la tierra.", "b", {"language": "es"}),
]  # fmt: skip


def test_a_query_in_another_unicode_form_finds_the_text(pg_database: PgDatabase) -> None:
    from jw_rag.store.postgres import PostgresStore

    with PostgresStore(pg_database(), embedder=CountingEmbedder()) as s:
        s.add(CHUNKS)

        def found(query: str) -> list[str]:
            return sorted(h.chunk.id for h in s.search(query, k=10, mode="bm25"))

        nfd = unicodedata.normalize("NFD", "¿Qué enseñó Jesús?")
        assert found(nfd) == found("¿Qué enseñó Jesús?") == ["es:jesus"]
        assert found(unicodedata.normalize("NFD", "canción")) == ["es:jesus"]
        assert found("Ｓｏｕｌ") == found("soul") == ["en:soul"]
        assert found("ﬁre") == ["en:soul", "en:wide"]  # the ligature as given, and 'fire'
        assert found("Ｗｉｄｅ") == ["en:wide"]
        hybrid = s.search(unicodedata.normalize("NFD", "corazón"), k=1, mode="hybrid")
        assert [h.chunk.id for h in hybrid] == ["es:jesus"]


def test_only_accents_fullwidth_letters_and_ligatures_add_a_form() -> None:
    """A query already composed is sent as it is, so the measured rankings stay:
    ordinal signs, ellipses, fractions and superscripts are no letters to add."""
    from jw_rag.store.postgres import _both_forms

    for query in ("What is the soul?", "¿Qué enseñó Jesús?", "nº 5 e 1ª…", "½ m²"):
        assert _both_forms(query) == query
    assert _both_forms(unicodedata.normalize("NFD", "Jesús")) == "Jesu\u0301s\nJesús"
    assert _both_forms("Ｓｏｕｌ ﬁre") == "Ｓｏｕｌ ﬁre\nSoul fire"
