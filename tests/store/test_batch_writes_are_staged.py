"""A write of several sources is embedded a batch at a time before the write
begins (batches past the first wait in one anonymous file) and written in one
transaction: every source whole or none, on both stores, whatever the number of
sources and batches."""

from __future__ import annotations

import contextlib
import os
import random
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.model import Chunk
from jw_rag.store import SourceWrite, Store, before_writes
from jw_rag.store._rows import ChunkRow
from jw_rag.store._staging import STAGE_BATCH, Staged
from tests.store.store_helpers import CountingEmbedder

SOURCES = ("a", "b", "c", "d")
PER_SOURCE = 600  # three stage batches: 256, 256, 88
StoreFactory = Callable[..., Store]


def _chunks(source: str, n: int, *, fail_at: int | None = None, text: str = "") -> Iterator[Chunk]:
    """``n`` chunks of ``source``, made as they are read (a generator)."""
    for i in range(n):
        if i == fail_at:
            raise RuntimeError(f"the chunker broke at {source}:{i}")
        yield Chunk(f"{source}:{i}", f"{source} lamp {i} {text}", source, {"chunk_index": i})


class Recording(CountingEmbedder):
    def __init__(self, events: list[str]) -> None:
        super().__init__(dim=16)
        self.events = events

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.events.append(f"embed {len(texts)}")
        return super().embed(texts)


def _sources(store: object) -> dict[str, int]:
    return dict(store.stats()["per_source"])  # type: ignore[attr-defined]


def _open_files(folder: Path) -> list[str]:
    """This process's open files in ``folder`` (a spill shows as ``/folder/#123
    (deleted)``); sockets and pipes, which a store's pool may open meanwhile,
    are not counted."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # an fd closed while listed
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith(f"{folder}/"):
                found.append(target)
    return found


def test_sources_past_one_batch_are_embedded_first_and_written_whole(
    store_factory: StoreFactory,
) -> None:
    events: list[str] = []
    store = store_factory(Recording(events))
    assert store.replace_source("kept", _chunks("kept", 3))
    events.clear()

    def write_begins() -> None:
        events.append("write begins")

    def writes() -> list[SourceWrite]:
        return [SourceWrite(s, _chunks(s, PER_SOURCE), f"hash-{s}") for s in reversed(SOURCES)]

    # A failure inside the transaction, at the third source written: none is kept.
    refuse = store._record_source  # type: ignore[attr-defined]

    def record(conn: object, source_id: str, *args: object) -> None:
        if source_id == "c":
            raise RuntimeError("refused at c")
        refuse(conn, source_id, *args)

    store._record_source = record  # type: ignore[attr-defined]
    with before_writes(write_begins), pytest.raises(RuntimeError, match="refused at c"):
        store.replace_sources(writes())  # type: ignore[attr-defined]
    assert events == ["embed 256", "embed 256", "embed 88"] * 4 + ["write begins"]
    assert _sources(store) == {"kept": 3}
    del store._record_source  # type: ignore[attr-defined]

    assert store.replace_sources(writes()) == [True] * 4  # type: ignore[attr-defined]
    assert _sources(store) == {"kept": 3} | {s: PER_SOURCE for s in SOURCES}
    ids = [f"{s}:{i}" for s in SOURCES for i in (0, 255, 256, 511, 512, PER_SOURCE - 1)]
    assert [c.text for c in store.get(ids)] == [f"{i.replace(':', ' lamp ')} " for i in ids]
    stored = store.vectors(ids)
    for cid, text in zip(ids, (c.text for c in store.get(ids)), strict=True):
        expected = Recording([]).embed([text])[0]
        assert np.allclose(stored[cid], expected / np.linalg.norm(expected), atol=1e-5), cid
    assert store.replace_sources(writes()) == [False] * 4  # type: ignore[attr-defined]


def test_a_source_failing_while_it_is_read_leaves_no_file_and_writes_nothing(
    store_factory: StoreFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_factory()
    assert store.replace_source("kept", _chunks("kept", 3))
    spill_folder = tmp_path / "spills"  # this test's own: other processes write to /tmp
    spill_folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill_folder))
    writes = [SourceWrite("a", _chunks("a", PER_SOURCE)), SourceWrite("b", _chunks("b", 300)),
              SourceWrite("c", _chunks("c", PER_SOURCE, fail_at=400))]  # fmt: skip
    with pytest.raises(RuntimeError, match="broke at c:400"):
        store.replace_sources(writes)  # type: ignore[attr-defined]
    assert _sources(store) == {"kept": 3}
    assert _open_files(spill_folder) == []  # the spill is closed
    assert os.listdir(spill_folder) == []  # and it never had a name


def test_one_id_in_two_sources_is_refused_when_either_is_unchanged(
    store_factory: StoreFactory,
) -> None:
    from jw_rag.errors import ConfigError

    store = store_factory()
    assert store.replace_source("a", _chunks("a", 2), content_hash="ha")
    stray = Chunk("a:1", "b's chunk under a's id", "b")
    writes = [SourceWrite("a", _chunks("a", 2), "ha"), SourceWrite("b", iter([stray]), "hb")]
    with pytest.raises(ConfigError, match="chunk id 'a:1' is in sources 'a' and 'b'"):
        store.replace_sources(writes)  # type: ignore[attr-defined]
    assert _sources(store) == {"a": 2} and store.get(["a:1"])[0].source_id == "a"


def _embed(rows: list[ChunkRow]) -> np.ndarray:
    return np.array([[len(r.chunk.text), r.ord] for r in rows], dtype=np.float32)


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(0, 3 * STAGE_BATCH), max_size=6), seed=st.integers(0, 2**16))
def test_staged_parts_come_back_whole_in_any_order_from_one_file(
    sizes: list[int], seed: int
) -> None:
    opened: list[object] = []
    original = tempfile.TemporaryFile

    def counting(*args: object, **kwargs: object) -> object:
        opened.append(original(*args, **kwargs))  # type: ignore[arg-type]
        return opened[-1]

    tempfile.TemporaryFile = counting  # type: ignore[assignment]
    try:
        with Staged() as staged:
            for n, size in enumerate(sizes):
                assert staged.stage(f"s{n}", _chunks(f"s{n}", size), _embed) == size
            order = list(range(len(sizes)))
            random.Random(seed).shuffle(order)
            for n in order:
                got = [(r.chunk.id, r.ord, tuple(v)) for rows, vectors in staged.batches(f"s{n}")
                       for r, v in zip(rows, vectors, strict=True)]  # fmt: skip
                want = [(f"s{n}:{i}", i, (float(len(f"s{n} lamp {i} ")), float(i)))
                        for i in range(sizes[n])]  # fmt: skip
                assert got == want
                assert staged.rows(f"s{n}") == sizes[n]
    finally:
        tempfile.TemporaryFile = original  # type: ignore[assignment]
    batches = sum(-(-size // STAGE_BATCH) for size in sizes)
    assert len(opened) == (1 if batches > 1 else 0)  # one file for every source
    assert all(f.closed for f in opened)  # type: ignore[attr-defined]


def test_a_write_of_many_sources_holds_about_one_batch(tmp_path: Path) -> None:
    """40 sources of 300 chunks of 2 KB (24 MB of text, made as they are read)
    staged in well under what holding them, or the first batch of each source,
    would take."""
    text = "x" * 2000
    tracemalloc.start()
    try:
        with Staged() as staged:
            for n in range(40):
                staged.stage(f"s{n}", _chunks(f"s{n}", 300, text=text), _embed)
            _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    one_batch = STAGE_BATCH * 2000
    assert peak < 8 * one_batch, f"{peak / 1e6:.1f} MB staged at once"
