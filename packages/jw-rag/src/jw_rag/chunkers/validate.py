"""Check a chunker's output against its input: the provenance invariant.

``check_chunks`` is what the test suite runs over every chunker, and what a
plugin author can run over theirs: chunks in document order, each span
rebuilding its text, every non-whitespace character of every paragraph
covered exactly once (chunks flagged ``overlap`` may repeat text that another
chunk already covers), size bounds, unique ids, consistent prev/next links.
"""

from __future__ import annotations

from collections.abc import Sequence

from jw_rag.model import Chunk, Paragraph, content_bounds, rebuild_text

__all__ = ["ProvenanceError", "check_chunks"]


class ProvenanceError(AssertionError):
    """Chunks do not match the paragraphs they claim to come from."""


def check_chunks(
    paragraphs: Sequence[str | Paragraph],
    chunks: Sequence[Chunk],
    *,
    max_len: int | None = None,
) -> None:
    """Raise :class:`ProvenanceError` naming the first broken invariant.

    A chunk whose ``metadata["overlap"]`` holds ``{"start_para", "start_char",
    "end_para", "end_char"}`` carries that leading range as overlap: it must
    rebuild like the rest of the chunk, but it does not count for coverage.
    """
    texts = [p.text if isinstance(p, Paragraph) else p for p in paragraphs]
    covered: list[list[tuple[int, int]]] = [[] for _ in texts]
    last = (-1, -1)
    for index, c in enumerate(chunks):
        meta = c.metadata
        span = c.span
        if meta.get("chunk_index") != index:
            raise ProvenanceError(f"chunk {index} has chunk_index {meta.get('chunk_index')}")
        if rebuild_text(paragraphs, span) != c.text:
            raise ProvenanceError(f"chunk {index} ({c.id}): its span does not rebuild its text")
        if not c.text or c.text != c.text.strip():
            raise ProvenanceError(f"chunk {index} ({c.id}) is empty or has surrounding whitespace")
        if max_len is not None and len(c.text) > max_len:
            raise ProvenanceError(f"chunk {index} ({c.id}) has {len(c.text)} chars > {max_len}")
        start = (span.start_para, span.start_char)
        overlap = meta.get("overlap")
        if overlap:
            start = (overlap["end_para"], overlap["end_char"])
        if start < last:
            raise ProvenanceError(f"chunk {index} ({c.id}) starts before the previous chunk ends")
        last = (span.end_para, span.end_char)
        for k in range(start[0], span.end_para + 1):
            lo, hi = content_bounds(texts[k])
            a = start[1] if k == start[0] else lo
            b = span.end_char if k == span.end_para else hi
            if hi > lo and b > a:
                covered[k].append((a, b))
    for k, text in enumerate(texts):
        ranges = sorted(covered[k])
        for (_, b1), (a2, _) in zip(ranges, ranges[1:], strict=False):
            if b1 > a2:
                raise ProvenanceError(f"paragraph {k} is covered twice")
        mask = bytearray(len(text))
        for a, b in ranges:
            mask[a:b] = b"\x01" * (b - a)
        for i, ch in enumerate(text):
            if not mask[i] and not ch.isspace():
                raise ProvenanceError(f"paragraph {k} lost its character {i} ({ch!r})")
    ids = [c.id for c in chunks]
    if len(set(ids)) != len(ids):
        raise ProvenanceError("chunk ids are not unique")
    for a, b in zip(chunks, chunks[1:], strict=False):
        if a.metadata.get("next_id") != b.id or b.metadata.get("prev_id") != a.id:
            raise ProvenanceError(f"prev/next links between {a.id} and {b.id} are wrong")
