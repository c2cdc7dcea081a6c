"""The chunkers' fast paths agree with the slower, simpler paths they stand
in for, on random input built to hit the special cases (abbreviations,
initials, quotes, caseless text, blank and heading paragraphs, pages, ids,
markers behind prefixes): the windowed sentence cursor with a full scan,
``ends_sentence`` with its regex, the combined marker lookup with one matcher
at a time, plain strings with ``Paragraph`` objects, and the chunkers with
the public ``Piece`` helpers other chunkers use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_core import ends_sentence, split_sentences
from jw_core import sentences as sent_mod
from jw_rag.chunkers import ParagraphChunker, SemanticChunker, load_markers
from jw_rag.chunkers._pieces import build_chunks, split_long
from jw_rag.chunkers.paragraph_chunker import paragraph_pieces
from jw_rag.model import Chunk, Paragraph, as_paragraphs


def one_matcher_at_a_time(markers: Any, text: str) -> tuple[str, str] | None:
    """What ``markers.opener`` must answer: the first kind whose own matcher finds a marker."""
    for kind, find in (
        ("closure", markers.closure),
        ("continuation", markers.continuation),
        ("reference", markers.reference),
    ):
        marker = find(text)
        if marker:
            return kind, marker
    return None


def dump(chunks: list[Chunk]) -> str:
    """Everything a chunk carries, key order included."""
    return json.dumps([[c.id, c.text, c.source_id, c.metadata] for c in chunks])


# --- inputs ---------------------------------------------------------------------

TOKENS = [
    "the", "soul", "God", "Jehovah", "Mr.", "Dr.", "Sra.", "e.g.", "i.e.", "U.S.",
    "a.C.", "d.C.", "EE.", "UU.", "J.", "R.", "Mat.", "pág.", "vol.", "No.", "3.5",
    "12", "5:3", "13:4-7", "(", ")", "«", "»", "“", "”", "—", "-", "¿", "¡", "?", "!",
    "...", "…", ".", ",", ";", '"', "'", "x" * 30, "However,", "Therefore,", "Sin embargo,",
    "Por lo tanto,", "Portanto,", "This", "Esto", "Isso", "So", "Still,", "Yet", "another",
    "Así", "Logo", "a", "B", "ß", "é", "Ñ", "_",
]  # fmt: skip
SPACES = [" ", " ", " ", "  ", "\n", "\u00a0", "\t", ""]


@st.composite
def prose(draw: st.DrawFn, max_tokens: int = 60) -> str:
    tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=max_tokens))
    text = "".join(t + draw(st.sampled_from(SPACES)) for t in tokens)
    return text.lower() if draw(st.integers(0, 5)) == 0 else text


@st.composite
def paragraphs(draw: st.DrawFn) -> list[str | Paragraph]:
    texts = draw(
        st.lists(
            st.one_of(prose(), st.sampled_from(["", " ", "\n"]), st.text(max_size=40)),
            max_size=12,
        )
    )
    if draw(st.booleans()):
        return list(texts)
    out: list[str | Paragraph] = []
    for i, t in enumerate(texts):
        out.append(
            Paragraph(
                t,
                id=draw(st.sampled_from([None, f"p{i}"])),
                page=draw(st.sampled_from([None, 1, 2, i])),
                heading_path=draw(st.sampled_from([(), ("A",), ("A", "B")])),
                kind=draw(st.sampled_from(["p", "p", "heading"])),
            )
        )
    return out


# --- properties -----------------------------------------------------------------


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(prose(max_tokens=400), st.text(max_size=400)),
    max_chars=st.integers(1, 300),
    window=st.sampled_from([1, 4, 16, 160]),
    step=st.sampled_from([1, 7, 128]),
)
def test_split_long_does_not_depend_on_how_far_the_cursor_looks(
    text: str, max_chars: int, window: int, step: int
) -> None:
    """Looking for sentences only where pieces end gives the pieces that
    scanning the whole text gives, however short the cursor's window and steps."""
    stripped = text.strip()
    if not stripped:
        return
    lo = text.find(stripped[0])
    hi = lo + len(stripped)
    saved = sent_mod._WINDOW, sent_mod._STEP
    try:
        sent_mod._WINDOW = sent_mod._STEP = 10**6  # every scan covers the whole text
        whole = split_long(text, lo, hi, max_chars)
        sent_mod._WINDOW, sent_mod._STEP = window, step
        assert split_long(text, lo, hi, max_chars) == whole
    finally:
        sent_mod._WINDOW, sent_mod._STEP = saved


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(prose(max_tokens=200), st.text(max_size=200)),
    data=st.data(),
    window=st.sampled_from([1, 2, 3, 5, 8, 30]),
    step=st.sampled_from([1, 3, 50]),
)
def test_sentence_cursor_finds_the_sentences_of_a_full_scan(
    text: str, data: st.DataObject, window: int, step: int
) -> None:
    sentences = split_sentences(text)
    if not sentences:
        return
    last = sentences[-1][1]
    probes = sorted(data.draw(st.lists(st.integers(0, last), max_size=12)))
    cursor = sent_mod._SentenceCursor(text, window=window, step=step)
    for t in probes:
        k = next(i for i, (_, end) in enumerate(sentences) if end >= t)
        want = (
            sentences[k - 1][1] if k else None,
            *sentences[k],
            sentences[k + 1][0] if k + 1 < len(sentences) else None,
        )
        assert cursor.sentence_at(t) == want, t


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(prose(max_tokens=6), st.text(max_size=12)))
def test_ends_sentence_equals_its_regex(text: str) -> None:
    assert ends_sentence(text) is bool(sent_mod._END.search(text))


PREFIXES = ["", " ", "17 ", "(3) ", "12. ", "“", "¿", "— ", "\u00a0", "«", "1234", "x "]


@settings(max_examples=300, deadline=None)
@given(
    lang=st.sampled_from(["en", "es", "pt"]),
    prefix=st.sampled_from(PREFIXES),
    data=st.data(),
)
def test_marker_opener_equals_the_separate_matchers(
    lang: str, prefix: str, data: st.DataObject
) -> None:
    markers = load_markers(lang)
    assert markers is not None
    every = markers.continuation_markers + markers.closure_markers + markers.reference_markers
    head = data.draw(st.sampled_from(every))
    tail = data.draw(st.sampled_from(["", ",", " ", " is", " another", ", so", "s", " llamado"]))
    text = prefix + head + tail + data.draw(prose(max_tokens=5))
    assert markers.opener(text) == one_matcher_at_a_time(markers, text)


TAILS = ["", ",", " ", " is", " was", " another", ", so", "s", " llamado", " then", " why", "!"]


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_marker_opener_every_marker(lang: str) -> None:
    """Every bundled marker behind every prefix and before every tail,
    including markers that begin other markers ("That is" / "That is why")."""
    markers = load_markers(lang)
    assert markers is not None
    every = markers.continuation_markers + markers.closure_markers + markers.reference_markers
    for head in every:
        for prefix in PREFIXES:
            for tail in TAILS:
                text = prefix + head + tail + " more text."
                assert markers.opener(text) == one_matcher_at_a_time(markers, text), text


def test_marker_opener_general_path(tmp_path: Path) -> None:
    """Marker data with an entry that does not start with a letter is matched
    one list at a time, with the same answers."""
    path = tmp_path / "markers.json"
    path.write_text(
        json.dumps(
            {
                "languages": {
                    "xx": {
                        "continuation": ["Also", "...and"],
                        "closure": ["So"],
                        "reference": ["This"],
                    }
                }
            }
        ),
        "utf-8",
    )
    markers = load_markers("xx", path)
    assert markers is not None
    for text in ["...and so", "So, yes", "17 Also this", "This one", "Nothing", "“So”"]:
        assert markers.opener(text) == one_matcher_at_a_time(markers, text)


SIZES = st.sampled_from([(1500, 80), (200, 50), (60, 0), (40, 40)])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paras=paragraphs(), sizes=SIZES)
def test_paragraph_pieces_and_build_chunks_match_the_chunker(
    paras: list[str | Paragraph], sizes: tuple[int, int]
) -> None:
    """The public Piece-based helpers other chunkers use give the same chunks."""
    max_chars, min_chars = sizes
    plist = as_paragraphs(paras)
    pieces = paragraph_pieces(plist, max_chars=max_chars, min_chars=min_chars, language="en")
    built = build_chunks(
        plist,
        pieces,
        "d",
        chunker="paragraph",
        version="1",
        language="en",
        metadata={"language": "en"},
    )
    direct = ParagraphChunker(max_chars=max_chars, min_chars=min_chars).chunk(
        paras, "d", metadata={"language": "en"}
    )
    assert dump(built) == dump(direct)


SEMANTIC = [
    lambda: SemanticChunker(),
    lambda: SemanticChunker(max_chars=200, min_chars=40, max_continuations=1),
    lambda: SemanticChunker(max_chars=300, target_chars=200),
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(st.one_of(prose(), st.sampled_from(["", " "])), max_size=12),
    which=st.integers(0, len(SEMANTIC) - 1),
    language=st.sampled_from([None, "en", "es", "pt", "fr"]),
)
def test_semantic_plain_strings_equal_paragraph_objects(
    texts: list[str], which: int, language: str | None
) -> None:
    """Plain strings take the no-Paragraph fast path; wrapped in Paragraph
    objects the same text takes the general one: same chunks, and the same
    spans as the public pieces methods give."""
    chunker = SEMANTIC[which]()
    metadata = {"language": language} if language else None
    plain = chunker.chunk(texts, "d", metadata=metadata)
    wrapped = chunker.chunk([Paragraph(t) for t in texts], "d", metadata=metadata)
    assert dump(plain) == dump(wrapped)
    markers = load_markers(language) if language else None
    if markers is not None:
        paras = [Paragraph(t) for t in texts]
        if chunker.target_chars is None:
            pieces = chunker.pieces(paras, markers, language)
        else:
            pieces = chunker.packed_pieces(paras, markers, language)
        assert [p.span.to_dict() for p in pieces] == [c.metadata["span"] for c in plain]
