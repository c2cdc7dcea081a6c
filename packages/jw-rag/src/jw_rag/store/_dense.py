"""Dense search over a store's vectors (L2-normalised, so a dot product is
the cosine similarity).

A store with fewer than ``exact_below`` vectors keeps them all in one float32
matrix and scores every one (exact search). A larger store keeps two compact
codes per vector instead, about 0.28 of the float32 matrix's memory (576 MB
rather than 2 GB for a million 512-dimensional vectors), and searches in three
stages:

1. every vector's sign code (one bit per dimension of the vector minus the
   mean vector) is compared with the query's by Hamming distance (XOR and
   popcount over 64-bit words), keeping the best :func:`first_pass` of them;
2. those are scored by their int8 code (each dimension scaled by its largest
   magnitude) against the float query, which matches the float dot product
   to within about 1%, keeping the best :func:`second_pass`;
3. their float32 vectors are read from the store and scored exactly, so every
   returned score is the exact cosine and only the membership of the top
   ``k`` can differ from exact search (a vector lost in stage 1).

``benchmarks/store_scale.py`` measures recall@10 against exact search.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_EXACT_BELOW",
    "DenseIndex",
    "VectorBlocks",
    "first_pass",
    "second_pass",
    "top_k",
]

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
#: ``(rowids, vectors)`` blocks in ascending rowid order; called again for a second pass.
VectorBlocks = Callable[[], Iterable[tuple[I64, F32]]]
#: Reads the float32 vectors of some rowids (in any order) for the exact last stage.
FetchVectors = Callable[[I64], tuple[I64, F32]]

#: Below this many vectors, dense search scores the float32 matrix (exact).
DEFAULT_EXACT_BELOW = 50_000
_BLOCK = 65_536  # rows per step of the Hamming scan: its temporaries stay in cache


def first_pass(n: int, k: int) -> int:
    """Vectors kept by the Hamming stage: 0.5% of the store, at least 2,000 and 8k."""
    return max(2_000, n // 200, 8 * k)


def second_pass(k: int) -> int:
    """Vectors kept by the int8 stage and scored exactly."""
    return 2 * k + 50


@dataclass(frozen=True, slots=True)
class DenseIndex:
    """Vectors of one model, row ``i`` belonging to chunk rowid ``rowids[i]``
    (ascending), as of the store's change counter ``changes``: either the
    float32 ``matrix`` (exact) or the sign codes ``bits`` (one row of 64-bit
    words per 64 dimensions, one column per vector), the int8 ``codes``
    with their per-dimension ``scale``, and the ``mean`` the signs are taken
    around."""

    rowids: I64
    changes: int
    matrix: F32 | None = None
    mean: F32 | None = None
    bits: npt.NDArray[np.uint64] | None = None
    codes: npt.NDArray[np.int8] | None = None
    scale: F32 | None = None

    @property
    def nbytes(self) -> int:
        """Memory the index holds."""
        parts = (self.rowids, self.matrix, self.mean, self.bits, self.codes, self.scale)
        return sum(p.nbytes for p in parts if p is not None)

    @classmethod
    def build(
        cls, blocks: VectorBlocks, dim: int, changes: int, exact_below: int = DEFAULT_EXACT_BELOW
    ) -> DenseIndex | None:
        """The index of every vector ``blocks()`` yields (``None`` when there
        are none). One pass counts the vectors and finds the mean and each
        dimension's largest magnitude, keeping the floats while there are
        fewer than ``exact_below``; a second pass, only for larger stores,
        encodes them: at no point are all float32 vectors in memory."""
        kept_ids: list[I64] = []
        kept: list[F32] | None = []
        n = 0
        total = np.zeros(dim, dtype=np.float64)
        largest = np.zeros(dim, dtype=np.float32)
        for ids, vectors in blocks():
            n += len(ids)
            total += vectors.sum(axis=0, dtype=np.float64)
            np.maximum(largest, np.abs(vectors).max(axis=0, initial=0), out=largest)
            kept_ids.append(ids)
            if kept is not None:
                kept.append(vectors)
                if n >= exact_below:
                    kept = None  # too many for the exact matrix: encode in a second pass
        if n == 0:
            return None
        rowids = np.concatenate(kept_ids)
        if kept is not None:
            return cls(rowids, changes, matrix=np.concatenate(kept))
        mean = (total / n).astype(np.float32)
        scale = np.where(largest > 0, largest / 127, 1).astype(np.float32)
        words = -(-dim // 64)
        bits = np.empty((words, n), dtype=np.uint64)
        codes = np.empty((n, dim), dtype=np.int8)
        at = 0
        for _, vectors in blocks():
            end = at + len(vectors)
            bits[:, at:end] = sign_words(vectors - mean).T
            codes[at:end] = np.rint(vectors / scale)
            at = end
        if at != n:  # the store changed between the passes (cannot happen inside one snapshot)
            raise RuntimeError("the stored vectors changed while the dense index was built")
        return cls(rowids, changes, mean=mean, bits=bits, codes=codes, scale=scale)

    def positions(self, rowids: I64) -> npt.NDArray[np.intp]:
        """Index rows of the given chunk rowids (rowids without a vector are dropped)."""
        pos = np.searchsorted(self.rowids, rowids)
        inside = pos < len(self.rowids)
        pos, wanted = pos[inside], rowids[inside]
        return pos[self.rowids[pos] == wanted]


def sign_words(vectors: F32) -> npt.NDArray[np.uint64]:
    """One bit per dimension (set where positive), packed into 64-bit words per row."""
    dim = vectors.shape[1]
    padded = np.zeros((len(vectors), -(-dim // 64) * 64), dtype=bool)
    padded[:, :dim] = vectors > 0
    return np.packbits(padded, axis=1).view(np.uint64)


def _hamming(bits: npt.NDArray[np.uint64], query: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint16]:
    """Hamming distance of every column of ``bits`` to ``query``, in one
    thread per usable core for large inputs (numpy releases the GIL)."""
    n = bits.shape[1]
    out = np.zeros(n, dtype=np.uint16)
    parts = min(_threads(), n // _BLOCK)
    if parts > 1:
        step = -(-n // parts)
        list(
            _pool().map(
                lambda s: _hamming_into(bits[:, s : s + step], query, out[s : s + step]),
                range(0, n, step),
            )
        )
    else:
        _hamming_into(bits, query, out)
    return out


def _threads() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # platforms without sched_getaffinity
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_threads(), thread_name_prefix="jw-dense")


if hasattr(os, "register_at_fork"):  # a forked child has none of the pool's threads: a new pool
    os.register_at_fork(after_in_child=_pool.cache_clear)


def _hamming_into(
    bits: npt.NDArray[np.uint64], query: npt.NDArray[np.uint64], out: npt.NDArray[np.uint16]
) -> None:
    n = bits.shape[1]
    if n == 0:
        return
    step = min(n, _BLOCK)
    xor = np.empty(step, dtype=np.uint64)
    count = np.empty(step, dtype=np.uint8)
    for start in range(0, n, step):
        end = min(n, start + step)
        m = end - start
        acc = out[start:end]
        for w in range(bits.shape[0]):
            np.bitwise_xor(bits[w, start:end], query[w], out=xor[:m])
            np.bitwise_count(xor[:m], out=count[:m])
            np.add(acc, count[:m], out=acc, casting="unsafe")


def _smallest(values: npt.NDArray[np.generic], keep: int) -> npt.NDArray[np.intp]:
    """Positions of the ``keep`` smallest ``values``, ties at the cut taken in
    position order (so the choice is deterministic)."""
    if keep >= len(values):
        return np.arange(len(values))
    cut = np.partition(values, keep - 1)[keep - 1]
    below = np.flatnonzero(values < cut)
    at = np.flatnonzero(values == cut)[: keep - len(below)]
    return np.sort(np.concatenate([below, at]))


def _scores(matrix: F32, query: F32) -> F32:
    """Dot products, computed the same way on every path, so the exact stage
    of a quantized search orders near-ties as the exact matrix does."""
    return matrix @ query


def _ranked(rowids: I64, scores: npt.NDArray[np.floating], k: int) -> list[tuple[int, float]]:
    """The ``k`` best ``(rowid, score)`` pairs, ties broken by rowid."""
    if k < len(scores):
        best = np.argpartition(-scores, k - 1)[:k]
    else:
        best = np.arange(len(scores))
    best = best[np.lexsort((rowids[best], -scores[best]))]
    return [(int(rowids[i]), float(scores[i])) for i in best]


def top_k(
    index: DenseIndex,
    query: F32,
    k: int,
    positions: npt.NDArray[np.intp] | None = None,
    fetch: FetchVectors | None = None,
) -> list[tuple[int, float]]:
    """The ``k`` best ``(rowid, cosine)`` pairs, best first, ties broken by
    rowid, optionally only among index rows ``positions``. ``fetch`` reads
    float32 vectors for the last stage of a quantized index."""
    if k <= 0 or len(index.rowids) == 0 or (positions is not None and len(positions) == 0):
        return []
    if index.matrix is not None:
        matrix = index.matrix if positions is None else index.matrix[positions]
        rowids = index.rowids if positions is None else index.rowids[positions]
        return _ranked(rowids, _scores(matrix, query), k)
    assert index.bits is not None and index.codes is not None and index.scale is not None
    assert index.mean is not None and fetch is not None
    rows = np.arange(len(index.rowids)) if positions is None else positions
    keep = first_pass(len(index.rowids), k)
    if len(rows) > keep:
        bits = index.bits if positions is None else index.bits[:, rows]
        qbits = sign_words((query - index.mean)[None, :])[0]
        rows = rows[_smallest(_hamming(bits, qbits), keep)]
    keep = second_pass(k)
    if len(rows) > keep:
        approx = np.einsum("ij,j->i", index.codes[rows], query * index.scale)
        rows = rows[_smallest(-approx, keep)]
    ids, vectors = fetch(index.rowids[rows])
    return _ranked(ids, _scores(vectors, query), k)
