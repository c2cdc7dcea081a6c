"""Inputs under every size cap whose memory used to grow far past them, each run
in a fresh process under a 1 GiB address-space cap (tests/robust/hostile_child.py,
or the MCP server with the same cap): the child's peak resident size stays
under 500 MB, and the input is either stored or refused in one line.

What bounds them: a paragraph id is compared as a prefix, never compiled into
a pattern; one source holds at most ``MAX_TEXT_BYTES`` of text (a note is
measured in the backup's database before it is read, a fetched page stops
there); the store embeds and writes a source a batch at a time, window units
made as they are written; ``jw rag chunk --json`` writes a chunk at a time."""

from __future__ import annotations

import contextlib
import gzip
import http.server
import io
import json
import os
import random
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from jw_cli.app import main
from tests.jwpub.jw_formats_builder import Note, write_backup
from tests.mcp.mcp_client import connect
from tests.robust.hostile_files import snapshot
from tests.robust.test_hostile_bounds import (
    CAP_BYTES,
    GOOD_TEXT,
    PEAK_LIMIT_KIB,
    assert_one_line_errors,
    ingest,
    run_child,
)

MB = 1_000_000
#: jw_rag.ingest.MAX_TEXT_BYTES, spelt out so the file also runs against older code.
MAX_TEXT_BYTES = 32 * 1024**2


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    path = tmp_path / "store.sqlite"
    (tmp_path / "kept.txt").write_text(GOOD_TEXT, "utf-8")
    assert main(["--store", str(path), "rag", "ingest", "text", str(tmp_path / "kept.txt")]) == 0
    return path


def _varied_lines(total: int, template: str, every: int, seed: int) -> str:
    """About ``total`` characters of ``template`` lines, one in ``every`` with a
    random number: compresses about 100 times, under the 200 a bomb has."""
    rng = random.Random(seed)
    plain = template.format(0)
    block = "".join(
        template.format(rng.randrange(10**6)) if i % every == 0 else plain for i in range(20_000)
    )
    return block * (total // len(block) + 1)


def test_a_page_whose_paragraph_id_is_10_mb(tmp_path: Path, store: Path) -> None:
    page = tmp_path / "pid.html"
    pid = "1" * 9_900_000
    page.write_text(f'<html><body><article><p data-pid="{pid}">One paragraph.</p></article>'
                    "</body></html>", "utf-8")  # fmt: skip
    child = run_child(tmp_path, [ingest(store, "article", page)], deadline=120)
    (run,) = child.runs
    assert run["code"] == 0 and "pid: 1 chunk" in run["out"], run
    assert child.peak_kib < PEAK_LIMIT_KIB, child.peak_kib


def test_a_leading_paragraph_number_is_still_stripped(tmp_path: Path) -> None:
    from jw_rag.ingest import parse_article

    page = tmp_path / "n.html"
    page.write_text('<html><body><article><p data-pid="12">12. Text.</p><p data-pid="3">3Text'
                    '</p><p data-pid="4">4 \u00a0Four.</p></article></body></html>', "utf-8")  # fmt: skip
    assert [p.text for p in parse_article(page).paragraphs] == ["Text.", "3Text", "Four."]


def test_a_backup_holding_a_200_mb_note(tmp_path: Path, store: Path) -> None:
    note = _varied_lines(200 * MB, "gardens need water every morning and the soil keeps it {}\n",
                         24, seed=3)  # fmt: skip
    backup = write_backup(tmp_path / "big.jwlibrary", [Note("big-note", "Big", note)])
    del note
    assert backup.stat().st_size < 4 * MB
    before = snapshot(store)
    child = run_child(tmp_path, [ingest(store, "backup", backup)], deadline=120)
    assert_one_line_errors(child, "note big-note holds 190 MiB of text, more than the 32 MiB")
    assert snapshot(store) == before


def test_a_backup_whose_notes_are_under_the_cap_is_stored(tmp_path: Path, store: Path) -> None:
    notes = [
        Note(f"n{i}", f"Note {i}", f"Water the garden {i}.\nThe soil keeps it.") for i in range(3)
    ]
    backup = write_backup(tmp_path / "small.jwlibrary", notes)
    child = run_child(tmp_path, [ingest(store, "backup", backup)], deadline=120)
    (run,) = child.runs
    assert run["code"] == 0 and run["out"].count("(stored)") == 3, run


class _GzipPage(http.server.BaseHTTPRequestHandler):
    """``/page``: about 1 MB of gzip that decodes to 210 MB of paragraphs."""

    body = b""

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *_args: object) -> None:
        pass


_PEAK_AT_EXIT = """
import atexit, resource
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
def _peak():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM'):
            open({out!r}, 'w').write(line.split()[1])
atexit.register(_peak)
"""


def test_a_1_mb_gzip_page_in_the_mcp_server(
    tmp_path: Path, http_pages: Callable[[type[http.server.BaseHTTPRequestHandler]], str]
) -> None:
    html = _varied_lines(210 * MB, "<p>Gardens need water every morning, {}.</p>\n", 38, seed=5)
    _GzipPage.body = gzip.compress(("<html><body><article>" + html).encode(), compresslevel=6)
    del html
    assert len(_GzipPage.body) < 3 * MB
    url = http_pages(_GzipPage) + "/page"
    peak = tmp_path / "peak"
    prelude = _PEAK_AT_EXIT.format(cap=CAP_BYTES, out=str(peak))

    async def call() -> tuple[bool, object]:
        args = ("--allow-private-urls", "--call-timeout", "120", "--fetch-timeout", "100")
        path = os.environ.get("PYTHONPATH", "")  # the server runs the code this test runs
        async with connect(tmp_path, *args, prelude=prelude, PYTHONPATH=path) as client:
            return await client.call("ingest", kind="article", source=url)

    is_error, text = anyio.run(call)
    assert is_error and "\n" not in str(text), text
    assert f"the page is larger than {MAX_TEXT_BYTES // 2**20} MiB" in str(text), text
    assert int(peak.read_text()) < PEAK_LIMIT_KIB
    assert (
        not (tmp_path / "store.sqlite").exists()
        or snapshot(tmp_path / "store.sqlite")["chunks"] == 0
    )


def _paragraphs(n: int) -> str:
    return "\n\n".join(
        f"Paragraph {i} says that gardens need water and that the soil keeps it well."
        for i in range(n)
    )


def test_a_20_mb_text_of_250k_paragraphs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")  # the model is not the point, and is slow
    text = tmp_path / "big.txt"
    text.write_text(_paragraphs(250_000), "utf-8")
    assert text.stat().st_size > 19 * MB
    other = tmp_path / "other.sqlite"
    child = run_child(tmp_path, [ingest(other, "text", text)], deadline=1800)
    (run,) = child.runs
    assert run["code"] == 0 and "big: 41667 chunks" in run["out"], run
    assert child.peak_kib < PEAK_LIMIT_KIB, child.peak_kib
    assert snapshot(other)["chunks"] > 2 * 41_667  # the units and their window units


def test_chunk_json_of_the_same_text_is_written_as_it_goes(tmp_path: Path) -> None:
    text, out = tmp_path / "big.txt", tmp_path / "out.json"
    text.write_text(_paragraphs(250_000), "utf-8")
    code = (  # stdout to a file: the harness would otherwise hold it in memory
        "import sys\nfrom jw_cli.app import main\n"
        f"with open({str(out)!r}, 'w', encoding='utf-8') as sys.stdout:\n"
        f"    code = main(['rag', 'chunk', {str(text)!r}, '--json'])\n"
        "sys.stdout = sys.__stdout__\nassert code == 0, code\n"
    )
    child = run_child(tmp_path, [{"python": code}], deadline=1800)
    (run,) = child.runs
    assert run["error"] is None and run["err"] == "", run
    assert child.peak_kib < PEAK_LIMIT_KIB, child.peak_kib
    assert len(json.loads(out.read_text("utf-8"))[0]["chunks"]) == 41_667


def test_chunk_json_is_exactly_the_whole_document_dumped(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text('Water "quoted"\nline.\n\nSecond ¿paragraph?', "utf-8")
    (folder / "b.txt").write_text("Only one.", "utf-8")
    from jw_cli.json_text import finite
    from jw_cli.views import chunk_dict
    from jw_rag.ingest import chunk_document, load_documents

    whole = [
        {"source_id": d.source_id, "chunks": [chunk_dict(c) for c in chunk_document(d)]}
        for d in load_documents(str(folder))
    ]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["rag", "chunk", str(folder), "--json"]) == 0
    assert out.getvalue() == json.dumps(finite(whole), ensure_ascii=False, indent=2) + "\n"
    assert json.loads(out.getvalue())[1]["chunks"][0]["text"] == "Only one."


def test_a_text_over_the_cap_is_refused_before_it_is_decoded(tmp_path: Path, store: Path) -> None:
    from jw_rag.ingest import MAX_TEXT_BYTES as cap

    assert cap == MAX_TEXT_BYTES
    big = tmp_path / "over.txt"
    big.write_text(_paragraphs(450_000), "utf-8")
    assert big.stat().st_size > MAX_TEXT_BYTES
    before = snapshot(store)
    child = run_child(tmp_path, [ingest(store, "text", big), ingest(store, "markdown", big)],
                      deadline=120)  # fmt: skip
    assert_one_line_errors(child, "more than the 32 MiB one source may hold; split it")
    assert snapshot(store) == before


# -- the store's write path, a batch at a time ---------------------------------


def _chunks(source: str, n: int, *, fail_at: int | None = None, dup_at: int | None = None):  # type: ignore[no-untyped-def]
    from jw_rag.model import Chunk

    for i in range(n):
        if i == fail_at:
            raise RuntimeError("the source broke while it was read")
        ident = f"{source}:0" if i == dup_at else f"{source}:{i}"
        yield Chunk(ident, f"water and soil {i}", source, {"chunk_index": i})


def _open(path: Path):  # type: ignore[no-untyped-def]
    from jw_rag.embed import FakeEmbedder
    from jw_rag.store import SQLiteStore

    return SQLiteStore(path, FakeEmbedder(dim=8))


def test_a_source_given_as_a_generator_is_stored_whole_or_not_at_all(tmp_path: Path) -> None:
    import os
    import tempfile

    from jw_rag.errors import ConfigError

    path = tmp_path / "s.sqlite"
    with _open(path) as s:
        assert s.replace_source("a", _chunks("a", 700))
    before = snapshot(path)

    def spills_now() -> set[str]:  # other programs' temporary files are not this test's
        return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("jw-stage")}

    spills = spills_now()
    with _open(path) as s:
        with pytest.raises(RuntimeError, match="broke"):
            s.replace_source("a", _chunks("a", 900, fail_at=650))  # in the third batch
        with pytest.raises(ConfigError, match="appears twice in one call"):
            s.replace_source("a", _chunks("a", 900, dup_at=600))  # a first batch's id again
        with pytest.raises(ConfigError, match="belongs to source 'b'"):
            s.replace_source("a", [*_chunks("a", 300), *_chunks("b", 1)])
    assert snapshot(path) == before
    assert spills_now() <= spills  # the spill has no name to leave
    with _open(path) as s:
        assert s.replace_source("a", iter([])) and s.stats()["chunks"] == 0
        assert s.add(_chunks("c", 600)) == 600 and s.stats()["per_source"] == {"c": 600}


def test_two_writers_of_large_sources_at_once(tmp_path: Path) -> None:
    import threading

    path = tmp_path / "s.sqlite"
    _open(path).close()
    errors: list[BaseException] = []

    def write(source: str) -> None:
        try:
            with _open(path) as s:
                s.replace_source(source, _chunks(source, 1300))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(name,)) for name in ("x", "y")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with _open(path) as s:
        assert s.stats()["per_source"] == {"x": 1300, "y": 1300}


def test_tiny_paragraphs_just_under_the_byte_cap_are_bounded_by_count(
    tmp_path: Path, store: Path
) -> None:
    """30 MB of one-word paragraphs (6 million) and of <p> tags (3.9 million):
    refused by count while they are read, before they cost gigabytes."""
    text, page = tmp_path / "tiny.txt", tmp_path / "tiny.html"
    text.write_bytes(b"a b\n\n" * 6_000_000)
    page.write_bytes(b"<html><body>" + b"<p>a</p>" * 3_900_000 + b"</body></html>")
    assert max(text.stat().st_size, page.stat().st_size) < MAX_TEXT_BYTES
    before = snapshot(store)
    runs = [ingest(store, "text", text), ingest(store, "markdown", text)]
    child = run_child(tmp_path, runs, deadline=300)
    assert_one_line_errors(child, "holds more than 1,000,000 paragraphs, the most one source may hold",
                           seconds=120)  # fmt: skip
    child = run_child(tmp_path, [ingest(store, "article", page)], deadline=120)
    assert_one_line_errors(child, "holds 7,800,004 tags, more than the 1,000,000 one page may hold")
    assert snapshot(store) == before


def test_the_paragraph_cap_counts_every_reader(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import jw_rag.ingest._source as source
    from jw_rag.errors import IngestError
    from jw_rag.ingest import load_documents

    monkeypatch.setattr(source, "MAX_PARAGRAPHS", 3)
    files = {"t.txt": "a\n\nb\n\nc\n\nd", "m.md": "# A\n\nb\n\nc\n\nd", "p.html":
             "<html><body><p>a</p><p>b</p><p>c</p><p>d</p></body></html>"}  # fmt: skip
    for name, body in files.items():
        (tmp_path / name).write_text(body, "utf-8")
        with pytest.raises(IngestError, match=r"holds more than 3 paragraphs, the most one"):
            load_documents(str(tmp_path / name))
        (tmp_path / name).write_text(body.replace("d", "").rstrip("\n"), "utf-8")
    assert len(load_documents(str(tmp_path / "t.txt"))[0].paragraphs) == 3
