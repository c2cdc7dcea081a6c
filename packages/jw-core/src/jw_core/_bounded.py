"""Bounded reading: inflate a zlib stream a piece at a time, stopping as soon
as the output passes a size cap or grows faster than a ratio to the input
consumed so far, so a bomb is refused after about one piece of output; and
measure a ZIP archive's directory from its end record before anything opens
it (Python's ``zipfile`` holds an entry object for every member it lists)."""

from __future__ import annotations

import struct
import zlib
from typing import IO

__all__ = [
    "INFLATE_STEP",
    "MAX_ARCHIVE_MEMBERS",
    "MAX_DIRECTORY_BYTES",
    "MAX_TEXT_BYTES",
    "TooLarge",
    "directory_problem",
    "inflate",
]

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


#: The most members one archive (an EPUB, a JWPUB or its ``contents``, a
#: backup) may list: a book or a publication holds a few thousand at most.
MAX_ARCHIVE_MEMBERS = 50_000

#: The largest central directory read: what ``zipfile`` reads whole and turns
#: into one entry object per member (about 500 bytes each), whatever the
#: member count the end record gives.
MAX_DIRECTORY_BYTES = 8 * 1024**2

_END = b"PK\x05\x06"
_END_SIZE = 22
_END64 = b"PK\x06\x06"
_LOCATOR64 = b"PK\x06\x07"
_LOCATOR64_SIZE = 20
_END64_SIZE = 56


def _directory(fp: IO[bytes]) -> tuple[int, int] | None:
    """(members, directory bytes) that the end record of the archive in ``fp``
    declares, found where ``zipfile`` looks for it (a ZIP64 record when its
    locator is there); None when there is no end record."""
    fp.seek(0, 2)
    size = fp.tell()
    tail_size = min(size, _END_SIZE + 0xFFFF)
    fp.seek(size - tail_size)
    tail = fp.read(tail_size)
    at = len(tail) - _END_SIZE if tail[-_END_SIZE : -_END_SIZE + 4] == _END else tail.rfind(_END)
    if at < 0 or len(tail) - at < _END_SIZE:
        return None
    members, directory = struct.unpack("<HI", tail[at + 10 : at + 16])
    end_at = size - tail_size + at
    if end_at >= _LOCATOR64_SIZE + _END64_SIZE:
        fp.seek(end_at - _LOCATOR64_SIZE - _END64_SIZE)
        record = fp.read(_END64_SIZE + _LOCATOR64_SIZE)
        if record[_END64_SIZE:][:4] == _LOCATOR64 and record[:4] == _END64:
            members, directory = struct.unpack("<QQ", record[32:48])
    return int(members), int(directory)


def directory_problem(fp: IO[bytes]) -> str | None:
    """Why the archive in ``fp`` (a seekable binary file, left where it was) is
    not opened: it lists more than :data:`MAX_ARCHIVE_MEMBERS` members or its
    directory is larger than :data:`MAX_DIRECTORY_BYTES`; None when neither
    (or when it has no end record: ``zipfile`` then says what it is)."""
    where = fp.tell()
    try:
        found = _directory(fp)
    finally:
        fp.seek(where)
    if found is None:
        return None
    members, directory = found
    if members > MAX_ARCHIVE_MEMBERS:
        return f"lists {members:,} members (more than the {MAX_ARCHIVE_MEMBERS:,} one archive may hold)"
    if directory > MAX_DIRECTORY_BYTES:
        return (
            f"has a directory of {directory:,} bytes (more than the "
            f"{MAX_DIRECTORY_BYTES:,} one archive may have)"
        )
    return None
