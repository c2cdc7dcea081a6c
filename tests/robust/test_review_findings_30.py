"""Findings of the review of streaming ingest (issue 30, part 5), each with the
test that failed before its fix."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.jwpub.jw_formats_builder import Doc, write_jwpub

XHTML = (
    '<html><body><article><h1 data-pid="1">Water</h1>'
    '<p data-pid="2">Gardens need water every morning, and the soil keeps it.</p>'
    "</article></body></html>"
)


def _names(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_jwpubs_database_copy_has_no_name_while_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed while reading a publication (kill -9, power cut) left its
    private copy of the database, up to 256 MiB, in the temporary folder for
    ever: the copy had a name from the copy to the end of the read."""
    import jw_core.jwpub as jwpub

    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    path = write_jwpub(tmp_path / "pub.jwpub", [Doc(1, 101, "Water", XHTML)])
    seen: list[list[str]] = []
    real_copy, real_decrypt = jwpub.shutil.copyfileobj, jwpub.decrypt_content

    def copy(*args: object, **kwargs: object) -> None:
        real_copy(*args, **kwargs)  # type: ignore[arg-type]
        seen.append(_names(spare))

    def decrypt(*args: object) -> str:
        seen.append(_names(spare))
        return real_decrypt(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(jwpub.shutil, "copyfileobj", copy)
    monkeypatch.setattr(jwpub, "decrypt_content", decrypt)
    pub = jwpub.read_jwpub(path)
    assert "Gardens need water" in pub.documents[0].xhtml
    assert len(seen) == 3  # 'contents' spooled, its database copied, one document decrypted
    assert seen == [[], [], []], f"named temporary files while reading: {seen}"
    assert _names(spare) == []


def test_a_damaged_jwpub_database_still_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jw_core.jwpub import JwFormatError, read_jwpub

    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    good = write_jwpub(tmp_path / "good.jwpub", [Doc(1, 101, "Water", XHTML)])
    import zipfile

    with zipfile.ZipFile(good) as outer, zipfile.ZipFile(outer.open("contents")) as inner:
        db = inner.read("tp.db")
    for label, data in [("cut", db[: len(db) // 2]), ("not sqlite", b"x" * 4096), ("empty", b"")]:
        path = write_jwpub(tmp_path / f"{label}.jwpub", [], database=data)
        with pytest.raises(JwFormatError, match=r"\.jwpub: contents: tp\.db") as caught:
            read_jwpub(path)
        assert "\n" not in str(caught.value)
        assert _names(spare) == [], label


def test_long_distinct_tokens_are_not_kept_by_the_term_cache() -> None:
    """The full-text term cache (and each thread's stemmer's own cache) kept
    every word it saw, of any length: 200 distinct 1 MB tokens (a hash, base64,
    unspaced script) left 600 MB held after their analysis, up to 65,536 of
    them for the life of the process."""
    import gc
    import tracemalloc

    from jw_rag.store._tokens import analyse

    def analyse_long_tokens() -> None:
        for i in range(100):
            token = f"{i:03d}" + "q" * 100_000
            assert analyse(token, "en") == token
            assert analyse(token.upper(), "es") == token

    tracemalloc.start()
    try:
        analyse_long_tokens()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept < 2_000_000, f"the term cache kept {kept / 1e6:.0f} MB of analysed tokens"
    assert analyse("Corações cantam, running runners", "pt") == analyse(
        "Corações cantam, running runners", "pt"
    )


def test_memory_is_given_back_without_running_a_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Finding glibc's malloc_trim ran `/sbin/ldconfig -p` (ctypes.util.find_library)
    in the middle of the first big ingest, and could name another libc than
    the one the process runs on; it also raised whatever find_library raised."""
    import ctypes.util
    import sys

    from jw_rag import _memory

    started: list[object] = []
    real_popen = subprocess.Popen.__init__

    def spy(self: subprocess.Popen[bytes], *args: object, **kwargs: object) -> None:
        started.append(args[0] if args else kwargs.get("args"))
        real_popen(self, *args, **kwargs)  # type: ignore[arg-type]

    def broken(name: str) -> str:
        raise RuntimeError("find_library is broken here")

    monkeypatch.setattr(subprocess.Popen, "__init__", spy)
    monkeypatch.setattr(ctypes.util, "find_library", broken)
    _memory._trim.cache_clear()
    try:
        assert _memory.give_back() is sys.platform.startswith("linux") and _glibc()
        assert started == []
    finally:
        _memory._trim.cache_clear()


def _glibc() -> bool:
    import platform

    return platform.libc_ver()[0] == "glibc"


def test_without_malloc_trim_memory_is_only_collected(monkeypatch: pytest.MonkeyPatch) -> None:
    """musl, or a libc without malloc_trim: give_back collects and says False."""
    import ctypes

    from jw_rag import _memory

    class NoTrim:
        def __init__(self, *args: object) -> None:
            pass

        def __getattr__(self, name: str) -> object:
            raise AttributeError(name)

    class NoLibrary:
        def __init__(self, *args: object) -> None:
            raise OSError("no such library")

    for fake in (NoTrim, NoLibrary):
        monkeypatch.setattr(ctypes, "CDLL", fake)
        _memory._trim.cache_clear()
        try:
            assert _memory.give_back() is False
        finally:
            _memory._trim.cache_clear()


def test_a_folder_of_big_sources_gives_memory_back_twice_not_once_a_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each big source (20,000 paragraphs or more) gave memory back before it
    was chunked, and each give-back walks every object held, all sources'
    paragraphs among them: 40 sources of 20,000 paragraphs spent 6.2 of 6.6
    seconds there, growing with the square of the folder."""
    from jw_rag.embed.fake import FakeEmbedder
    from jw_rag.ingest import pipeline
    from jw_rag.model import Document, Paragraph
    from jw_rag.store import open_store

    calls: list[int] = []
    monkeypatch.setattr(pipeline, "BIG_SOURCE_PARAGRAPHS", 5)
    monkeypatch.setattr(pipeline, "give_back", lambda: calls.append(1) or True)
    docs = [
        Document(
            f"d{k}", [Paragraph(f"Paragraph {i} of source {k}.") for i in range(10)], language="en"
        )  # fmt: skip
        for k in range(12)
    ]
    store = open_store(tmp_path / "s.sqlite", embedder=FakeEmbedder())
    results = pipeline.ingest_documents(store, docs)
    assert [r.source_id for r in results] == [f"d{k}" for k in range(12)]
    assert all(not r.skipped for r in results)
    assert len(calls) == 2  # after parsing, and before staging
    calls.clear()
    pipeline.ingest_documents(store, docs[:1] + [Document("small", [Paragraph("One.")])])
    assert len(calls) == 2
    calls.clear()
    pipeline.ingest_documents(store, [Document("small2", [Paragraph("One.")])])
    assert calls == []
