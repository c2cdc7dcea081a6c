"""What a source holds is read whole or refused, never cut: a UTF-8 text with
a few stray NUL bytes is text (the NULs removed, as the control-character rule
says), an HTML page with a paragraph past libxml2's 10 MB text limit or nested
past its depth limit keeps every paragraph or is refused in one line, and a
source re-ingested with another embedder is not reported "unchanged"."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import IngestError, StoreError
from jw_rag.ingest import ingest_text, parse_article, parse_markdown, parse_text
from jw_rag.store import SQLiteStore
from tests.robust.hostile_files import PNG

MAX_DEPTH = 512  # the deepest nesting the HTML walk reads (jw_rag.ingest._html)
STRAY = b"Gardens need water every morning.\x00\n\nThe soil keeps it\x00 for the roots.\n"


@pytest.mark.parametrize(
    ("suffix", "parse", "data"),
    [
        (".txt", parse_text, STRAY),
        (".md", parse_markdown, b"# Garden\n\n" + STRAY),
        (
            ".html",
            parse_article,
            b"<html><body><article><p>" + STRAY + b"</p></article></body></html>",
        ),
    ],
)
def test_a_few_nul_bytes_are_removed_not_refused(
    tmp_path: Path, suffix: str, parse: object, data: bytes
) -> None:
    path = tmp_path / f"garden{suffix}"
    path.write_bytes(data)
    doc = parse(path)  # type: ignore[operator]
    texts = [p.text for p in doc.paragraphs if p.kind != "heading"]
    assert "\x00" not in "".join(texts)
    assert "Gardens need water every morning." in texts[0]
    assert "The soil keeps it for the roots." in texts[-1]


@pytest.mark.parametrize("data", [PNG, b"abc\x00def" * 10, b"\x00" * 100 + b"text"])
def test_binary_data_is_still_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(data)
    with pytest.raises(IngestError, match=r"holds binary data, not text; check the file"):
        parse_text(path)


def test_a_paragraph_past_libxml2s_text_limit_is_kept_with_what_follows(tmp_path: Path) -> None:
    big = "word " * 2_100_000  # 10.5 MB in one text node
    page = f"<html><body><article><p>first</p><p>{big}</p><p>last</p></article></body></html>"
    path = tmp_path / "big.html"
    path.write_text(page, "utf-8")
    assert [len(p.text) for p in parse_article(path).paragraphs] == [5, len(big.strip()), 4]


def _nested(depth: int) -> str:
    return (
        "<html><body><article><p>start</p>"
        + "<div>" * depth
        + "<p>deep</p>"
        + "</div>" * depth
        + "<p>end</p></article></body></html>"
    )


def test_nesting_past_libxml2s_default_depth_keeps_every_paragraph(tmp_path: Path) -> None:
    path = tmp_path / "deep.html"
    path.write_text(_nested(300), "utf-8")  # libxml2 stops at 256 by default
    assert [p.text for p in parse_article(path).paragraphs] == ["start", "deep", "end"]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 3000])
def test_nesting_past_what_is_walked_is_refused(tmp_path: Path, depth: int) -> None:
    path = tmp_path / "deep.html"
    path.write_text(_nested(depth), "utf-8")
    with pytest.raises(IngestError) as info:
        parse_article(path)
    message = str(info.value)
    assert message.startswith(f"{path} nests its elements more than {MAX_DEPTH} deep")
    assert message.endswith(
        "past what this reader walks: its text would be cut there; flatten the page, or save "
        "its text and ingest that"
    )


def test_reingesting_with_another_embedder_is_not_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Gardens need water every morning.\n", "utf-8")
    store = tmp_path / "s.sqlite"
    base = ["--store", str(store)]
    assert main([*base, "--embedder", "fake:16", "rag", "ingest", "text", str(note)]) == 0
    capsys.readouterr()
    assert main([*base, "--embedder", "fake:32", "rag", "ingest", "text", str(note)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"error: store {store} holds vectors from embedder 'fake-16' but the embedder in use is "
        "'fake-32': open it with the 'fake-16' embedder (--embedder fake:16 or "
        "JW_EMBEDDER=fake:16) or rebuild it into a new store\n"
    )
    with SQLiteStore(store, FakeEmbedder(dim=32)) as other, pytest.raises(StoreError):
        ingest_text(other, note)
    with SQLiteStore(store, FakeEmbedder(dim=16)) as same:
        assert ingest_text(same, note).skipped  # the same embedder: unchanged, skipped
