"""The README's "where a new source kind, chunker or store method goes"
section names files and names that exist, so it cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

import jw_rag.chunkers as chunkers
import jw_rag.chunkers.base as base
import jw_rag.ingest as ingest
import jw_rag.ingest.kinds as kinds
import jw_rag.store.protocol as protocol

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "packages" / "jw-rag" / "src"


def _section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("### Where a new source kind, chunker or store method goes")
    return text[start : text.index("\n## ", start)]


def test_every_file_the_section_names_exists() -> None:
    paths = re.findall(r"`((?:jw_rag|tests)/[\w/.]+)`", _section())
    assert len(paths) >= 7
    for path in paths:
        where = REPO / path if path.startswith("tests/") else SRC / path
        assert where.exists(), f"README names {path}, which does not exist"


def test_the_names_it_gives_are_the_code_s() -> None:
    section = _section()
    assert "`SOURCE_KINDS`" in section and hasattr(kinds, "SOURCE_KINDS")
    assert "`SourceKind`" in section and hasattr(kinds, "SourceKind")
    assert "`jw_rag.ingest.ingest(store, kind, ...)`" in section and callable(ingest.ingest)
    assert "`ChunkerBase`" in section and chunkers.ChunkerBase is base.ChunkerBase
    assert "`_pieces_for`" in section and hasattr(base.ChunkerBase, "_pieces_for")
    assert "`check_sizes`" in section and callable(base.check_sizes)
    assert "`Store` protocol" in section and hasattr(protocol, "Store")
    source = (SRC / "jw_rag" / "chunkers" / "__init__.py").read_text(encoding="utf-8")
    assert 'register_chunker("paragraph"' in source


def test_store_imports_nothing_from_retrieval() -> None:
    for path in sorted((SRC / "jw_rag" / "store").glob("*.py")):
        imports = re.findall(r"^\s*(?:from|import) (jw_rag\.[\w.]+)", path.read_text("utf-8"), re.M)
        for module in imports:
            assert not module.startswith(("jw_rag.retrieve", "jw_rag.windows", "jw_rag.units")), (
                f"{path.name} imports {module}"
            )
