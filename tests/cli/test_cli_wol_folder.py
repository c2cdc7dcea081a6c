"""``jw rag ingest article`` on a folder of saved wol pages: the articles are
stored, and the Bible chapter pages are named in the one ``warning:`` line
with the command that reads them, which then stores them verse by verse."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from tests.ingest.test_wol_folder_kinds import _wol


def test_a_wol_folder_is_stored_once_per_kind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wol = _wol(tmp_path, chapters=2)
    (wol / "cover.jpg").write_bytes(b"\xff\xd8\xff")
    store = str(tmp_path / "s.sqlite")
    assert main(["--store", store, "rag", "ingest", "article", str(wol)]) == 0
    out, err = capsys.readouterr()
    assert out == "wol/bees: 1 chunk, chunker paragraph, language en (stored)\n"
    assert err == (
        f"warning: {wol}: left out 2 Bible chapter pages (ruth-1.html, ruth-2.html) and 1 "
        "file of a type no kind reads (1 .jpg); ingest the folder again as bible to store them\n"
    )
    assert main(["--store", store, "rag", "ingest", "bible", str(wol), "--json"]) == 0
    out, err = capsys.readouterr()
    assert '"source_id": "ruth:1"' in out and '"source_id": "ruth:2"' in out
    assert "left out 1 article page (bees.html)" in err and err.count("\n") == 1
