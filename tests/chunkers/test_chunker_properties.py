"""Invariants every chunker keeps, over random paragraph lists in en/es/pt.

For any input: chunks come in document order; each chunk's span rebuilds its
text from the source; together the chunks cover every non-whitespace
character of every paragraph exactly once; size bounds hold; ids are unique
and the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_rag.chunkers import ParagraphChunker, SemanticChunker
from jw_rag.chunkers.protocol import Chunker
from jw_rag.chunkers.validate import ProvenanceError, check_chunks
from jw_rag.model import Chunk, Paragraph

WORDS = {
    "en": "the soul of man is not immortal God Jehovah says Bible John 3:16 people believe truth hope".split(),
    "es": "el alma del hombre no es inmortal Dios Jehová dice Biblia Juan 3:16 personas creen verdad".split(),
    "pt": "a alma do homem não é imortal Deus Jeová diz Bíblia João 3:16 pessoas acreditam verdade".split(),
}
OPENERS = {
    "en": [
        "However,",
        "Therefore,",
        "So",
        "So,",
        "Moreover,",
        "17 However,",
        "“However,”",
        "Thus,",
    ],
    "es": [
        "Sin embargo,",
        "Por lo tanto,",
        "¿Pero",
        "«Sin embargo»",
        "17. Además,",
        "Así como",
        "Así,",
    ],
    "pt": ["No entanto,", "Portanto,", "Assim como", "Logo no", "Logo,", "Mas", "(18) Contudo,"],
}
ENDINGS = [".", "?", "!", "...", ".”", ".»", ""]
SPACES = [" ", " ", " ", "\u00a0", "  ", "\n"]


@st.composite
def sentence(draw: st.DrawFn, lang: str) -> str:
    words = draw(st.lists(st.sampled_from(WORDS[lang]), min_size=1, max_size=30))
    parts = []
    for w in words:
        parts.append(w)
        parts.append(draw(st.sampled_from(SPACES)))
    text = "".join(parts).strip()
    return text[0].upper() + text[1:] + draw(st.sampled_from(ENDINGS))


@st.composite
def paragraph(draw: st.DrawFn, lang: str) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from(["", "   ", "\n", "\u00a0"]))  # blank paragraphs are skipped
    sentences = draw(st.lists(sentence(lang), min_size=1, max_size=25 if kind == 9 else 6))
    text = " ".join(sentences)
    if draw(st.booleans()):
        text = draw(st.sampled_from(OPENERS[lang])) + " " + text
    pad = draw(st.sampled_from(["", " ", "\n", "  "]))
    return pad + text + draw(st.sampled_from(["", " ", "\n"]))


@st.composite
def document(draw: st.DrawFn) -> tuple[str, list[str | Paragraph]]:
    lang = draw(st.sampled_from(sorted(WORDS)))
    texts = draw(st.lists(paragraph(lang), min_size=0, max_size=25))
    if draw(st.booleans()):
        return lang, [Paragraph(t, id=f"p{i + 1}", page=i // 4 + 1) for i, t in enumerate(texts)]
    return lang, list(texts)


CHUNKERS: dict[str, tuple[Callable[[], Chunker], int]] = {
    "paragraph-1500": (lambda: ParagraphChunker(), 1500),
    "paragraph-200": (lambda: ParagraphChunker(max_chars=200, min_chars=50), 200),
    "semantic-1500": (lambda: SemanticChunker(), int(1500 * 1.3)),
    "semantic-packed-600": (lambda: SemanticChunker(target_chars=600), int(1500 * 1.3)),
    "semantic-packed-250": (
        lambda: SemanticChunker(max_chars=300, min_chars=80, target_chars=250, overflow=0.2),
        int(300 * 1.2),
    ),
    "semantic-300": (
        lambda: SemanticChunker(max_chars=300, min_chars=80, overflow=0.2),
        int(300 * 1.2),
    ),
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=document(), which=st.sampled_from(sorted(CHUNKERS)))
def test_chunker_invariants(doc: tuple[str, list[str | Paragraph]], which: str) -> None:
    lang, paragraphs = doc
    make, max_len = CHUNKERS[which]
    chunks = make().chunk(paragraphs, "doc-1", metadata={"language": lang})
    check_chunks(paragraphs, chunks, max_len=max_len)
    again = make().chunk(paragraphs, "doc-1", metadata={"language": lang})
    assert [c.id for c in again] == [c.id for c in chunks]
    assert all(c.metadata["language"] == lang for c in chunks)
    for c in chunks:
        ids = c.metadata["para_ids"]
        if paragraphs and isinstance(paragraphs[0], Paragraph):
            assert all(isinstance(i, str) and i.startswith("p") for i in ids)
            assert c.metadata["pages"]


@settings(max_examples=60, deadline=None)
@given(doc=document())
def test_semantic_equals_paragraph_when_no_marker_fires(
    doc: tuple[str, list[str | Paragraph]],
) -> None:
    lang, paragraphs = doc
    plain = [p.text if isinstance(p, Paragraph) else p for p in paragraphs]
    # strip every opener so no marker can fire
    for opener in OPENERS[lang]:
        plain = [t.replace(opener, "Word") for t in plain]
    para = ParagraphChunker().chunk(plain, "d", metadata={"language": lang})
    sem = SemanticChunker().chunk(plain, "d", metadata={"language": lang})
    assert [c.metadata["span"] for c in sem] == [c.metadata["span"] for c in para]


def test_check_chunks_catches_broken_provenance() -> None:
    import pytest

    paras = [
        "First paragraph, long enough to stand alone here.",
        "Second paragraph, also long enough.",
    ]
    chunks = ParagraphChunker(min_chars=10).chunk(paras, "d", metadata={"language": "en"})
    check_chunks(paras, chunks)
    broken = [Chunk(c.id, c.text, c.source_id, dict(c.metadata)) for c in chunks]
    broken[1].text = "Second paragraph, edited."
    with pytest.raises(ProvenanceError, match="does not rebuild"):
        check_chunks(paras, broken)
    with pytest.raises(ProvenanceError, match="lost its character"):
        check_chunks(paras, chunks[:1][:])
