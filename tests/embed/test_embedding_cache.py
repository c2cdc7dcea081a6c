"""EmbeddingCache: keys, round trips, two writing processes, corrupt files."""

from __future__ import annotations

import multiprocessing
import sqlite3
import warnings

import numpy as np
import pytest

from jw_rag import config
from jw_rag.embed import CachedEmbedder, EmbeddingCache, FakeEmbedder
from jw_rag.embed.cache import text_key
from jw_rag.errors import ConfigError


def test_default_path_is_in_cache_dir():
    assert EmbeddingCache().path == config.cache_dir() / "embeddings.sqlite"
    assert not EmbeddingCache().path.exists()  # opened lazily


def test_round_trip_by_model_and_position(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    vecs = FakeEmbedder(8).embed(["a", "b"])
    cache.put_many("fake-8", ["a", "b"], vecs)
    got = cache.get_many("fake-8", ["b", "zzz", "a", "b"])
    assert sorted(got) == [0, 2, 3]
    np.testing.assert_array_equal(got[0], vecs[1])
    np.testing.assert_array_equal(got[2], vecs[0])
    np.testing.assert_array_equal(got[3], vecs[1])
    assert got[0].dtype == np.float32
    assert cache.get_many("other-model", ["a"]) == {}
    assert cache.get_many("fake-8", []) == {}
    assert cache.count() == 2 and cache.count("fake-8") == 2 and cache.count("x") == 0


def test_schema_and_pragmas(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = EmbeddingCache(path)
    cache.put_many("m", ["héllo"], np.ones((1, 3), dtype=np.float32))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    row = conn.execute(
        "SELECT model_id, text_sha256, dim, length(vector) FROM embeddings"
    ).fetchone()
    assert row == ("m", text_key("héllo"), 3, 12)
    assert len(text_key("héllo")) == 32


def test_insert_or_ignore_keeps_first_vector(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    cache.put_many("m", ["t"], np.array([[1, 0]], dtype=np.float32))
    cache.put_many("m", ["t"], np.array([[0, 1]], dtype=np.float32))
    np.testing.assert_array_equal(cache.get_many("m", ["t"])[0], [1, 0])


def test_many_keys_beyond_sql_parameter_limit(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    texts = [f"text {i}" for i in range(1234)]
    vecs = FakeEmbedder(4).embed(texts)
    cache.put_many("m", texts, vecs)
    got = cache.get_many("m", texts)
    assert len(got) == 1234
    np.testing.assert_array_equal(np.stack([got[i] for i in range(1234)]), vecs)


def test_put_many_rejects_mismatched_rows(tmp_path):
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    with pytest.raises(ConfigError, match="one row per text"):
        cache.put_many("m", ["a", "b"], np.zeros((1, 4), dtype=np.float32))


def _writer(path: str, start: int, go: multiprocessing.synchronize.Event) -> None:
    cache = EmbeddingCache(path)
    fake = FakeEmbedder(16)
    go.wait(10)
    for batch in range(start, start + 300, 10):
        texts = [f"paragraph {i}" for i in range(batch, batch + 10)]
        cache.put_many(fake.model_id, texts, fake.embed(texts))


def test_two_processes_writing_overlapping_keys(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    ctx = multiprocessing.get_context("fork")
    go = ctx.Event()
    procs = [ctx.Process(target=_writer, args=(path, start, go)) for start in (0, 150)]
    for p in procs:
        p.start()
    go.set()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    texts = [f"paragraph {i}" for i in range(450)]
    cache = EmbeddingCache(path)
    got = cache.get_many("fake-16", texts)
    assert len(got) == 450 and cache.count() == 450
    np.testing.assert_allclose(
        np.stack([got[i] for i in range(450)]), FakeEmbedder(16).embed(texts), rtol=0, atol=0
    )


def test_corrupt_file_is_moved_aside_and_rebuilt(tmp_path):
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path)
    cache.put_many("fake-8", ["old"], FakeEmbedder(8).embed(["old"]))
    cache.close()
    path.write_bytes(b"this is not a database at all " * 200)

    fake = FakeEmbedder(8)
    embedder = CachedEmbedder(fake, EmbeddingCache(path))
    with pytest.warns(
        RuntimeWarning, match=r"unreadable.*moved it to embeddings\.sqlite\.corrupt-"
    ):
        vecs = embedder.embed(["old", "new"])
    np.testing.assert_array_equal(vecs, fake.embed(["old", "new"]))
    aside = list(tmp_path.glob("embeddings.sqlite.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
    assert (embedder.hits, embedder.misses) == (0, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert EmbeddingCache(path).count() == 2


def test_corruption_found_after_opening_is_repaired(tmp_path):
    path = tmp_path / "embeddings.sqlite"
    cache = EmbeddingCache(path)
    cache.put_many("m", ["a"], np.ones((1, 2), dtype=np.float32))
    cache.close()
    other = EmbeddingCache(path)
    assert other.count() == 1  # its connection opened while the file was healthy
    path.write_bytes(b"\x00garbage" * 512)
    with pytest.warns(RuntimeWarning, match="unreadable"):
        assert other.get_many("m", ["a"]) == {}
    other.put_many("m", ["a"], np.ones((1, 2), dtype=np.float32))
    assert other.count() == 1
