"""``--skip-bad`` leaves out a file whatever stage it fails at (reading,
parsing, chunking: "no text to index"), with its reason, and stores the rest;
a PDF whose text holds a lone surrogate is no failure at all: the surrogate
becomes U+FFFD and the file is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.chunkers import ParagraphChunker, register_chunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import IngestError
from jw_rag.ingest import ingest_folder, parse_pdf
from jw_rag.store import SQLiteStore
from tests.ingest.conftest import _content, pdf_file

ZWSP = "\u200b"

_TO_SURROGATE = b"""/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /X def 1 begincodespacerange <00> <FF> endcodespacerange
1 beginbfchar <41> <D800> endbfchar endcmap CMapName currentdict /CMap defineresource pop end end"""


def surrogate_pdf(path: Path) -> Path:
    """A one-page PDF whose font maps the glyph of "A" to a lone UTF-16
    surrogate (D800) through its ToUnicode map."""
    stream = _content([(72, 700, "Hello ABA world")])
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding "
        b"/ToUnicode 6 0 R >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
        f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream",
        f"<< /Length {len(_TO_SURROGATE)} >>\nstream\n".encode() + _TO_SURROGATE + b"\nendstream",
    ]
    path.write_bytes(pdf_file(objects))
    return path


def test_a_lone_surrogate_in_pdf_text_becomes_a_replacement_character(tmp_path: Path) -> None:
    doc = parse_pdf(surrogate_pdf(tmp_path / "s.pdf"))
    assert [p.text for p in doc.paragraphs] == ["Hello \ufffdB\ufffd world"]


def _folder(root: Path) -> Path:
    lib = root / "lib"
    lib.mkdir()
    (lib / "a-good.txt").write_text("Gardens need water every morning.\n", "utf-8")
    (lib / "b-invisible.txt").write_text(f"{ZWSP} \n\n {ZWSP}\n", "utf-8")
    (lib / "c-invisible.md").write_text(f"{ZWSP}\n\n\u00ad\n", "utf-8")
    (lib / "d-spaces.txt").write_text("   \n\n\t \n", "utf-8")
    surrogate_pdf(lib / "e-surrogate.pdf")
    return lib


def test_cli_skip_bad_leaves_out_files_failing_at_any_stage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    lib = _folder(tmp_path)
    store = tmp_path / "s.sqlite"

    def ingest(kind: str, left_out: str = "", kinds: str = "") -> list[str]:
        code = main(["--store", str(store), "rag", "ingest", kind, str(lib), "--skip-bad"])
        out, err = capsys.readouterr()
        warning = (
            f"warning: {lib}: left out {left_out}; ingest the folder again as {kinds} to "
            "store them\n"
        )
        assert (code, err) == (0, warning if left_out else "")
        return out.replace(str(tmp_path), "<DIR>").splitlines()

    # the PDF is not Markdown or text: left out with a warning, not read and skipped
    assert ingest("markdown", "1 file that is not Markdown (1 .pdf)", "pdf") == [
        "lib/a-good: 1 chunk, chunker paragraph, language en (stored)",
        "skipped <DIR>/lib/b-invisible.txt: lib/b-invisible: the document has no text to index",
        "skipped <DIR>/lib/c-invisible.md: lib/c-invisible: the document has no text to index",
        "skipped <DIR>/lib/d-spaces.txt is empty; pass a file with Markdown",
        "1 source, 1 stored, 1 chunk; 3 files skipped",
    ]
    assert ingest("text", "1 file that is not text (1 .pdf)", "pdf") == [
        "lib/a-good: 1 chunk, chunker paragraph, language en (stored)",
        "skipped <DIR>/lib/b-invisible.txt has no visible text (only spaces and invisible "
        "characters); pass a file with text",
        "skipped <DIR>/lib/c-invisible.md has no visible text (only spaces and invisible "
        "characters); pass a file with text",
        "skipped <DIR>/lib/d-spaces.txt is empty; pass a file with text",
        "1 source, 1 stored, 1 chunk; 3 files skipped",
    ]
    assert ingest("pdf", "4 files that are not a PDF (1 .md, 3 .txt)", "markdown or text") == [
        "lib/e-surrogate: 1 chunk, chunker paragraph, language en (stored)",
        "1 source, 1 stored, 1 chunk; 0 files skipped",
    ]
    with SQLiteStore(store, FakeEmbedder(dim=8)) as st:
        texts = [h.chunk.text for h in st.search("Hello world", k=5, mode="bm25")]
    assert texts == ["Hello \ufffdB\ufffd world"]


class _PickyChunker(ParagraphChunker):
    """A chunker that refuses one document (as a plugin may)."""

    name = "picky"

    def chunk(self, paragraphs, source_id, *, metadata=None):  # type: ignore[no-untyped-def]
        if "refuse" in source_id:
            raise IngestError(f"{source_id}: this chunker cannot split it")
        return super().chunk(paragraphs, source_id, metadata=metadata)


def test_a_file_the_chunker_refuses_is_skipped_with_its_whole_file(tmp_path: Path) -> None:
    register_chunker("picky", _PickyChunker, replace=True)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "keep.txt").write_text("Rivers run to the sea.\n", "utf-8")
    (lib / "refuse.txt").write_text("The sea is never full.\n", "utf-8")
    with SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=8)) as store:
        with pytest.raises(IngestError, match="lib/refuse: this chunker cannot split it"):
            ingest_folder(store, lib, chunker="picky")
        assert store.stats()["sources"] == 0
        done = ingest_folder(store, lib, chunker="picky", skip_bad=True)
        assert [r.source_id for r in done.results] == ["lib/keep"]
        assert [(s.path, s.reason) for s in done.skipped] == [
            (str(lib / "refuse.txt"), "lib/refuse: this chunker cannot split it")
        ]
        assert list(store.stats()["per_source"]) == ["lib/keep"]
        (lib / "keep.txt").unlink()
        with pytest.raises(
            IngestError,
            match=r"lib: its one file was skipped as bad, nothing stored \(.*refuse\.txt: lib/refuse: this chunker cannot split it\); fix the file or",
        ):
            ingest_folder(store, lib, chunker="picky", skip_bad=True)
