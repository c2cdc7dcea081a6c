"""``SentenceCursor`` is jw-core's public name for the lazy sentence finder the
chunkers use to split long text; no package reaches into another's private names."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import jw_core
from jw_core import SentenceCursor, split_sentences
from jw_core import sentences as sent_mod

PACKAGES = Path(__file__).resolve().parents[2] / "packages"


def test_cursor_is_public_and_documented() -> None:
    assert "SentenceCursor" in jw_core.__all__
    assert "SentenceCursor" in sent_mod.__all__
    assert jw_core.SentenceCursor is sent_mod.SentenceCursor
    assert sent_mod._SentenceCursor is SentenceCursor  # the old name still works
    assert SentenceCursor.__doc__ and SentenceCursor.sentence_at.__doc__


def test_cursor_golden() -> None:
    text = "  One. Two here? Three!  "
    cursor = SentenceCursor(text)
    assert (cursor.first_start, cursor.tail_end) == (2, 23)
    assert cursor.sentence_at(0) == (None, 2, 6, 7)
    assert cursor.sentence_at(7) == (6, 7, 16, 17)
    assert cursor.sentence_at(20) == (16, 17, 23, None)


def test_cursor_on_empty_text() -> None:
    cursor = SentenceCursor("")
    assert (cursor.first_start, cursor.tail_end) == (0, 0)
    assert cursor.sentence_at(0) == (None, 0, 0, None)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["Dr. Smith came.", "It rained!", "Why?", "Mat. 5:3 says so."]),
                min_size=1, max_size=30))  # fmt: skip
def test_cursor_agrees_with_split_sentences(parts: list[str]) -> None:
    text = " ".join(parts)
    spans = split_sentences(text)
    cursor = SentenceCursor(text)
    for k, (a, b) in enumerate(spans):
        prev_end = spans[k - 1][1] if k else None
        nxt = spans[k + 1][0] if k + 1 < len(spans) else None
        assert cursor.sentence_at(b) == (prev_end, a, b, nxt)


def _private_cross_package_imports(root: Path = PACKAGES) -> list[str]:
    """``from jw_x... import _name`` (or of a ``_module``) in a package other than jw_x."""
    found = []
    for path in sorted(root.glob("*/src/*/**/*.py")):
        own = path.relative_to(root).parts[2]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            top = node.module.split(".")[0]
            if not top.startswith("jw_") or top == own:
                continue
            private_module = any(part.startswith("_") for part in node.module.split("."))
            private_name = any(alias.name.startswith("_") for alias in node.names)
            if private_module or private_name:
                found.append(f"{path.relative_to(root)}: from {node.module} import ...")
    return found


def test_chunkers_import_no_private_name_of_another_package() -> None:
    assert [f for f in _private_cross_package_imports() if "/chunkers/" in f] == []


def test_the_scan_sees_a_private_import(tmp_path: Path) -> None:
    """The scan is not vacuous: a private import from another package is reported."""
    fake = tmp_path / "jw-x" / "src" / "jw_x" / "chunkers" / "m.py"
    fake.parent.mkdir(parents=True)
    fake.write_text(
        "from jw_core.sentences import _SentenceCursor\nfrom jw_x._own import y\n",
        encoding="utf-8",
    )
    assert _private_cross_package_imports(tmp_path) == [
        "jw-x/src/jw_x/chunkers/m.py: from jw_core.sentences import ..."
    ]
