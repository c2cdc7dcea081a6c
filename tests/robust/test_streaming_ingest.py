"""Ingest whose memory does not grow with the source (issue 30, part 5): a
JWPUB's inner database reaches its private temporary file a piece at a
time, and a big source's units are let go once they are staged, each case
stored whole or not at all."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.jwpub.jw_formats_builder import Doc, jwpub_database, write_jwpub
from tests.robust import test_hostile_bounds

MB = 1_000_000
T = TypeVar("T")

XHTML = (
    '<html><body><article><h1 data-pid="1">Water</h1>'
    '<p data-pid="2">Gardens need water every morning, and the soil keeps it.</p>'
    "</article></body></html>"
)


def _padded_database(padding: int) -> bytes:
    """A real publication's database with ``padding`` bytes of random BLOBs beside
    its tables (random: the archive cannot shrink them, as images in a real one)."""
    data = jwpub_database([Doc(1, 101, "Water", XHTML)], symbol="tp", year=2024,
                          meps_language_index=0)  # fmt: skip
    conn = sqlite3.connect(":memory:")
    conn.deserialize(data)
    conn.execute("CREATE TABLE Padding (Blob BLOB)")
    for _ in range(padding // MB):
        conn.execute("INSERT INTO Padding VALUES (?)", (os.urandom(MB),))
    conn.commit()
    out = bytes(conn.serialize())
    conn.close()
    return out


def _traced_peak(call: Callable[[], T]) -> tuple[T, int]:
    """What ``call`` returns, and the peak of Python memory it allocated (bytes)."""
    tracemalloc.start()
    try:
        return call(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_jwpubs_inner_database_is_streamed_to_a_temporary_file(tmp_path: Path) -> None:
    from jw_core.jwpub import read_jwpub

    db = _padded_database(48 * MB)
    path = write_jwpub(tmp_path / "big.jwpub", [], database=db)
    del db
    assert path.stat().st_size > 48 * MB
    pub, peak = _traced_peak(lambda: read_jwpub(path))
    assert [d.meps_document_id for d in pub.documents] == [101]
    assert "Gardens need water" in pub.documents[0].xhtml
    assert peak < 12 * MB, f"read_jwpub held {peak / MB:.0f} MB of a 48 MB database"


def test_a_broken_inner_database_is_still_one_named_error(tmp_path: Path) -> None:
    from jw_core.jwpub import JwFormatError, read_jwpub

    path = write_jwpub(tmp_path / "bad.jwpub", [], database=b"not a database at all" * 100)
    with pytest.raises(JwFormatError, match=r"bad\.jwpub: contents: tp\.db is not a SQLite"):
        read_jwpub(path)


def test_a_small_file_is_read_without_reserving_the_size_cap(tmp_path: Path) -> None:
    from jw_rag.ingest._source import read_path

    path = tmp_path / "small.txt"
    path.write_bytes(b"Gardens need water.\n\n" * 50_000)  # about 1 MB
    loaded, peak = _traced_peak(lambda: read_path(path))
    assert loaded.data == path.read_bytes()
    assert peak < 4 * MB, f"reading 1 MB held {peak / MB:.0f} MB"  # was the 256 MiB cap


def test_a_file_over_the_source_cap_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jw_rag.ingest._source as source
    from jw_rag.errors import IngestError

    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 1000)
    (tmp_path / "at.txt").write_bytes(b"a" * 1000)
    (tmp_path / "over.txt").write_bytes(b"a" * 1001)
    (tmp_path / "empty.txt").write_bytes(b"")
    assert len(source.read_path(tmp_path / "at.txt").data) == 1000
    assert source.read_path(tmp_path / "empty.txt").data == b""
    with pytest.raises(IngestError, match=r"over\.txt is larger than 1000 bytes; split it"):
        source.read_path(tmp_path / "over.txt")


# -- whole sources in a fresh process: peak RSS, kill -9, two at once ----------

#: The issue's bound for the 1M-tiny-paragraph text, in KiB of peak RSS (VmHWM).
STREAM_PEAK_KIB = 300 * 1000
TINY = b"a\n\n" * 1_000_000  # 3 MB: one million one-letter paragraphs


store = test_hostile_bounds.store  # the fixture: a store holding one small text source


def _stored(store: Path) -> dict[str, int]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        return dict(conn.execute("SELECT source_id, COUNT(*) FROM chunks GROUP BY source_id"))


def test_a_3_mb_text_of_1m_tiny_paragraphs_peaks_under_300_mb(tmp_path: Path, store: Path) -> None:
    from tests.robust.test_hostile_bounds import ingest, run_child

    text = tmp_path / "tiny.txt"
    text.write_bytes(TINY)
    kept = _stored(store)
    child = run_child(tmp_path, [ingest(store, "text", text)], deadline=600)
    (run,) = child.runs
    assert run["code"] == 0 and "tiny: 4000 chunks" in run["out"], run
    assert child.peak_kib < STREAM_PEAK_KIB, child.peak_kib
    stored = _stored(store)
    assert stored["kept"] == kept["kept"] and stored["tiny"] > 4000  # units and windows


def _ingest_process(store: Path, text: Path) -> subprocess.Popen[str]:
    code = (
        "import sys\nfrom jw_cli.app import main\n"
        f"sys.exit(main(['--store', {str(store)!r}, 'rag', 'ingest', 'text', {str(text)!r}]))\n"
    )
    env = dict(os.environ, JW_EMBEDDER="fake", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.Popen([sys.executable, "-c", code], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip


def test_kill_9_in_the_middle_of_a_big_source_leaves_the_store_as_it_was(
    tmp_path: Path, store: Path
) -> None:
    from tests.robust.hostile_files import snapshot

    text = tmp_path / "tiny.txt"
    text.write_bytes(TINY)
    before = snapshot(store)
    for delay in (4.0, 9.0):  # while it chunks and embeds, then later (or while it writes)
        proc = _ingest_process(store, text)
        time.sleep(delay)
        if proc.poll() is not None:  # a fast machine finished first: nothing to kill
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        assert snapshot(store) == before
    proc = _ingest_process(store, text)  # and the store takes the source afterwards
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0 and "tiny: 4000 chunks" in out, err
    assert snapshot(store)["integrity"] == [("ok",)]


def test_two_processes_ingest_big_sources_into_one_store_at_once(
    tmp_path: Path, store: Path
) -> None:
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_bytes(TINY[: 3 * 400_000])
    second.write_bytes(b"b b\n\n" * 400_000)
    procs = [_ingest_process(store, first), _ingest_process(store, second)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    together = _stored(store)
    alone = tmp_path / "alone.sqlite"
    for text in (first, second):
        proc = _ingest_process(alone, text)
        assert proc.communicate(timeout=600) and proc.returncode == 0
    assert together == {**_stored(alone), "kept": together["kept"]}
    assert set(together) == {"kept", "first", "second"}


def test_a_failure_midway_through_a_streamed_source_stores_none_of_it(tmp_path: Path) -> None:
    """The units are made while the store embeds them: an embedder that fails
    at its third call (the big source's second batch, its first one staged)
    leaves the store as it was, the source before it included; both are stored later."""
    from jw_rag.embed import FakeEmbedder
    from jw_rag.ingest import ingest_documents
    from jw_rag.model import Document, Paragraph
    from jw_rag.store import SQLiteStore
    from tests.robust.hostile_files import snapshot

    class FailsAtThirdBatch(FakeEmbedder):
        calls = 0

        def embed(self, texts):  # type: ignore[no-untyped-def]
            type(self).calls += 1
            if type(self).calls == 3:
                raise RuntimeError("the model went away")
            return super().embed(texts)

    def doc(name: str, n: int) -> Document:
        paras = [Paragraph(f"Paragraph {i} of {name}: gardens need water, soil keeps it.")
                 for i in range(n)]  # fmt: skip
        return Document(name, paras, title=name, language="en")

    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, FakeEmbedder(dim=8)) as s:
        ingest_documents(s, [doc("kept", 10)])
    before = snapshot(path)
    with SQLiteStore(path, FailsAtThirdBatch(dim=8)) as s:
        with pytest.raises(RuntimeError, match="went away"):
            ingest_documents(s, [doc("other", 5), doc("big", 3000)])
    assert FailsAtThirdBatch.calls == 3
    assert snapshot(path) == before
    with SQLiteStore(path, FakeEmbedder(dim=8)) as s:
        results = ingest_documents(s, [doc("other", 5), doc("big", 3000)])
        assert [r.skipped for r in results] == [False, False]
        assert s.stats()["per_source"] == {"kept": 2, "other": 1, "big": results[1].chunks}


# -- a 29 MiB EPUB chapter: the page is read as a stream (issue 30, part 5) --------

#: Paragraphs in the big chapter: as many as fit under ``MAX_TAGS`` (an opening
#: and a closing tag each), about 29.4 MiB of markup.
CHAPTER_PARAGRAPHS = 499_990
#: The whole ingest's bound, the issue's 300 MB. Above the parse, the write
#: transaction holds SQLite's page cache (16 MiB per connection,
#: ``sqlite_store._CACHE_KIB``; 64 MiB peaked at about 350 MB) on top of the
#: source's paragraphs, which the ingest keeps until the source is written
#: (517 MB when pages were trees).
WRITE_PEAK_KIB = STREAM_PEAK_KIB

_PARSE_PEAK = """
from jw_rag.ingest import parse_epub
docs = parse_epub({path!r})
paragraphs = docs[0].paragraphs
print(len(docs), len(paragraphs), paragraphs[-1].text)
print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])
del docs, paragraphs
"""


def _big_chapter(path: Path) -> Path:
    import zipfile

    from tests.robust.hostile_files import CONTAINER, OPF

    body = b"".join(b"<p>Gardens need water %d each day, the soil keeps it.</p>\n" % i
                    for i in range(CHAPTER_PARAGRAPHS))  # fmt: skip
    chapter = (b'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/'
               b'xhtml"><head><title>C</title></head><body><h1>One</h1>' + body
               + b"</body></html>")  # fmt: skip
    assert 29 * 2**20 < len(chapter) < 30 * 2**20
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("mimetype", b"application/epub+zip", compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml", CONTAINER)
        zf.writestr("content.opf", OPF)
        zf.writestr("ch1.xhtml", chapter)
    return path


@pytest.mark.slow
def test_a_29_mib_epub_chapter_is_parsed_under_300_mb_and_stored_whole(
    tmp_path: Path, store: Path
) -> None:
    """Parsed in a fresh process under 300 MB peak RSS (the whole ingest peaked
    at 517 MB with the tree); ingested whole by the CLI in another, every
    paragraph stored, under 300 MB too, the write's page cache included."""
    from tests.robust.test_hostile_bounds import ingest, run_child

    book = _big_chapter(tmp_path / "chap.epub")
    kept = _stored(store)
    parsed = run_child(tmp_path, [{"python": _PARSE_PEAK.format(path=str(book))}], deadline=60)
    assert parsed.runs[0]["error"] is None, parsed.runs[0]
    counts, parse_peak = parsed.runs[0]["out"].splitlines()
    last = CHAPTER_PARAGRAPHS - 1
    assert (
        counts
        == f"1 {CHAPTER_PARAGRAPHS + 1} Gardens need water {last} each day, the soil keeps it."
    )
    assert int(parse_peak) < STREAM_PEAK_KIB, parse_peak
    child = run_child(tmp_path, [ingest(store, "epub", book)], deadline=150)
    (stored,) = child.runs
    assert stored["code"] == 0 and "chap/ch1:" in stored["out"] and "(stored)" in stored["out"]
    assert child.peak_kib < WRITE_PEAK_KIB, child.peak_kib
    rows = _stored(store)
    assert rows["kept"] == kept["kept"] and rows["chap/ch1"] >= (CHAPTER_PARAGRAPHS + 1) // 8
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
        (last_text,) = conn.execute(
            "SELECT COUNT(*) FROM chunks WHERE source_id = 'chap/ch1' AND text LIKE ?",
            (f"%water {last} each day%",),
        ).fetchone()
    assert last_text >= 1
