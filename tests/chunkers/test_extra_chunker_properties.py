"""Invariants of the structure, page and embedding chunkers over random documents:
spans rebuild the text, every character is covered once (overlap excepted),
sizes hold, and the metadata each chunker promises is there."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_rag.chunkers import EmbeddingChunker, PageChunker, StructureChunker, get_chunker
from jw_rag.chunkers.validate import check_chunks
from jw_rag.embed import FakeEmbedder
from jw_rag.model import Paragraph, content_bounds

WORDS = (
    "the soul of man God Jehovah says Bible John 3:16 people hope el alma Dios "
    "verdad a alma Deus Jeová diz truth kingdom resurrection earth"
).split()
HEADINGS = ["Intro", "Doctrine", "Hope", "Kingdom", "Notes"]
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def sentence(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=25))
    text = " ".join(words)
    return text[0].upper() + text[1:] + draw(st.sampled_from([".", "?", "!", ""]))


@st.composite
def text(draw: st.DrawFn) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from(["", "  ", "\n"]))
    body = " ".join(draw(st.lists(sentence(), min_size=1, max_size=12)))
    return draw(st.sampled_from(["", " ", "\n"])) + body + draw(st.sampled_from(["", " "]))


@st.composite
def structured(draw: st.DrawFn) -> list[Paragraph]:
    """Paragraphs under a random tree of headings, like an HTML or Markdown parse."""
    out: list[Paragraph] = []
    path: list[str] = []
    for _ in range(draw(st.integers(0, 25))):
        if draw(st.integers(0, 3)) == 0:
            level = draw(st.integers(1, min(len(path) + 1, 4)))
            title = draw(st.sampled_from(HEADINGS))
            path = [*path[: level - 1], title]
            out.append(Paragraph(title, heading_path=tuple(path), kind="heading"))
        else:
            out.append(Paragraph(draw(text()), heading_path=tuple(path)))
    return out


@st.composite
def paged(draw: st.DrawFn) -> list[Paragraph]:
    page = draw(st.integers(1, 3))
    out: list[Paragraph] = []
    for _ in range(draw(st.integers(0, 20))):
        page += draw(st.sampled_from([0, 0, 1, 2]))
        unpaged = draw(st.integers(0, 9)) == 0
        out.append(Paragraph(draw(text()), page=None if unpaged else page))
    return out


@SETTINGS
@given(structured(), st.sampled_from([(1500, 200), (300, 100), (120, 0), (60, 60)]))
def test_structure_chunker_invariants(paras: list[Paragraph], sizes: tuple[int, int]) -> None:
    max_chars, min_chars = sizes
    chunks = StructureChunker(max_chars=max_chars, min_chars=min_chars).chunk(
        paras, "s", metadata={"language": "en"}
    )
    check_chunks(paras, chunks, max_len=max_chars)
    for c in chunks:
        path = c.metadata["heading_path"]
        assert c.metadata["embed_prefix"] == " > ".join(path)
        s = c.span
        for k in range(s.start_para, s.end_para + 1):
            if paras[k].text.strip():  # the chunk's path is shared by all its paragraphs
                assert tuple(paras[k].heading_path[: len(path)]) == tuple(path)


@SETTINGS
@given(paged(), st.sampled_from([(1500, 80), (200, 50), (80, 0)]), st.booleans())
def test_page_chunker_invariants(
    paras: list[Paragraph], sizes: tuple[int, int], overlap: bool
) -> None:
    max_chars, min_chars = sizes
    chunker = PageChunker(max_chars=max_chars, min_chars=min_chars, overlap=overlap)
    chunks = chunker.chunk(paras, "p", metadata={"language": "en"})
    check_chunks(paras, chunks, max_len=max_chars + chunker.overlap_chars + 2)
    if not any(p.page is not None for p in paras):
        assert all(c.metadata["fallback"] == "no_pages" for c in chunks)
        return
    for c in chunks:
        assert c.metadata["page"] in c.metadata["pages"]
        ov = c.metadata.get("overlap")
        own_start = (
            (ov["end_para"], ov["end_char"]) if ov else (c.span.start_para, c.span.start_char)
        )
        assert ov is None or overlap
        # a chunk's own text never mixes pages
        s = c.span
        own_pages = {
            paras[k].page
            for k in range(own_start[0], s.end_para + 1)
            if paras[k].page is not None
            and content_bounds(paras[k].text)[1] > (own_start[1] if k == own_start[0] else 0)
        }
        assert own_pages <= {c.metadata["page"]}


@SETTINGS
@given(
    st.lists(text(), max_size=15),
    st.sampled_from([(1500, 200), (300, 100), (100, 0), (50, 50)]),
    st.integers(1, 4),
    st.sampled_from([8.0, 30.0, 100.0]),
)
def test_embedding_chunker_invariants_and_max_size(
    texts: list[str], sizes: tuple[int, int], window: int, top: float
) -> None:
    max_chars, min_chars = sizes
    chunker = EmbeddingChunker(
        embedder=FakeEmbedder(dim=16),
        max_chars=max_chars,
        min_chars=min_chars,
        window=window,
        top_percent=top,
    )
    chunks = chunker.chunk(texts, "e", metadata={"language": "en"})
    check_chunks(texts, chunks, max_len=max_chars)
    assert chunker.embed_calls <= 1


def test_registry_builds_the_three() -> None:
    assert isinstance(get_chunker("structure"), StructureChunker)
    assert isinstance(get_chunker("page", overlap=False), PageChunker)
    assert isinstance(get_chunker("embedding", embedder=FakeEmbedder()), EmbeddingChunker)
