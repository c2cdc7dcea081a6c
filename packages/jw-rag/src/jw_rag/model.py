"""The data model every layer shares: paragraphs, documents, chunks and spans.

A chunk always says exactly where its text came from. ``Span`` holds the first
and last paragraph (as positions in the chunker's input) and the character
offsets inside them; :func:`rebuild_text` turns a span back into the chunk text,
so provenance can be checked instead of trusted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "PARAGRAPH_SEPARATOR",
    "EXTRA_UNIT_KEY",
    "MAX_PREFIX_WEIGHT",
    "is_prefix_weight",
    "Chunk",
    "Document",
    "Paragraph",
    "ParagraphInput",
    "Span",
    "as_paragraphs",
    "content_bounds",
    "paragraph_items",
    "rebuild_text",
    "iter_blocks",
    "split_blocks",
]

#: The chunk metadata key naming the kind of unit a chunk is, when it is one
#: indexed beside the chunks (e.g. a window over several of them). A store does
#: not read the kind: it keeps it as the row's chunker and counts the rows of
#: each kind apart from the chunks (``Store.stats()["extra_units"]``).
EXTRA_UNIT_KEY = "extra_unit"

#: The largest ``metadata["prefix_weight"]`` (how much of a chunk's title and
#: heading path vector is mixed into its own; ``jw_rag.store._pooling``).
MAX_PREFIX_WEIGHT = 10.0


def is_prefix_weight(value: object) -> bool:
    """True for an int or float from 0 to :data:`MAX_PREFIX_WEIGHT` (a bool
    and NaN are not)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and 0 <= value <= MAX_PREFIX_WEIGHT  # type: ignore[operator]


#: Text placed between two paragraphs inside one chunk.
PARAGRAPH_SEPARATOR = "\n\n"

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")


def split_blocks(text: str) -> list[str]:
    """Blocks of ``text`` separated by blank lines, each stripped of newlines; blank ones dropped."""
    return list(iter_blocks(text))


def iter_blocks(text: str) -> Iterator[str]:
    """:func:`split_blocks` one block at a time (a caller can stop early)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    start = 0
    for separator in _BLANK_LINE.finditer(text):
        block = text[start : separator.start()]
        start = separator.end()
        if block.strip():
            yield block.strip("\n")
    block = text[start:]
    if block.strip():
        yield block.strip("\n")


@dataclass(frozen=True, slots=True)
class Paragraph:
    """One paragraph of a source, with the source's own identifiers.

    ``id`` is the source's id for it (a ``data-pid``, a verse id such as
    ``"john:3:16"``); ``None`` means the position in the input is the id.
    """

    text: str
    id: str | None = None
    page: int | None = None
    heading_path: tuple[str, ...] = ()
    kind: str = "p"  # "p", "heading", "verse", "note", ...

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"Paragraph.text must be str, got {type(self.text).__name__}")


#: What chunkers accept: plain strings or paragraphs carrying source ids.
ParagraphInput = Sequence[str | Paragraph]


def paragraph_items(paragraphs: ParagraphInput | str) -> list[str | Paragraph]:
    """Chunker input as a list: a ``str`` is one document whose blank lines
    separate paragraphs; any other non-sequence is a one-line ``TypeError``.

    Every chunker reads its input through this (via :func:`as_paragraphs`)."""
    if isinstance(paragraphs, list):
        return paragraphs
    if isinstance(paragraphs, str):
        return list(split_blocks(paragraphs))
    if isinstance(paragraphs, bytes | bytearray | Mapping) or not isinstance(paragraphs, Iterable):
        raise TypeError(
            "paragraphs must be a str (one document) or a sequence of str or Paragraph, "
            f"got {type(paragraphs).__name__}"
        )
    return list(paragraphs)


def as_paragraphs(paragraphs: ParagraphInput | str) -> list[Paragraph]:
    """Normalise chunker input (see :func:`paragraph_items`): strings become id-less paragraphs."""
    out: list[Paragraph] = []
    for p in paragraph_items(paragraphs):
        if isinstance(p, Paragraph):
            out.append(p)
        elif isinstance(p, str):
            out.append(Paragraph(p))
        else:
            raise TypeError(f"paragraphs must be str or Paragraph, got {type(p).__name__}")
    return out


@dataclass(slots=True)
class Document:
    """A parsed source: ordered paragraphs plus what is known about the source."""

    source_id: str
    paragraphs: list[Paragraph]
    title: str = ""
    language: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return PARAGRAPH_SEPARATOR.join(p.text for p in self.paragraphs)


@dataclass(frozen=True, slots=True)
class Span:
    """Exact provenance: from ``start_char`` of paragraph ``start_para`` up to
    (not including) ``end_char`` of paragraph ``end_para``.

    Paragraph numbers are positions in the chunker's input list; the source's
    own ids live in ``metadata["para_ids"]``.
    """

    start_para: int
    start_char: int
    end_para: int
    end_char: int

    def to_dict(self) -> dict[str, int]:
        return {
            "start_para": self.start_para,
            "start_char": self.start_char,
            "end_para": self.end_para,
            "end_char": self.end_char,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Span:
        return cls(
            int(d["start_para"]), int(d["start_char"]), int(d["end_para"]), int(d["end_char"])
        )


def content_bounds(text: str) -> tuple[int, int]:
    """(start, end) of ``text`` without surrounding whitespace; (0, 0) when blank."""
    stripped = text.strip()
    if not stripped:
        return (0, 0)
    start = len(text) - len(text.lstrip())
    return (start, start + len(stripped))


def rebuild_text(paragraphs: Sequence[str | Paragraph], span: Span | Mapping[str, Any]) -> str:
    """The text a span designates: the first paragraph from ``start_char``, the
    whole content (whitespace-trimmed) of every non-blank paragraph in between,
    the last one up to ``end_char``, joined by :data:`PARAGRAPH_SEPARATOR`.

    Whitespace at the joins (the end of the first paragraph, the start of the
    last) is left out, so a chunk's length is the sum of its paragraphs'
    trimmed lengths plus the separators, which is what chunkers budget."""
    if not isinstance(span, Span):
        span = Span.from_dict(span)
    if not (0 <= span.start_para <= span.end_para < len(paragraphs)):
        raise ValueError(f"span {span} is outside the {len(paragraphs)} paragraphs given")

    def text_of(k: int) -> str:
        p = paragraphs[k]
        return p.text if isinstance(p, Paragraph) else p

    if span.start_para == span.end_para:
        return text_of(span.start_para)[span.start_char : span.end_char]
    parts = [text_of(span.start_para)[span.start_char :].rstrip()]
    for k in range(span.start_para + 1, span.end_para):
        middle = text_of(k).strip()
        if middle:
            parts.append(middle)
    parts.append(text_of(span.end_para)[: span.end_char].lstrip())
    return PARAGRAPH_SEPARATOR.join(parts)


@dataclass(slots=True)
class Chunk:
    """A retrievable unit of text with its provenance in ``metadata``.

    Metadata keys every chunker sets: ``chunker``, ``chunker_version``,
    ``language``, ``para_ids``, ``span`` (see :class:`Span`), ``merge_reason``
    (``"continuation_marker"``, ``"short_paragraph"`` or ``None``),
    ``closure_marker`` (str or ``None``), ``chunk_index``, ``prev_id`` and
    ``next_id``; ``pages`` and ``heading_path`` when the source has them.
    """

    id: str
    text: str
    source_id: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def span(self) -> Span:
        return Span.from_dict(self.metadata["span"])
