"""What the server's pgvector can do, and how wide an HNSW search must be.

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
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from jw_rag.errors import JwRagWarning, StoreError

__all__ = [
    "EF_SEARCH_MAX",
    "HNSW_SINCE",
    "ITERATIVE_SINCE",
    "PgvectorFeatures",
    "auto_breadth",
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
