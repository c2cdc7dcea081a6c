"""Exact dense search: every stored vector in one float32 matrix, scored by a
dot product (vectors are L2-normalised, so this is cosine similarity)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["VectorMatrix", "top_k"]


@dataclass(frozen=True, slots=True)
class VectorMatrix:
    """Vectors of one model, row ``i`` belonging to chunk rowid ``rowids[i]``
    (ascending), as of the store's change counter ``changes``."""

    rowids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    changes: int

    @classmethod
    def from_rows(cls, rows: list[tuple[int, bytes]], dim: int, changes: int) -> VectorMatrix:
        rowids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
        return cls(rowids, matrix.reshape(len(rows), dim), changes)

    def positions(self, rowids: npt.NDArray[np.int64]) -> npt.NDArray[np.intp]:
        """Matrix rows of the given chunk rowids (rowids without a vector are dropped)."""
        pos = np.searchsorted(self.rowids, rowids)
        inside = pos < len(self.rowids)
        pos, wanted = pos[inside], rowids[inside]
        return pos[self.rowids[pos] == wanted]


def top_k(
    vm: VectorMatrix,
    query: npt.NDArray[np.float32],
    k: int,
    positions: npt.NDArray[np.intp] | None = None,
) -> list[tuple[int, float]]:
    """The ``k`` best (rowid, cosine) pairs, best first, optionally only among
    matrix rows ``positions``. Uses a partial sort: O(n) rather than O(n log n)."""
    if k <= 0 or len(vm.rowids) == 0:
        return []
    if positions is None:
        scores = vm.matrix @ query
        candidates = vm.rowids
    else:
        if len(positions) == 0:
            return []
        scores = vm.matrix[positions] @ query
        candidates = vm.rowids[positions]
    if k < len(scores):
        best = np.argpartition(-scores, k - 1)[:k]
    else:
        best = np.arange(len(scores))
    # Ties broken by rowid so equal scores come back in a stable order.
    order = np.lexsort((candidates[best], -scores[best]))
    best = best[order]
    return [(int(candidates[i]), float(scores[i])) for i in best]
