"""The CLI's JSON: one writer for every ``--json`` output.

A store written before vectors were checked can hold NaN, which JSON has no
number for; a file name that is not UTF-8 reaches Python as lone surrogates
(``os.fsdecode``), which no UTF-8 text can hold. Every ``--json`` output goes
through :func:`json_text`, so each one is valid UTF-8 JSON whatever it carries:
a non-finite float is ``null`` and a lone surrogate is written as its ``\\u``
escape, which a JSON reader gives back (``os.fsencode`` of the name read back
is the file's own bytes). The line and paragraph separators U+2028, U+2029 and
U+0085 (a file name can hold them) are escaped too, so JSON written one row per
line stays one row per line for any line splitter (``str.splitlines`` too).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = ["finite", "json_text"]

#: Lone surrogates, and the line separators JSON leaves as they are.
_ESCAPED = re.compile("[\ud800-\udfff\u2028\u2029\x85]")


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float as ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """``value`` as UTF-8-safe JSON text, indented by ``indent`` (``None``: one
    compact line)."""
    separators = (",", ":") if indent is None else None
    text = json.dumps(
        finite(value), ensure_ascii=False, indent=indent, separators=separators, allow_nan=False
    )
    return _ESCAPED.sub(lambda m: f"\\u{ord(m[0]):04x}", text)
