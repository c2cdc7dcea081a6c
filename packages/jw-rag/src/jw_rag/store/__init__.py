"""Stores: persistent indexes of chunks with dense, BM25 and hybrid search.

``open_store()`` picks the backend from a location string; ``SQLiteStore`` is
the embedded default (one file, no server).
"""

from jw_rag.store._base import before_writes, check_search
from jw_rag.store._batch import delete_sources, replace_sources, write_one_at_a_time
from jw_rag.store._filters import FILTER_KEYS
from jw_rag.store._fusion import RRF_K, reciprocal_rank_fusion
from jw_rag.store._open import check_store, open_store
from jw_rag.store._pooling import embed_chunks
from jw_rag.store._rows import embed_text
from jw_rag.store.protocol import (
    DeletesSources,
    ListsSourcesBelow,
    SearchHit,
    SearchMode,
    SourceWrite,
    Store,
)
from jw_rag.store.sqlite_store import SQLiteStore

__all__ = [
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
