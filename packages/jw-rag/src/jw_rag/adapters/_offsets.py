"""Where a chunk of a whole-document string lies in that string.

A chunker given one ``str`` splits it with :func:`jw_rag.model.split_blocks`
(blank lines separate paragraphs, ``\\r\\n`` and ``\\r`` read as ``\\n``) and
gives each chunk a span in those blocks. :class:`BlockOffsets` maps a span
back to the original string in one pass over it, so an adapter never searches
the document for a chunk's text: that search is slow (each miss scans the rest
of the document) and misses whenever the text between two paragraphs is not
exactly ``"\\n\\n"``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping
from typing import Any

from jw_rag.model import Span

__all__ = ["BlockOffsets"]

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")  # as jw_rag.model.split_blocks


class BlockOffsets:
    """The blocks :func:`~jw_rag.model.split_blocks` finds in ``text``, and
    their characters' offsets in ``text`` itself."""

    def __init__(self, text: str) -> None:
        normal = text.replace("\r\n", "\n").replace("\r", "\n")
        # each "\r\n" of the text, as the offset its "\n" has in `normal`
        self._crlf = [m.start() - k for k, m in enumerate(re.finditer("\r\n", text))]
        self.starts: list[int] = []  # each block's start in `normal`
        pos = 0
        for gap in [*_BLANK_LINE.finditer(normal), None]:
            end = gap.start() if gap is not None else len(normal)
            piece = normal[pos:end]
            if piece.strip():
                self.starts.append(pos + len(piece) - len(piece.lstrip("\n")))
            if gap is not None:
                pos = gap.end()

    def offset(self, block: int, char: int) -> int:
        """The offset in the original text of character ``char`` of block
        ``block`` (or of the end of a range ending there)."""
        normal = self.starts[block] + char
        return normal + bisect_left(self._crlf, normal)

    def span(self, span: Span | Mapping[str, Any]) -> tuple[int, int]:
        """``(start, end)`` of a chunk's span in the original text."""
        s = span if isinstance(span, Span) else Span.from_dict(span)
        return self.offset(s.start_para, s.start_char), self.offset(s.end_para, s.end_char)
