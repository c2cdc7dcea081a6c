"""Plain text: paragraphs are separated by blank lines. Inside one, a line
wrapped at the margin is joined to the next with a space, and a line of its
own (a row, a list item, a chat message, a short line) keeps its line break
(:func:`jw_rag.ingest._html.clean_lines`)."""

from __future__ import annotations

from pathlib import Path

from jw_rag.errors import IngestError
from jw_rag.ingest._html import clean_lines
from jw_rag.ingest._source import (
    Loaded,
    check_paragraphs,
    check_text_size,
    decode_text,
    looks_binary,
    read_source,
    refuse_other_kind,
    utf16_without_bom,
)
from jw_rag.model import Document, Paragraph, iter_blocks, split_blocks

__all__ = ["parse_text", "parse_text_bytes", "read_text", "split_blocks"]


def read_text(loaded: Loaded, what: str = "text") -> str:
    """The decoded text of ``loaded``; empty, binary or oversized input is refused."""
    check_text_size(len(loaded.data), loaded.name)
    if looks_binary(loaded.data):
        codec = utf16_without_bom(loaded.data)
        if codec is not None:
            raise IngestError(
                f"{loaded.name} looks like UTF-16 text without a byte-order mark, not UTF-8: "
                f"convert it with `iconv -f {codec} -t utf-8` and ingest the converted file"
            )
        raise IngestError(f"{loaded.name} holds binary data, not {what}; check the file")
    text = decode_text(loaded.data, loaded.name).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise IngestError(f"{loaded.name} is empty; pass a file with {what}")
    return text


def parse_text_bytes(loaded: Loaded) -> Document:
    """Plain text; a file that is really HTML, a PDF or a ZIP format is refused,
    naming the kind to ingest it as."""
    refuse_other_kind(loaded, "text")
    text = read_text(loaded)
    paragraphs: list[Paragraph] = []
    for block in iter_blocks(text):
        paragraphs.append(Paragraph(clean_lines(block)))
        check_paragraphs(len(paragraphs), loaded.name)
    if not any(p.text for p in paragraphs):
        raise IngestError(
            f"{loaded.name} has no visible text (only spaces and invisible characters); "
            "pass a file with text"
        )
    return Document(
        source_id=loaded.stem,
        paragraphs=paragraphs,
        title=paragraphs[0].text[:80] if paragraphs else "",
        metadata={"source": loaded.url or loaded.name, "format": "text"},
    )


def parse_text(source: str | Path) -> Document:
    """A UTF-8 text file or http(s) URL as a :class:`Document` (``source_id`` is the
    file stem, or host and path for a URL).

    The title is the start of the first paragraph (at most 80 characters).
    """
    return parse_text_bytes(read_source(source))
