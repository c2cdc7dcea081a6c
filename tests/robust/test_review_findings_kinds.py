"""Review findings on the table of source kinds (#29): a hostile kind name is
refused in one short line, whatever its length or shape; an HTML kind (article,
bible) refuses a file whose signature shows another kind instead of storing it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.errors import ConfigError
from jw_rag.ingest import ingest, source_kind


@pytest.mark.parametrize("name", ["", "ｔｅｘｔ", "te\u200bxt", "x" * 100_000, "epub\x00",
                                  "\n" * 5_000, None, 7])  # fmt: skip
def test_an_unknown_kind_is_one_short_line(name: object) -> None:
    with pytest.raises(ConfigError, match="unknown source kind") as err:
        source_kind(name)  # type: ignore[arg-type]
    line = str(err.value)
    assert "\n" not in line and len(line) < 200
    assert "valid kinds: article, bible, pdf, markdown, text, epub, jwpub, backup" in line


def test_a_huge_kind_name_is_refused_before_the_store_is_touched(tmp_path: Path) -> None:
    class Untouchable:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"the store was used ({name})")

    with pytest.raises(ConfigError, match=r"unknown source kind 'xxx.*\.\.\.;") as err:
        ingest(Untouchable(), "x" * 1_000_000, tmp_path / "a.txt")  # type: ignore[arg-type]
    assert len(str(err.value)) < 200


@pytest.mark.parametrize("name", ["Text", " text", "epub\n", "TEXT\t", "Bible_Chapter"])
def test_a_known_kind_in_any_case_or_padding_is_found(name: str) -> None:
    assert source_kind(name).name == name.strip().lower().replace("_chapter", "")


@pytest.mark.parametrize("kind", ["article", "bible"])
@pytest.mark.parametrize(("name", "data", "shown"), [
    ("fake.pdf", b"%PDF-1.4 some words, not a page", "a PDF"),
    ("real.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\n", "a PDF"),
    ("book.epub", b"PK\x03\x04" + b"\x00" * 60, "a ZIP archive"),
])  # fmt: skip
def test_an_html_kind_refuses_a_file_of_another_kind(
    tmp_path: Path, kind: str, name: str, data: bytes, shown: str
) -> None:
    from jw_rag.embed import FakeEmbedder
    from jw_rag.errors import IngestError
    from jw_rag.store import SQLiteStore

    path = tmp_path / name
    path.write_bytes(data)
    with SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16)) as store:
        with pytest.raises(IngestError) as err:
            ingest(store, kind, path)
        assert shown in str(err.value) and "\n" not in str(err.value)
        assert store.stats()["chunks"] == 0
