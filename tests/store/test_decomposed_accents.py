"""Text whose accents come as combining marks (Unicode NFD: text extracted
from some PDFs, copied from macOS file names) is indexed and searched as the
same words as precomposed (NFC) text. The word pattern saw a combining mark
as a break, so ``Jesu\u0301s`` was indexed as ``jesu`` and ``s``: neither
``Jesús`` nor ``jesus`` found it, and an NFD query found no NFC text."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.ingest import ingest_documents
from jw_rag.model import Document, Paragraph
from jw_rag.store import open_store
from jw_rag.store._tokens import analyse, query_terms

TEXT = "Jesús enseñó la canción del corazón en Galilea."


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_decomposed_words_are_analysed_as_composed_ones() -> None:
    assert (
        analyse(nfd(TEXT), "es")
        == analyse(TEXT, "es")
        == ("jesus ensen la cancion del corazon en galile")
    )
    assert query_terms(nfd("¿Qué enseñó Jesús?"), "es") == query_terms("¿Qué enseñó Jesús?", "es")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("aeinouAEINOU áéíóúñãõçÁÉÍÓÚÑÃÕÇ"), max_size=30))
def test_any_latin_text_analyses_alike_in_either_form(text: str) -> None:
    for language in ("en", "es", "pt", None):
        assert analyse(nfd(text), language) == analyse(text, language)


def test_the_sqlite_store_finds_each_form_with_the_other(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    docs = [
        Document(source_id="nfd", paragraphs=[Paragraph(text=nfd(TEXT))], language="es"),
        Document(source_id="other", paragraphs=[Paragraph(text="Agua y tierra.")], language="es"),
    ]
    ingest_documents(store, docs)
    docs = [Document(source_id="nfc", paragraphs=[Paragraph(text=TEXT)], language="es")]
    ingest_documents(store, docs)
    for query in ("Jesús", "jesus", nfd("Jesús"), "canción", nfd("corazón")):
        found = {hit.chunk.source_id for hit in store.search(query, k=5, mode="bm25")}
        assert found == {"nfd", "nfc"}, query
