"""Hostile input costs bounded memory and time: non-regular files, archive
bombs, endless or huge downloads, NaN vectors, a damaged store, absurd k and
window — each a one-line error, nothing stored."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import jw_rag.ingest._source as source
from jw_rag.chunkers import ParagraphChunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError, EmbeddingError, IngestError, StoreError
from jw_rag.ingest import ingest_article, ingest_text
from jw_rag.retrieve import retrieve
from jw_rag.store import SQLiteStore
from tests.robust.hostile_server import Handler


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_a_fifo_and_a_device_are_refused_without_reading(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)  # opening it for reading would block forever
    started = time.monotonic()
    with pytest.raises(IngestError) as info:
        ingest_text(store, fifo)
    assert "not a regular file" in _one_line(info.value)
    with pytest.raises(IngestError, match="not a regular file"):
        ingest_text(store, "/dev/zero")
    assert time.monotonic() - started < 5
    assert store.stats()["chunks"] == 0


def _bomb_epub(path: Path, members: int, mib: int) -> Path:
    from tests.robust.hostile_files import epub_bytes

    path.write_bytes(epub_bytes())
    block = b"\0" * (1024 * 1024)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as zf:
        for i in range(members):
            with zf.open(f"big{i}.xhtml", "w", force_zip64=True) as fh:
                for _ in range(mib):
                    fh.write(block)
    return path


def test_an_archive_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    bomb = _bomb_epub(tmp_path / "bomb.epub", members=2, mib=400)
    assert bomb.stat().st_size < 5 * 1024 * 1024
    script = textwrap.dedent(
        f"""
        import sys
        from jw_rag.embed import FakeEmbedder
        from jw_rag.errors import IngestError
        from jw_rag.ingest import ingest_epub
        from jw_rag.store import SQLiteStore
        store = SQLiteStore({str(tmp_path / "s.sqlite")!r}, FakeEmbedder(dim=16))
        try:
            ingest_epub(store, {str(bomb)!r})
        except IngestError as exc:
            print(exc)
            # the peak resident size of this process image (ru_maxrss would carry
            # the parent's high-water mark over from before exec)
            status = open("/proc/self/status").read()
            print(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")))
            sys.exit(3)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 3, done.stderr[-2000:]
    message, peak_kib = done.stdout.splitlines()
    assert "decompression bomb" in message or "would unpack" in message
    assert "Traceback" not in done.stderr
    assert int(peak_kib) < 500 * 1024


@pytest.fixture
def server(http_pages: Callable[[type[Handler]], str]) -> str:
    return http_pages(Handler)


def test_downloads_stop_at_the_size_cap_and_the_deadline(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 1024 * 1024)
    with pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/bomb")  # 8 MiB once decoded, 8 KiB on the wire
    assert "larger than 1 MiB" in _one_line(info.value)
    monkeypatch.setattr(source, "FETCH_DEADLINE", 1.0)
    started = time.monotonic()
    with pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/slow")
    assert "still downloading after 1 s" in _one_line(info.value)
    assert time.monotonic() - started < 5
    assert store.stats()["chunks"] == 0


class _NanEmbedder(FakeEmbedder):
    def embed(self, texts):  # noqa: ANN001, ANN201 - the Embedder protocol
        vectors = super().embed(texts).copy()
        vectors[-1, 0] = np.nan
        return vectors


def test_nan_vectors_are_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", _NanEmbedder(dim=16))
    chunks = ParagraphChunker().chunk(["One paragraph here.", "Another one there."], "d")
    with pytest.raises(EmbeddingError) as info:
        store.replace_source("d", chunks)
    assert "NaN or infinite" in _one_line(info.value)
    assert store.stats()["chunks"] == 0


def test_a_damaged_store_is_a_one_line_store_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = SQLiteStore(path, FakeEmbedder(dim=16))
    paras = [f"Paragraph {i} about gardens and water and soil." for i in range(400)]
    store.replace_source("d", ParagraphChunker(min_chars=1).chunk(paras, "d"))
    store.close()
    raw = bytearray(path.read_bytes())
    for offset in range(8192, len(raw) - 4096, 4096):  # every page but the header's
        raw[offset : offset + 64] = b"\xa5" * 64
    path.write_bytes(bytes(raw))
    with pytest.raises((StoreError, IngestError)) as info:
        damaged = SQLiteStore(path, FakeEmbedder(dim=16))
        damaged.stats()
        damaged.search("gardens", 3, mode="bm25")
        damaged.replace_source("e", ParagraphChunker().chunk(["A new source."], "e"))
    assert "damaged" in _one_line(info.value) or "not a" in str(info.value)


def test_absurd_k_and_window_are_refused(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    store.replace_source("d", ParagraphChunker().chunk(["Soul and death."], "d"))
    for call in (
        lambda: retrieve(store, "soul", k=10**20),
        lambda: retrieve(store, "soul", expand="neighbors", reach=10**9),
        lambda: store.search("soul", 10**20, mode="bm25"),
    ):
        with pytest.raises(ConfigError) as info:
            call()
        assert "from 0 to" in _one_line(info.value)


def test_every_redirect_hop_is_checked_and_bounded(tmp_path: Path, server: str) -> None:
    from jw_rag.ingest import checking_urls

    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    seen: list[str] = []

    def refuse_private(url: str) -> None:
        seen.append(url)
        if "/private" in url:
            raise ConfigError(f"{url}: refused by the caller's policy")

    with checking_urls(refuse_private), pytest.raises(ConfigError) as info:
        ingest_article(store, f"{server}/start")
    assert "/private: refused" in _one_line(info.value)
    assert seen == [f"{server}/start", f"{server}/private"]  # the redirect was checked too
    with pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/to-file")  # only http(s) is followed
    assert "cannot be fetched" in _one_line(info.value)
    with pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/loop")
    assert "cannot be fetched" in _one_line(info.value)
    assert store.stats()["chunks"] == 0


def test_encoded_pages_are_decoded_here_and_others_refused(tmp_path: Path, server: str) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    for encoding in ("gzip", "deflate"):
        ingest_article(store, f"{server}/{encoding}")
        (hit,) = store.search(encoding, 1, mode="bm25")
        assert hit.chunk.text == f"Água viva, {encoding}."
    with pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/br")
    assert "sent the page as 'br', which is not read here" in _one_line(info.value)
    assert store.stats()["sources"] == 2


def test_a_server_slow_to_answer_is_left_at_the_deadline(
    tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    monkeypatch.setattr(source, "FETCH_DEADLINE", 1.0)
    started = time.monotonic()
    with pytest.raises(IngestError) as info:
        ingest_article(store, f"{server}/stall")  # no answer for 5 s (each hop)
    assert "still downloading after 1 s" in _one_line(info.value)
    assert time.monotonic() - started < 2.5
    assert store.stats()["chunks"] == 0
