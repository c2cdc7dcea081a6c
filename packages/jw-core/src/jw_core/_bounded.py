"""Bounded reading: inflate a zlib stream a piece at a time, stopping as soon
as the output passes a size cap or grows faster than a ratio to the input
consumed so far, so a bomb is refused after about one piece of output."""

from __future__ import annotations

import zlib

__all__ = ["INFLATE_STEP", "MAX_TEXT_BYTES", "TooLarge", "inflate"]

#: The most text (or markup) one source may hold: a page, a text or Markdown
#: file, a JWPUB document, a note. Reading, parsing, chunking and indexing a
#: source cost several times its text at once, so this bounds their memory.
MAX_TEXT_BYTES = 32 * 1024**2

#: Output produced per step (and the size under which no ratio is checked).
INFLATE_STEP = 1024**2
_INPUT_STEP = 64 * 1024


class TooLarge(ValueError):
    """The stream inflates past the cap or the ratio; the message says which."""


def inflate(data: bytes, *, limit: int, ratio: int) -> bytes:
    """``data`` inflated (zlib), at most ``limit`` bytes and at most ``ratio``
    times the input consumed once past :data:`INFLATE_STEP`; ``zlib.error``
    for a broken stream, :class:`TooLarge` past either bound. A stream cut
    short gives what it holds."""
    inflater = zlib.decompressobj()
    parts: list[bytes] = []
    produced = consumed = 0
    pending = b""
    while not inflater.eof:
        if not pending and consumed < len(data):
            pending = data[consumed : consumed + _INPUT_STEP]
            consumed += len(pending)
        part = inflater.decompress(pending, INFLATE_STEP)
        pending = inflater.unconsumed_tail
        if not part and not pending and consumed >= len(data):
            break  # input used up and nothing more comes out
        produced += len(part)
        parts.append(part)
        if produced > limit:
            raise TooLarge(f"inflates past {limit} bytes")
        if produced > INFLATE_STEP and produced > ratio * (consumed - len(pending)):
            raise TooLarge(f"inflates more than {ratio} times its size (a zlib bomb?)")
    return b"".join(parts)
