"""``jw rag diff``: the side-by-side HTML page, checked as text and rendered in Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_cli.diff_html import render_chunk_diff
from jw_rag.ingest import chunk_document, load_documents
from jw_rag.model import Chunk, Document, Paragraph
from tests.cli.png_reader import read_png

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)


def _write_diff(capsys: pytest.CaptureFixture[str], src: Path, out: Path, chunkers: str) -> str:
    assert main(["rag", "diff", str(src), "--chunkers", chunkers, "--html", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n"
    return out.read_text(encoding="utf-8")


def test_page_shows_each_chunker_with_totals_and_badges(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    src = corpus / "es" / "infierno.html"
    page = _write_diff(capsys, src, tmp_path / "d.html", "paragraph,semantic")
    doc = load_documents(src)[0]
    for name in ("paragraph", "semantic"):
        chunks = chunk_document(doc, chunker=name)
        mean = sum(len(c.text) for c in chunks) / len(chunks)
        assert f"<b>{name}</b><span>{len(chunks)} chunks · mean {mean:.0f} chars</span>" in page
    semantic = chunk_document(doc, chunker="semantic")
    assert page.count('class="chunk ') == 7 + len(semantic)
    assert page.count("badge merge") == sum(
        bool(c.metadata["merge_reason"]) for c in semantic
    ) + sum(bool(c.metadata["merge_reason"]) for c in chunk_document(doc, chunker="paragraph"))
    closures = [c.metadata["closure_marker"] for c in semantic if c.metadata["closure_marker"]]
    assert closures and all(f"closure: {m}</span>" in page for m in closures)
    for c in semantic:
        assert f"{len(c.text)} chars" in page
    # self-contained: no scripts, links, external URLs or images
    assert not re.search(r"<script|<link|<img|src=|href=|url\(|@import", page, re.I)


def test_tiny_document_exact_boxes() -> None:
    doc = Document(
        "d", [Paragraph("Uno <b>", id="7"), Paragraph("Dos", id=None)], title="T & t", language="es"
    )
    a = Chunk("d:1", "Uno <b>", "d", {"chunk_index": 0, "para_ids": ["7"], "merge_reason": None})
    b = Chunk("d:2", "Dos", "d", {"chunk_index": 1, "para_ids": [1], "closure_marker": "Así"})
    page = render_chunk_diff([doc], {"x": [[a, b]]}, source="s")
    assert (
        '<div class="chunk c0"><div class="head"><b>#0</b><span>7 chars</span><span>¶ 7</span>'
        "</div><p>Uno &lt;b&gt;</p></div>"
    ) in page
    assert (
        '<div class="chunk c1"><div class="head"><b>#1</b><span>3 chars</span><span>¶ #1</span>'
        '<span class="badge closure">closure: Así</span></div><p>Dos</p></div>'
    ) in page
    assert "<title>Chunk diff: T &amp; t</title>" in page and '<html lang="es">' in page
    with pytest.raises(ValueError, match="expected 1"):
        render_chunk_diff([doc], {"x": []})


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium at /usr/bin/chromium")
def test_page_renders_in_headless_chromium(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    html = tmp_path / "diff.html"
    _write_diff(capsys, corpus / "es" / "trinidad.html", html, "paragraph,semantic")
    png = tmp_path / "shot.png"
    cmd = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={png}",
        "--window-size=1400,1000", html.as_uri(),
    ]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    width, height, rows, channels = read_png(png)
    assert (width, height) == (1400, 1000)
    colours = {row[i : i + 3] for row in rows[::4] for i in range(0, len(row), channels * 5)}
    assert len(colours) > 50  # text, two box colours, badges, header: far from blank
    # both box fills and the header's dark blue are on screen
    for rgb in (b"\xe6\xf0\xfb", b"\xfd\xf1\xdc", b"\x1f\x3a\x5f"):
        assert rgb in colours


def test_a_spec_with_several_options_is_one_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    src = corpus / "en" / "soul.html"
    spec = "semantic:target_chars=1200,overflow=0.2"
    page = _write_diff(capsys, src, tmp_path / "d.html", f"paragraph,{spec}")
    chunks = chunk_document(load_documents(src)[0], chunker=spec)
    assert f"<b>{spec}</b><span>{len(chunks)} chunks" in page
