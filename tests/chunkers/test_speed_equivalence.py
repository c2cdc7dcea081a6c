"""The fast paths of the paragraph and semantic chunkers give exactly what the
plain implementations they replaced gave.

The references below are the straightforward versions (kept here, not in the
package): sentence splitting with ``finditer`` and the full period check,
``ends_sentence`` as its regex, the word scorer as a plain loop, marker
lookup one matcher at a time, and the paragraph chunker that built
``Paragraph``/``Span``/``Piece`` objects and called ``rebuild_text``. Each
property compares the package against its reference on random input built
to hit the special cases (abbreviations, initials, quotes, caseless text,
blank and heading paragraphs, pages, ids, markers behind prefixes).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jw_core import ends_sentence, split_sentences
from jw_core import language as lang_mod
from jw_core import sentences as sent_mod
from jw_rag.chunkers import ParagraphChunker, SemanticChunker, load_markers
from jw_rag.chunkers import _pieces as pieces_mod
from jw_rag.chunkers._pieces import build_chunks, resolve_language, split_long
from jw_rag.chunkers.paragraph_chunker import paragraph_pieces
from jw_rag.model import Chunk, Paragraph, Span, as_paragraphs, rebuild_text

# --- references -----------------------------------------------------------------

_REF_BOUNDARY = re.compile(r"([.!?…]+)([\"'”’»)\]]*)(\s+)")
_REF_BOUNDARY_CASED = re.compile(r"([.!?…]+)([\"'”’»)\]]*)(\s++)(?![a-zß-öø-ÿ])")


def _ref_starts_sentence(text: str, pos: int, caseless: bool) -> bool:
    n = len(text)
    while pos < n and text[pos] in sent_mod._OPENERS:
        pos += 1
        while pos < n and text[pos] == " ":
            pos += 1
    if pos >= n:
        return False
    c = text[pos]
    return c.isupper() or c.isdigit() or c in "¿¡" or (caseless and c.isalpha())


def _ref_period_is_final(text: str, dot: int, nxt: int) -> bool:
    parts = text[max(0, dot - sent_mod._LOOKBEHIND) : dot].rsplit(None, 1)
    if not parts:
        return True
    token = parts[-1]
    if not token.replace(".", "").isalnum():
        m = sent_mod._TOKEN_TAIL.search(token)
        if not m:
            return True
        token = m.group(0)
    word = token.lower()
    if word in sent_mod._NEVER_FINAL:
        return False
    if "." in token:
        return word in sent_mod._FINAL_ACRONYMS or len(token.replace(".", "")) > 4
    if len(token) == 1 and token.isalpha():
        return not token.isupper() and not text[nxt].isdigit()
    if len(token) == 2 and token[0] == token[1] and token.isupper():
        if sent_mod._DOUBLED_NEXT.match(text, nxt):
            return False
    if text[nxt].isdigit():
        if word in sent_mod._BEFORE_NUMBER:
            return False
        if token.isdigit():
            return False
    return True


def ref_split_sentences(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    n = len(text)
    caseless = text.islower()
    start = 0
    while start < n and text[start].isspace():
        start += 1
    for m in (_REF_BOUNDARY if caseless else _REF_BOUNDARY_CASED).finditer(text):
        end = m.end(2)
        nxt = m.end(3)
        if end <= start or nxt >= n:
            continue
        if not _ref_starts_sentence(text, nxt, caseless):
            continue
        if end - start <= 4 and not any(ch.isalnum() for ch in text[start:end]):
            continue
        if m.group(1) == "." and not _ref_period_is_final(text, m.start(1), nxt):
            continue
        spans.append((start, end))
        start = nxt
    tail_end = len(text.rstrip())
    if tail_end > start:
        spans.append((start, tail_end))
    return spans


def ref_split_long(text: str, lo: int, hi: int, max_chars: int) -> list[tuple[int, int]]:
    """split_long as it was: every sentence found, then the greedy packing."""
    if hi - lo <= max_chars:
        return [(lo, hi)]
    units: list[tuple[int, int]] = []
    for a, b in ref_split_sentences(text[lo:hi]):
        a, b = a + lo, b + lo
        if b - a <= max_chars:
            units.append((a, b))
        else:
            units.extend(pieces_mod._split_words(text, a, b, max_chars))
    n_target = -(-(hi - lo) // max_chars)
    target = max(1, min(max_chars, -(-(hi - lo) // n_target)))
    out: list[tuple[int, int]] = []
    cur_a, cur_b = units[0]
    for a, b in units[1:]:
        if b - cur_a <= max_chars and (cur_b - cur_a) < target:
            cur_b = b
        else:
            out.append((cur_a, cur_b))
            cur_a, cur_b = a, b
    out.append((cur_a, cur_b))
    return out


def ref_word_scores(lowered: str) -> list[float]:
    scores = [0.0] * len(lang_mod.SUPPORTED_LANGUAGES)
    for w in lang_mod._WORD.findall(lowered):
        row = lang_mod._WORD_WEIGHTS.get(w)
        if row is not None:
            for i, weight in enumerate(row):
                scores[i] += weight
    for mark, i in lang_mod._MARKS:
        scores[i] += lang_mod._MARK_WEIGHT * lowered.count(mark)
    return scores


def ref_opener(markers: Any, text: str) -> tuple[str, str] | None:
    for kind, find in (
        ("closure", markers.closure),
        ("continuation", markers.continuation),
        ("reference", markers.reference),
    ):
        marker = find(text)
        if marker:
            return kind, marker
    return None


def _ref_pieces(
    paras: list[Paragraph], max_chars: int, min_chars: int, language: str | None
) -> list[tuple[Span, dict[str, Any]]]:
    pieces: list[tuple[Span, dict[str, Any]]] = []
    sp = sc = ep = ec = 0
    open_ = False
    length = count = 0

    def close() -> None:
        pieces.append(
            (Span(sp, sc, ep, ec), {"merge_reason": "short_paragraph" if count > 1 else None})
        )

    for i, p in enumerate(paras):
        text = p.text
        stripped = text.strip()
        if not stripped:
            continue
        lo = text.find(stripped[0])
        size = len(stripped)
        hi = lo + size
        if size > max_chars:
            if open_:
                close()
                open_ = False
            for a, b in split_long(text, lo, hi, max_chars, language):
                pieces.append((Span(i, a, i, b), {"merge_reason": None}))
            continue
        if open_ and length + 2 + size > max_chars:
            close()
            open_ = False
        if open_:
            length += 2 + size
            count += 1
        else:
            open_, sp, sc, length, count = True, i, lo, size, 1
        ep, ec = i, hi
        if length >= min_chars and ends_sentence(stripped[-8:]):
            close()
            open_ = False
    if open_:
        close()
    return pieces


def ref_chunk_paragraphs(
    paragraphs: Sequence[str | Paragraph],
    source_id: str,
    *,
    max_chars: int,
    min_chars: int,
    metadata: Mapping[str, Any] | None,
) -> list[Chunk]:
    paras = as_paragraphs(paragraphs)
    language = resolve_language(paras, metadata)
    base = dict(metadata or {})
    texts = [p.text for p in paras]
    has_pages = any(p.page is not None for p in paras)
    chunks: list[Chunk] = []
    for index, (span, extra) in enumerate(_ref_pieces(paras, max_chars, min_chars, language)):
        sp, ep = span.start_para, span.end_para
        first = paras[sp]
        if sp == ep:
            para_ids: list[str | int] = [first.id if first.id is not None else sp]
            pages = [first.page] if first.page is not None else []
        else:
            para_ids = []
            pages = []
            for k in range(sp, ep + 1):
                p = paras[k]
                if sp < k < ep and not texts[k].strip():
                    continue
                para_ids.append(p.id if p.id is not None else k)
                if has_pages and p.page is not None and p.page not in pages:
                    pages.append(p.page)
        meta: dict[str, Any] = dict(base)
        meta["chunker"] = "paragraph"
        meta["chunker_version"] = "1"
        meta["language"] = language
        meta["para_ids"] = para_ids
        meta["span"] = span.to_dict()
        meta["merge_reason"] = None
        meta["closure_marker"] = None
        meta["chunk_index"] = index
        if pages:
            meta["pages"] = pages
        if first.heading_path:
            meta["heading_path"] = list(first.heading_path)
        meta.update(extra)
        key = (
            f"{source_id}\x1fparagraph\x1f{span.start_para}.{span.start_char}"
            f"-{span.end_para}.{span.end_char}"
        )
        digest = hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]
        chunk_id = f"{source_id}:{digest}" if source_id else digest
        chunks.append(Chunk(chunk_id, rebuild_text(texts, span), source_id, meta))
    for i, c in enumerate(chunks):
        c.metadata["prev_id"] = chunks[i - 1].id if i else None
        c.metadata["next_id"] = chunks[i + 1].id if i + 1 < len(chunks) else None
    return chunks


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


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(prose(), st.text(max_size=80)))
def test_split_sentences_equals_reference(text: str) -> None:
    assert split_sentences(text) == ref_split_sentences(text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(prose(max_tokens=400), st.text(max_size=400)),
    max_chars=st.integers(1, 300),
    window=st.sampled_from([1, 4, 16, 160]),
    step=st.sampled_from([1, 7, 128]),
)
def test_split_long_equals_reference(text: str, max_chars: int, window: int, step: int) -> None:
    """Looking for sentences only where pieces end gives the pieces that
    segmenting the whole text gave, however far the cursor jumps."""
    stripped = text.strip()
    if not stripped:
        return
    lo = text.find(stripped[0])
    hi = lo + len(stripped)
    saved = sent_mod._WINDOW, sent_mod._STEP
    sent_mod._WINDOW, sent_mod._STEP = window, step
    try:
        got = split_long(text, lo, hi, max_chars)
    finally:
        sent_mod._WINDOW, sent_mod._STEP = saved
    assert got == ref_split_long(text, lo, hi, max_chars)


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
    sentences = ref_split_sentences(text)
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


def test_split_long_equals_reference_on_bench_paragraphs(shared_bench: Path) -> None:
    """Every paragraph of the shared benchmark data longer than the limit."""
    texts: list[str] = []
    for name in ("xquad/xquad.en.json", "xquad/xquad.es.json", "faquad/dataset.json"):
        data = json.loads((shared_bench / name).read_text("utf-8"))
        texts += [p["context"] for a in data["data"] for p in a["paragraphs"]]
    for md in sorted((shared_bench / "chroma" / "corpora").glob("*.md")):
        texts += md.read_text("utf-8").split("\n\n")
    checked = 0
    for text in texts:
        stripped = text.strip()
        for max_chars in (1500, 700, 300, 97):
            if len(stripped) > max_chars:
                lo = text.find(stripped[0])
                hi = lo + len(stripped)
                assert split_long(text, lo, hi, max_chars) == ref_split_long(
                    text, lo, hi, max_chars
                )
                checked += 1
    assert checked > 1000


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(prose(max_tokens=6), st.text(max_size=12)))
def test_ends_sentence_equals_its_regex(text: str) -> None:
    assert ends_sentence(text) is bool(sent_mod._END.search(text))


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(prose(), st.text(max_size=80)))
def test_word_scores_equal_reference(text: str) -> None:
    lowered = text.lower()
    assert lang_mod._word_scores(lowered) == ref_word_scores(lowered)


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
    assert markers.opener(text) == ref_opener(markers, text)


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
                assert markers.opener(text) == ref_opener(markers, text), text


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
        assert markers.opener(text) == ref_opener(markers, text)


SIZES = st.sampled_from([(1500, 80), (200, 50), (60, 0), (40, 40)])


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    paras=paragraphs(),
    sizes=SIZES,
    source_id=st.sampled_from(["doc", ""]),
    language=st.sampled_from([None, "en", "E", "es-ES"]),
)
def test_paragraph_chunker_equals_reference(
    paras: list[str | Paragraph], sizes: tuple[int, int], source_id: str, language: str | None
) -> None:
    max_chars, min_chars = sizes
    metadata = {"language": language, "extra": 1, "pages": [9]} if language else None
    got = ParagraphChunker(max_chars=max_chars, min_chars=min_chars).chunk(
        paras, source_id, metadata=metadata
    )
    want = ref_chunk_paragraphs(
        paras, source_id, max_chars=max_chars, min_chars=min_chars, metadata=metadata
    )
    assert dump(got) == dump(want)


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


# --- the compiled build ---------------------------------------------------------
# The packages compile their hot modules with mypyc and build chunk ids in C
# (see packages/jw-core/setup.py and packages/jw-rag/setup.py). The source of
# each compiled module, loaded as plain Python, must give what the build gives.

from jw_rag._compiled import hot_modules, is_compiled, source_of  # noqa: E402
from jw_rag.chunkers import _spans as spans_mod  # noqa: E402

COMPILED_MODULES = hot_modules()


def _source_copy(module: Any) -> Any:
    """``module`` loaded again from its ``.py`` source, as interpreted Python."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_source_{module.__name__}", source_of(module))
    assert spec is not None and spec.loader is not None
    copy = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = copy  # dataclasses look their module up there
    spec.loader.exec_module(copy)
    return copy


needs_build = pytest.mark.skipif(
    not all(is_compiled(m) for m in COMPILED_MODULES) or pieces_mod._span_ids is None,
    reason="the packages were installed without compiling (JW_PURE_PYTHON or no C compiler)",
)


@pytest.mark.skipif(not os.environ.get("CI"), reason="checked in CI, where the build must compile")
def test_ci_buildis_compiled() -> None:
    """A build that silently fell back to Python would lose the speed the
    README reports: in CI every hot module must be the compiled one."""
    assert [m.__name__ for m in COMPILED_MODULES if not is_compiled(m)] == []
    assert pieces_mod._span_ids is not None


@needs_build
@settings(max_examples=300, deadline=None)
@given(
    prefix=st.binary(max_size=200),
    head=st.text(max_size=8),
    values=st.lists(
        st.one_of(st.integers(0, 10**6), st.integers(-(2**70), 2**70), st.booleans()),
        min_size=4,
        max_size=4,
    ),
)
def test_c_chunk_ids_equal_hashlib(prefix: bytes, head: str, values: list[int]) -> None:
    from jw_rag._chunk_ids import span_id, span_ids

    sp, sc, ep, ec = values
    want = head + hashlib.sha1(prefix + f"{sp}.{sc}-{ep}.{ec}".encode()).hexdigest()[:12]
    assert span_id(prefix, head, sp, sc, ep, ec) == want
    pieces = [(sp, sc, ep, ec, None), (ec, ep, sc, sp, {})]
    other = head + hashlib.sha1(prefix + f"{ec}.{ep}-{sc}.{sp}".encode()).hexdigest()[:12]
    assert span_ids(prefix, head, pieces) == [want, other]
    assert span_ids(prefix, head, [*pieces, (1, 2, 3, 4)]) is None  # not a piece: caller's loop


@pytest.fixture(scope="module")
def source_copies() -> dict[str, Any]:
    copies = {m.__name__.rsplit(".", 1)[-1]: _source_copy(m) for m in COMPILED_MODULES}
    copies["_pieces"]._span_ids = None  # ids through hashlib, as without the C module
    return copies


@needs_build
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    texts=st.lists(
        st.one_of(prose(), prose(max_tokens=300), st.sampled_from(["", " "])), max_size=10
    ),
    max_chars=st.sampled_from([1500, 200, 60, 17]),
    language=st.sampled_from(["en", "es", "pt"]),
)
def test_compiled_modules_equal_their_source(
    source_copies: dict[str, Any], texts: list[str], max_chars: int, language: str
) -> None:
    py = source_copies
    joined = " ".join(texts)
    assert py["sentences"].split_sentences(joined) == split_sentences(joined)
    stripped = joined.strip()
    if len(stripped) > max_chars:
        lo = joined.find(stripped[0])
        assert py["_pieces"].split_long(joined, lo, lo + len(stripped), max_chars) == split_long(
            joined, lo, lo + len(stripped), max_chars
        )
    min_chars = min(40, max_chars)
    sizes: dict[str, Any] = {"max_chars": max_chars, "min_chars": min_chars}
    assert py["_spans"].paragraph_spans(texts, language=language, **sizes) == (
        spans_mod.paragraph_spans(texts, language=language, **sizes)
    )
    markers = load_markers(language)
    py_markers = py["markers"].load_markers(language)
    for text in texts:
        assert py_markers.opener(text) == markers.opener(text)
    cap = int(max_chars * 1.3)
    marker_args: dict[str, Any] = {"cap": cap, "max_continuations": 2, **sizes}
    got = spans_mod.marker_spans(texts, markers, language, **marker_args)
    assert py["_spans"].marker_spans(texts, py_markers, language, **marker_args) == got
    packed_args: dict[str, Any] = {
        "target": max(min_chars, max_chars * 2 // 3),
        "cap": cap,
        **sizes,
    }
    assert py["_spans"].packed_spans(texts, None, py_markers, language, **packed_args) == (
        spans_mod.packed_spans(texts, None, markers, language, **packed_args)
    )
    meta = {"language": language}
    args: dict[str, Any] = {
        "chunker": "semantic",
        "version": "1",
        "language": language,
        "metadata": meta,
    }
    assert dump(py["_pieces"].build_raw_chunks(texts, None, got, "doc", **args)) == dump(
        pieces_mod.build_raw_chunks(texts, None, got, "doc", **args)
    )
