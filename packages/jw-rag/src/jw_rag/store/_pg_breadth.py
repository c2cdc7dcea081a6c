"""What the server's pgvector can do, how wide an HNSW search must be, and
which HNSW graph a store builds for its size.

HNSW finds a smaller share of the exact top ``k`` as the table grows at a
fixed search breadth (``hnsw.ef_search``): on USE embeddings of real text,
pgvector's default breadth of 40 found 0.93 of the exact top 10 at 20,000
chunks and 0.70 at 100,000. :func:`auto_breadth` widens the search with ``k`` and with
the table's size, as measured by ``benchmarks/store_scale.py`` (the constants
below come from those runs; docs/postgres.md has the table).

pgvector 0.8 added iterative index scans: a filtered search keeps walking the
graph until enough rows pass the filter, instead of filtering a fixed number
of candidates. Older servers get the widest breadth for filtered searches and
an exact fallback when the filter left fewer than ``k`` rows.

The breadth stops at 1,000, and at a million chunks pgvector's default graph
(``m`` 16, ``ef_construction`` 64) found only 0.88 of the exact top 10 there;
through the store, ``m`` 32 found 0.936 and ``m`` 48 (``ef_construction``
200 both) 0.956 (docs/postgres.md).
:func:`graph_for` gives a store that was not told its graph the default one
while it is small and the larger one from :data:`LARGE_GRAPH_FROM` chunks on,
chosen whenever the index is built in one pass.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from jw_rag.errors import JwRagWarning, StoreError

__all__ = [
    "DEFAULT_GRAPH",
    "EF_SEARCH_MAX",
    "LARGE_GRAPH",
    "LARGE_GRAPH_FROM",
    "HNSW_SINCE",
    "ITERATIVE_SINCE",
    "PgvectorFeatures",
    "auto_breadth",
    "graph_for",
    "pgvector_features",
]

#: pgvector's upper bound for ``hnsw.ef_search``.
EF_SEARCH_MAX = 1000
#: The first pgvector with HNSW indexes, and the first with iterative index scans.
HNSW_SINCE = (0, 5, 0)
ITERATIVE_SINCE = (0, 8, 0)
#: The breadth for tables of up to ``_SMALL`` rows, growing as the table's
#: size to the power ``_GROWTH`` beyond; never less than ``_PER_K`` times ``k``.
#: Fitted to the breadth that reached recall@10 0.95 on real embeddings with
#: pgvector's default graph (m 16, ef_construction 64): about 60 at 20,000
#: rows and 230 at 100,000; at a million rows even the cap (1,000) falls short.
_BASE = 40
_SMALL = 10_000
_GROWTH = 0.76
_PER_K = 4

#: pgvector's own HNSW graph, ``(m, ef_construction)``: small stores build it.
DEFAULT_GRAPH = (16, 64)
#: The graph that reached recall@10 0.95 at a million chunks through the
#: store (0.956 at breadth 1,000, dense p50 17.5 ms on an idle machine; about
#: 1,000 s to build, 2.8 GB of index). ``m`` 32 with the same
#: ``ef_construction`` found 0.936 there.
LARGE_GRAPH = (48, 200)
#: From this many chunks on, a store that chooses its own graph builds
#: :data:`LARGE_GRAPH`. The default graph reached 0.95 at 100,000 chunks
#: (breadth 231) and fell to 0.88 at a million at the widest breadth; this
#: switches well before the breadth's cap (about 690,000 chunks), where the
#: default graph has no wider search left, at a build of a few minutes.
LARGE_GRAPH_FROM = 300_000

_warned: set[tuple[str, str]] = set()


@dataclass(frozen=True, slots=True)
class PgvectorFeatures:
    """The installed pgvector version and whether it scans HNSW iteratively."""

    version: str
    iterative_scan: bool


def _parse(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def _text(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def pgvector_features(version: str, newest: str | None, where: str) -> PgvectorFeatures:
    """Check the pgvector ``version`` installed in the database at ``where``
    (``newest``: the version the server could update it to). Raises when it
    has no HNSW index; warns once per location when it lacks iterative scans."""
    have = _parse(version)
    update = (
        f"run ALTER EXTENSION vector UPDATE (the server has {newest})"
        if newest and _parse(newest) > have
        else "install a newer pgvector on the server and run ALTER EXTENSION vector UPDATE"
    )
    if have < HNSW_SINCE:
        raise StoreError(
            f"pgvector {version} at {where} has no HNSW index (pgvector {_text(HNSW_SINCE)} "
            f"or later): {update}"
        )
    iterative = have >= ITERATIVE_SINCE
    server = where.rsplit("/", 1)[0]  # once per server and version, not per database
    if not iterative and (server, version) not in _warned:
        _warned.add((server, version))
        warnings.warn(
            f"pgvector {version} at {where} lacks iterative index scans (pgvector "
            f"{_text(ITERATIVE_SINCE)}): filtered dense searches scan HNSW at breadth "
            f"{EF_SEARCH_MAX} and fall back to exact search; {update} for faster ones",
            JwRagWarning,
            stacklevel=3,
        )
    return PgvectorFeatures(version, iterative)


def auto_breadth(rows: float, k: int) -> int:
    """The HNSW search breadth for ``k`` results from a table of about
    ``rows`` chunks: ``_BASE`` up to ``_SMALL`` rows, times
    ``(rows / _SMALL) ** _GROWTH`` beyond, at least ``_PER_K * k``; capped at
    pgvector's maximum."""
    breadth = max(_BASE * (max(rows, _SMALL) / _SMALL) ** _GROWTH, _PER_K * k)
    return min(EF_SEARCH_MAX, math.ceil(breadth))


def graph_for(rows: int) -> tuple[int, int]:
    """The HNSW ``(m, ef_construction)`` for a table of ``rows`` chunks."""
    return LARGE_GRAPH if rows >= LARGE_GRAPH_FROM else DEFAULT_GRAPH
