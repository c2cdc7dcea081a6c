"""README's sentence on control characters says exactly which ones a decoded
source loses: the C0 controls but tab, line feed and carriage return; DEL and
the C1 controls are kept (no store refuses them, and U+0085 is a line break)."""

from __future__ import annotations

import re
from pathlib import Path

from jw_rag.ingest._source import clean_controls, decode_text

README = Path(__file__).resolve().parents[2] / "README.md"


def _sentence() -> str:
    text = " ".join(README.read_text(encoding="utf-8").split())
    found = re.search(r"the C0 control characters [^;]*;", text)
    assert found, "README no longer says which control characters are removed"
    return found[0]


def test_readme_names_the_removed_and_the_kept_controls() -> None:
    said = _sentence()
    assert "(U+0000–U+001F) other than tab, line feed and carriage return" in said
    assert "NUL, vertical tab and form feed included" in said
    assert "DEL (U+007F) and the C1 controls (U+0080–U+009F" in said and "are kept" in said


def test_the_code_removes_what_the_readme_says_and_keeps_the_rest() -> None:
    removed = {c for c in map(chr, range(0xA0)) if clean_controls(f"a{c}b") == "ab"}
    assert removed == {chr(c) for c in range(0x20)} - {"\t", "\n", "\r"}
    for c in ["\x7f", *map(chr, range(0x80, 0xA0))]:
        assert decode_text(f"a{c}b".encode(), "x.txt") == f"a{c}b"
