"""What a SQLite error means for the user: its cause, from SQLite's result code.

A full disk, a read-only file or folder, a file SQLite may not open and a
damaged file call for different fixes; the store and the embedding cache name
the cause from :func:`sqlite_cause` instead of calling every failure damage.
"""

from __future__ import annotations

import sqlite3

__all__ = ["sqlite_cause"]

#: SQLite primary result codes by cause.
_CODES = {
    3: "permission",  # SQLITE_PERM
    5: "busy",  # SQLITE_BUSY
    6: "busy",  # SQLITE_LOCKED
    8: "readonly",  # SQLITE_READONLY
    10: "io",  # SQLITE_IOERR
    11: "damaged",  # SQLITE_CORRUPT
    13: "full",  # SQLITE_FULL
    14: "cantopen",  # SQLITE_CANTOPEN
    23: "permission",  # SQLITE_AUTH
    26: "notadb",  # SQLITE_NOTADB
}
#: The same causes by the words of the message (errors raised without a code).
_WORDS = (
    ("locked", "busy"),
    ("disk is full", "full"),
    ("readonly", "readonly"),
    ("read-only", "readonly"),
    ("unable to open", "cantopen"),
    ("disk i/o error", "io"),
    ("malformed", "damaged"),
    ("not a database", "notadb"),
)


def sqlite_cause(exc: sqlite3.Error) -> str:
    """``busy``, ``full``, ``readonly``, ``cantopen``, ``permission``, ``io``,
    ``damaged``, ``notadb`` or ``other``."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in _CODES:
        return _CODES[code & 0xFF]
    text = str(exc).lower()
    return next((cause for words, cause in _WORDS if words in text), "other")
