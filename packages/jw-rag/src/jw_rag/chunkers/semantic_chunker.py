"""The marker-based semantic chunker: keep an argument in one chunk.

Rules, applied paragraph by paragraph over the open chunk (the last one):

1. A paragraph that opens with a continuation marker of the document's
   language ("However, ...", "Sin embargo, ...", "No entanto, ...") joins the
   open chunk even past ``max_chars``, up to ``max_chars * (1 + overflow)``.
   After ``max_continuations`` consecutive continuation merges the chunk
   takes no further continuation (only a closing paragraph, rule 2).
2. A paragraph that opens with a closure marker ("Therefore", "Por lo tanto",
   "Portanto") joins the open chunk the same way (even one that has reached
   ``max_continuations``: the conclusion belongs to its argument) and closes
   it right after itself, once the chunk has ``min_chars``. ``closure_marker`` is set only on
   a chunk that marker actually closed.
3. Any other paragraph is judged on its own merits, exactly as
   :func:`~jw_rag.chunker.chunk_paragraphs` would: it joins only an open
   chunk that is still short or has not ended a sentence, never because the
   paragraph before it was a continuation.
4. No chunk exceeds ``max_chars * (1 + overflow)``; paragraphs longer than
   ``max_chars`` are split at sentence boundaries.

Unknown language (no markers) and documents whose paragraphs are in several
languages fall back to the paragraph rules, with ``fallback`` saying why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jw_core import detect_language
from jw_rag.chunkers._options import optional_path, real, whole
from jw_rag.chunkers._pieces import Piece, RawPiece, as_pieces
from jw_rag.chunkers._spans import marker_spans, packed_spans, paragraph_spans
from jw_rag.chunkers.base import ChunkerBase, ChunkInput, check_sizes
from jw_rag.chunkers.markers import MarkerSet, load_markers
from jw_rag.errors import ConfigError
from jw_rag.model import Paragraph

__all__ = ["SemanticChunker", "detect_mixed_languages"]

VERSION = "1"


def detect_mixed_languages(
    paras: list[Paragraph], *, sample: int = 8, min_len: int = 60, chars: int = 240
) -> set[str]:
    """Languages found among up to ``sample`` evenly spread, reasonably long
    paragraphs (the first ``chars`` characters of each are enough to tell)."""
    paras = list(paras)
    return _mixed_languages(
        [p.text for p in paras], paras, sample=sample, min_len=min_len, chars=chars
    )


def _mixed_languages(
    texts: list[str],
    paras: list[Paragraph] | None,
    *,
    sample: int = 8,
    min_len: int = 60,
    chars: int = 240,
) -> set[str]:
    """:func:`detect_mixed_languages` over ``texts`` (``paras`` gives their
    kinds; ``None`` means no headings)."""
    if paras is None:
        candidates = [t for t in texts if len(t) >= min_len]
    else:
        candidates = [
            t
            for t, p in zip(texts, paras, strict=True)
            if len(t) >= min_len and p.kind != "heading"
        ]
    if len(candidates) < 2:
        return set()
    step = max(1, len(candidates) // sample)
    found: dict[str, int] = {}
    for text in candidates[::step][:sample]:
        lang = detect_language(text[:chars])
        if lang:
            found[lang] = found.get(lang, 0) + 1
    # One stray misdetection is not a mixed document.
    return {lang for lang, n in found.items() if n >= 2} if len(found) > 1 else set(found)


class SemanticChunker(ChunkerBase):
    """Paragraph chunking that keeps marker-linked paragraphs together."""

    name = "semantic"
    version = VERSION
    options = (
        "max_chars", "min_chars", "overflow", "max_continuations", "target_chars", "markers_path"
    )  # fmt: skip

    def __init__(
        self,
        *,
        max_chars: int = 1500,
        min_chars: int = 80,
        overflow: float = 0.30,
        max_continuations: int = 2,
        target_chars: int | None = None,
        markers_path: str | Path | None = None,
    ) -> None:
        max_chars, min_chars = check_sizes(max_chars, min_chars)
        self.max_chars = max_chars
        self.min_chars = min_chars
        self.overflow = real("overflow", overflow, low=0, high=1)
        self.max_continuations = whole("max_continuations", max_continuations, low=1)
        if target_chars is not None:
            target_chars = whole("target_chars", target_chars)
            if not min_chars <= target_chars <= max_chars:
                raise ConfigError(
                    f"target_chars must be between min_chars and max_chars ({max_chars}), "
                    f"got {target_chars}"
                )
        self.target_chars = target_chars
        self.markers_path = optional_path("markers_path", markers_path)

    @property
    def cap(self) -> int:
        """The hard maximum chunk size: ``max_chars * (1 + overflow)``."""
        return int(self.max_chars * (1 + self.overflow))

    def _pieces_for(self, doc: ChunkInput) -> list[RawPiece]:
        texts, paras, language, metadata = doc.texts, doc.given, doc.language, doc.metadata
        fallback: str | None = None
        mixed = False
        if not (metadata and metadata.get("language")):
            langs = _mixed_languages(texts, paras)
            if len(langs) > 1:
                mixed, fallback = True, "mixed_language"
        markers = load_markers(language, self.markers_path) if language and not mixed else None
        if markers is None and fallback is None:
            fallback = "unknown_language"
        pieces: list[RawPiece]
        if self.target_chars is not None:
            kinds = [p.kind for p in paras] if paras is not None else None
            pieces = self._packed(texts, kinds, markers, language)
        elif markers is None:
            flags: dict[str, Any] = {"fallback": fallback}
            if mixed:
                flags["mixed_language"] = True
            pieces = paragraph_spans(
                texts,
                max_chars=self.max_chars,
                min_chars=self.min_chars,
                language=language,
                single={"merge_reason": None, **flags},
                merged={"merge_reason": "short_paragraph", **flags},
            )
        else:
            pieces = self._marker(texts, markers, language)
        return pieces

    def pieces(
        self, paras: list[Paragraph], markers: MarkerSet, language: str | None
    ) -> list[Piece]:
        """The spans of the marker rules over ``paras`` (see the module docstring)."""
        return as_pieces(self._marker([p.text for p in paras], markers, language))

    def packed_pieces(
        self, paras: list[Paragraph], markers: MarkerSet | None, language: str | None
    ) -> list[Piece]:
        """Packing mode (``target_chars`` set): consecutive paragraphs fill a
        chunk up to ``target_chars``; a paragraph that links back (continuation,
        closure or back-reference opener) joins even past it, up to the cap, so
        a chunk never ends right before a continuation; a chunk that reached
        half the target ends after a closing paragraph or before a heading."""
        paras = list(paras)
        return as_pieces(
            self._packed([p.text for p in paras], [p.kind for p in paras], markers, language)
        )

    def _marker(self, texts: list[str], markers: MarkerSet, language: str | None) -> list[RawPiece]:
        return marker_spans(
            texts,
            markers,
            language,
            cap=self.cap,
            max_chars=self.max_chars,
            min_chars=self.min_chars,
            max_continuations=self.max_continuations,
        )

    def _packed(
        self,
        texts: list[str],
        kinds: list[str] | None,
        markers: MarkerSet | None,
        language: str | None,
    ) -> list[RawPiece]:
        return packed_spans(
            texts,
            kinds,
            markers,
            language,
            target=self.target_chars or self.max_chars,
            cap=self.cap,
            max_chars=self.max_chars,
            min_chars=self.min_chars,
        )
