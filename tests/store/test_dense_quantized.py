"""The SQLite store's quantized dense search (sign codes, then int8 codes,
then an exact re-rank) against exact search: invariants on random data,
planted neighbours that must always be found, filters, memory, and searches
while another connection writes."""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.errors import ConfigError
from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore
from jw_rag.store._dense import DenseIndex, _hamming, first_pass, second_pass, sign_words, top_k
from tests.store.store_helpers import TableEmbedder


def _unit(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def _indexes(vectors: np.ndarray, seed: int) -> tuple[DenseIndex, DenseIndex, np.ndarray]:
    """The quantized and the exact index of ``vectors`` under sparse rowids."""
    rng = np.random.default_rng(seed)
    n, dim = vectors.shape
    rowids = np.sort(rng.choice(10 * n + 10, size=n, replace=False)).astype(np.int64)
    step = max(1, n // 3)  # several blocks, as the store reads them
    blocks = [(rowids[i : i + step], vectors[i : i + step]) for i in range(0, n, step)]
    quantized = DenseIndex.build(lambda: blocks, dim, changes=0, exact_below=0)
    exact = DenseIndex.build(lambda: blocks, dim, changes=0, exact_below=n + 1)
    assert quantized is not None and quantized.matrix is None and quantized.codes is not None
    assert exact is not None and exact.matrix is not None
    return quantized, exact, rowids


def _fetcher(rowids: np.ndarray, vectors: np.ndarray, seen: list[int]):  # noqa: ANN202
    where = {int(r): i for i, r in enumerate(rowids)}

    def fetch(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        seen.append(len(ids))
        shuffled = ids[::-1]  # the store returns rows in any order
        return shuffled, vectors[[where[int(r)] for r in shuffled]]

    return fetch


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 1500),
    st.sampled_from([1, 7, 64, 100, 200]),
    st.integers(0, 60),
    st.integers(0, 10_000),
)
def test_quantized_scores_are_exact_and_lose_at_most_the_int8_error(
    n: int, dim: int, k: int, seed: int
) -> None:
    """While the first pass keeps every vector, the only approximation is the
    int8 stage: each returned score is the exact cosine, the order is exact,
    and the k-th returned score is within twice the int8 error bound of the
    exact k-th score."""
    rng = np.random.default_rng(seed)
    vectors = _unit(rng.standard_normal((n, dim)))
    quantized, exact, rowids = _indexes(vectors, seed)
    query = _unit(rng.standard_normal((1, dim)))[0]
    seen: list[int] = []
    got = top_k(quantized, query, k, fetch=_fetcher(rowids, vectors, seen))
    want = top_k(exact, query, k)
    assert len(got) == len(want) == min(k, n)
    assert not seen or max(seen) <= max(second_pass(k), 0)
    scores = vectors @ query
    by_rowid = dict(zip(rowids.tolist(), scores.tolist(), strict=True))
    assert [s for _, s in got] == pytest.approx([by_rowid[r] for r, _ in got], abs=1e-6)
    assert got == sorted(got, key=lambda p: (-p[1], p[0]))
    assert len({r for r, _ in got}) == len(got)
    if got:
        assert quantized.scale is not None
        bound = float(np.abs(query) @ quantized.scale) / 2  # rounding error of one int8 score
        assert got[-1][1] >= want[-1][1] - 2 * bound - 1e-6


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2_500, 6_000),
    st.sampled_from([64, 128, 384]),
    st.integers(1, 30),
    st.integers(0, 10_000),
)
def test_planted_neighbours_are_always_found(n: int, dim: int, k: int, seed: int) -> None:
    """``k`` vectors near the query (cosine about 0.9) among random ones are
    exactly the quantized top k, whatever the first pass keeps."""
    rng = np.random.default_rng(seed)
    query = _unit(rng.standard_normal((1, dim)))[0]
    vectors = _unit(rng.standard_normal((n, dim)))
    planted = rng.choice(n, size=k, replace=False)
    vectors[planted] = _unit(query + 0.45 * _unit(rng.standard_normal((k, dim))))
    quantized, exact, rowids = _indexes(vectors, seed)
    got = top_k(quantized, query, k, fetch=_fetcher(rowids, vectors, []))
    assert [r for r, _ in got] == [r for r, _ in top_k(exact, query, k)]
    assert {r for r, _ in got} == set(rowids[planted].tolist())


def test_recall_on_clustered_vectors_at_forty_thousand() -> None:
    """Topic clusters (the shape of a library's embeddings): recall@10 of the
    quantized search against exact search, and the work done per query."""
    rng = np.random.default_rng(3)
    n, dim = 40_000, 128
    centres = _unit(rng.standard_normal((n // 50, dim)))
    vectors = _unit(centres[np.arange(n) // 50] + 0.9 * _unit(rng.standard_normal((n, dim))))
    quantized, exact, rowids = _indexes(vectors, 3)
    queries = _unit(vectors[rng.choice(n, 60)] + 0.8 * _unit(rng.standard_normal((60, dim))))
    seen: list[int] = []
    fetch = _fetcher(rowids, vectors, seen)
    found = [
        len(
            {r for r, _ in top_k(quantized, q, 10, fetch=fetch)}
            & {r for r, _ in top_k(exact, q, 10)}
        )
        for q in queries
    ]
    assert np.mean(found) / 10 >= 0.99
    assert max(seen) == second_pass(10) and first_pass(n, 10) == 2_000
    assert quantized.nbytes < 0.3 * exact.nbytes


def test_positions_restrict_every_stage() -> None:
    rng = np.random.default_rng(5)
    vectors = _unit(rng.standard_normal((5_000, 64)))
    quantized, exact, rowids = _indexes(vectors, 5)
    query = vectors[17]
    for size in (0, 1, 40, 3_000, 5_000):
        positions = np.sort(rng.choice(5_000, size=size, replace=False))
        got = top_k(quantized, query, 10, positions, _fetcher(rowids, vectors, []))
        assert {r for r, _ in got} <= set(rowids[positions].tolist())
        assert len(got) == min(10, size)
    assert top_k(quantized, query, 0, fetch=_fetcher(rowids, vectors, [])) == []


def test_hamming_over_many_blocks_and_threads_counts_every_differing_bit() -> None:
    rng = np.random.default_rng(9)
    signs = rng.standard_normal((300_001, 100)).astype(np.float32)  # 2 words, the last half-used
    bits = np.ascontiguousarray(sign_words(signs).T)
    query = sign_words(signs[:1])[0]
    want = ((signs > 0) != (signs[0] > 0)).sum(axis=1)
    assert np.array_equal(_hamming(bits, query), want)
    assert np.array_equal(_hamming(bits[:, :5], query), want[:5])  # below one block: one thread
    assert _hamming(bits[:, :0], query).shape == (0,)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_searches_with_its_own_threads() -> None:
    """The Hamming pass's thread pool does not survive a fork: a child that
    searches after its parent did gets a pool of its own instead of waiting
    forever on threads that are gone."""
    rng = np.random.default_rng(4)
    signs = rng.standard_normal((200_000, 64)).astype(np.float32)
    bits = np.ascontiguousarray(sign_words(signs).T)
    query = sign_words(signs[:1])[0]
    want = _hamming(bits, query)  # the parent's pool now exists
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply_async(_hamming, (bits, query)).get(timeout=120)
    assert np.array_equal(got, want)


# -- through the store ----------------------------------------------------------


def _library(n_sources: int, per_source: int, dim: int, seed: int) -> tuple[list[Chunk], dict]:
    rng = np.random.default_rng(seed)
    n = n_sources * per_source
    centres = rng.standard_normal((n // 20, dim))
    vectors = _unit(centres[np.arange(n) // 20] + rng.standard_normal((n, dim)))
    chunks = [
        Chunk(
            id=f"s{i // per_source}:{i}",
            text=f"text {i}",
            source_id=f"s{i // per_source}",
            metadata={"language": "en" if i % 3 else "es", "pages": [1 + i % 7]},
        )
        for i in range(n)
    ]
    table = {c.text: v for c, v in zip(chunks, vectors, strict=True)}
    for j in range(20):  # queries: perturbed stored vectors
        table[f"query {j}"] = vectors[j * 97 % n] + 0.5 * rng.standard_normal(dim)
    return chunks, table


def _ids(hits: Sequence) -> list[str]:
    return [h.chunk.id for h in hits]


def test_the_store_switches_to_codes_above_exact_below_and_filters_still_apply(
    tmp_path: Path,
) -> None:
    chunks, table = _library(3, 1_200, 96, 11)
    embedder = TableEmbedder(table)
    with (
        SQLiteStore(tmp_path / "q.sqlite", embedder, exact_below=1_000) as quantized,
        SQLiteStore(tmp_path / "e.sqlite", embedder) as exact,
    ):
        assert quantized.vector_memory == 0  # nothing built before the first search
        assert quantized.search("query 0") == [] and exact.search("query 0") == []  # empty
        for s in (quantized, exact):
            for src in ("s0", "s1", "s2"):
                s.replace_source(src, [c for c in chunks if c.source_id == src])
        overlap, total = 0, 0
        for j in range(20):
            q = f"query {j}"
            for filters in (None, {"source_id": "s1"}, {"language": "es"}, {"page": [2, 5]}):
                got = _ids(quantized.search(q, k=10, filters=filters))
                want = _ids(exact.search(q, k=10, filters=filters))
                assert len(got) == 10 and got[0] == want[0]
                overlap, total = overlap + len(set(got) & set(want)), total + 10
            got = quantized.search(q, k=10, filters={"source_id": "s2", "language": "es"})
            assert len(got) == 10 and all(
                h.chunk.source_id == "s2" and h.chunk.metadata["language"] == "es" for h in got
            )
        assert overlap / total >= 0.97
        assert quantized.search("query 1", filters={"source_id": "nowhere"}) == []
        assert quantized.search("query 1", filters={"source_id": []}) == []
        assert quantized.search("query 1", k=0) == []
        everything = quantized.search("query 2", k=10_000)  # k beyond the store: all, exact order
        assert _ids(everything) == _ids(exact.search("query 2", k=10_000))
        assert len(everything) == len(chunks)
        float_bytes = len(chunks) * 96 * 4
        assert 0 < quantized.vector_memory < float_bytes / 3
        assert exact.vector_memory >= float_bytes


def test_a_write_from_another_connection_is_seen_by_the_next_search(tmp_path: Path) -> None:
    chunks, table = _library(2, 1_000, 64, 2)
    table["needle"] = np.ones(64)
    table["query needle"] = np.ones(64) + 0.01
    path = tmp_path / "s.sqlite"
    with (
        SQLiteStore(path, TableEmbedder(table), exact_below=500) as reader,
        SQLiteStore(path, TableEmbedder(table), exact_below=500) as writer,
    ):
        writer.replace_source("s0", chunks[:1000])
        assert reader.search("query needle", k=1)[0].chunk.source_id == "s0"
        errors: list[BaseException] = []
        done = threading.Event()

        def search() -> None:
            try:
                while not done.is_set():
                    hits = reader.search("query 3", k=5, filters={"source_id": "s0"})
                    assert len(hits) == 5 and all(h.chunk.source_id == "s0" for h in hits)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=search) for _ in range(2)]
        for t in threads:
            t.start()
        writer.replace_source("s1", chunks[1000:])
        writer.add([Chunk(id="n:0", text="needle", source_id="n", metadata={})])
        done.set()
        for t in threads:
            t.join()
        assert not errors
        assert [h.chunk.id for h in reader.search("query needle", k=1)] == ["n:0"]
        assert reader.stats()["chunks"] == 2001


@pytest.mark.parametrize("bad", [-1, True, "5", 1.5])
def test_exact_below_is_checked(tmp_path: Path, bad: object) -> None:
    with pytest.raises(ConfigError, match="exact_below must be a non-negative integer"):
        SQLiteStore(tmp_path / "s.sqlite", exact_below=bad)  # type: ignore[arg-type]
