"""Line breaks inside a block of text: a wrap, or a line of its own.

A block with no blank line can hold lines of two kinds. Prose hard-wrapped
at a fixed width (e-texts at ~72 columns, PDF lines) breaks wherever the next
word would not fit: such a break is a space that happened to fall at the
margin, and the text flows on. Rows, list items, chat messages, verse and
one-line paragraphs end where their author ended them: such a break is
structure, and a retrieval unit may start after it.

:func:`line_breaks` tells them apart, break by break. A break is structure
when the line after it starts with a marker (a list bullet or number, a
heading ``#``, a quote ``>``, a table ``|``, a timestamp, a speaker
``Name:``), when the line before it is a table row, when the line before it
is too long to be a wrapped line (more than :data:`MAX_WRAP` characters: a
paragraph on a line of its own), when the line after it is indented more
than the one before, or when the next line's first word would have fitted on
the line before within the block's wrap width (the line ended early on
purpose). Everything else is a wrap. The width is the 90th percentile of the
block's line lengths (a few long lines do not move it), and the fit is
judged with a margin (:data:`FIT_MARGIN`) for proportional fonts, where one
full line holds more characters than another.

A wrong "wrap" costs what joining every line cost before (a row read as part
of a sentence); a wrong "structure" puts a unit boundary in the middle of a
sentence, so every rule asks for clear evidence. Measured on the shared
sets re-laid with ``jw eval chunker-bench --shape wrapped`` (greedy wrap at
72 columns) and ``--shape joined`` (no blank line), see
``benchmarks/reader_lines.py``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["FIT_MARGIN", "MAX_WRAP", "join_lines", "line_breaks"]

#: A line longer than this is never a wrapped line (no text is wrapped at
#: 200 columns): it is a paragraph of its own.
MAX_WRAP = 200
#: The next word "would have fitted" when the line plus the word stays under
#: this share of the wrap width.
FIT_MARGIN = 0.85

#: Markers that start a line of its own wherever they appear.
_STRONG = re.compile(
    r"""(?:
        [#>|]                                              # heading, quote, table
      | \[?\(?\d{1,2}:\d{2}                                # a timestamp
      | <[^<>\s][^<>]{0,30}>                               # <nick>
    )""",
    re.VERBOSE,
)
#: Markers that also start wrapped lines by chance ("...in Los" / "Angeles: the
#: team"): they count only where two lines of the block or more start with one.
_WEAK = re.compile(
    r"""(?:
        [-*+\u2022\u2023\u25e6\u25aa\u2013\u2014](?:\s|$)   # bullets and dialogue dashes
      | \d{1,3}[.)](?:\s|$)                                # numbered items
      | \[[^\[\]]{1,30}\]\s                                # [name]
      | [A-Z\u00c0-\u00de][\w.'\u2019-]{0,24}(?:\ [A-Z\u00c0-\u00de][\w.'\u2019-]{0,24}){0,2}:\s
    )""",
    re.VERBOSE,
)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _width(lengths: Sequence[int]) -> float:
    ordered = sorted(lengths)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def line_breaks(lines: Sequence[str], width: float | None = None) -> list[bool]:
    """For each break between consecutive ``lines`` (``len(lines) - 1`` values):
    True when it is structure, False when the line before it was wrapped.

    ``lines`` are the raw lines of one block (leading whitespace counts as
    indentation); ``width`` is the wrap width when the caller knows it better
    than the block does (a PDF's body text), else the block's own."""
    stripped = [line.strip() for line in lines]
    if width is None:
        width = _width([len(s) for s in stripped if s]) if any(stripped) else 0.0
    weak = [bool(_WEAK.match(s)) for s in stripped]
    weak_counts = sum(weak) >= 2
    out: list[bool] = []
    for k in range(len(lines) - 1):
        a, b = stripped[k], stripped[k + 1]
        if not a or not b:
            out.append(True)
            continue
        first_word = b.split(None, 1)[0]
        out.append(
            bool(_STRONG.match(b))
            or (weak_counts and weak[k + 1])
            or a.startswith("|")
            or len(a) > MAX_WRAP
            or _indent(lines[k + 1]) > _indent(lines[k])
            or len(a) + 1 + len(first_word) <= FIT_MARGIN * width
        )
    return out


def join_lines(lines: Sequence[str], width: float | None = None) -> str:
    """The ``lines`` of one block as one text: each stripped, a wrap as a space
    and a structure break as ``"\\n"`` (:func:`line_breaks`); blank lines dropped."""
    kept = [line for line in lines if line.strip()]
    if not kept:
        return ""
    breaks = line_breaks(kept, width)
    parts = [kept[0].strip()]
    for line, structure in zip(kept[1:], breaks, strict=True):
        parts.append("\n" if structure else " ")
        parts.append(line.strip())
    return "".join(parts)
