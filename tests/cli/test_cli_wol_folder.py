"""``jw rag ingest article`` on a folder of saved wol pages: the articles are
stored, and the Bible chapter pages are named in the one ``warning:`` line
with the command that reads them, which then stores them verse by verse."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_cli.app import main
from tests.ingest.test_wol_folder_kinds import _wol


def _wol_with_a_picture(tmp_path: Path) -> tuple[Path, str]:
    wol = _wol(tmp_path, chapters=2)
    (wol / "cover.jpg").write_bytes(b"\xff\xd8\xff")
    return wol, str(tmp_path / "s.sqlite")


_NOTE = (
    "left out 2 Bible chapter pages (ruth-1.html, ruth-2.html) and 1 file of a type no kind "
    "reads (1 .jpg); ingest the folder again as bible to store them\n"
)


def test_a_wol_folder_is_stored_once_per_kind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wol, store = _wol_with_a_picture(tmp_path)
    assert main(["--store", store, "rag", "ingest", "article", str(wol)]) == 0
    out, err = capsys.readouterr()
    assert out == "wol/bees: 1 chunk, chunker paragraph, language en (stored)\n"
    assert err == f"warning: {wol}: {_NOTE}"
    assert main(["--store", store, "rag", "ingest", "bible", str(wol), "--json"]) == 0
    out, err = capsys.readouterr()
    assert '"source_id": "ruth:1"' in out and '"source_id": "ruth:2"' in out
    assert "left out 1 article page (bees.html)" in err and err.count("\n") == 1


def test_json_output_carries_the_left_out_files_and_stderr_keeps_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import json

    wol, store = _wol_with_a_picture(tmp_path)
    assert main(["--store", store, "rag", "ingest", "article", str(wol), "--json"]) == 0
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert [s["source_id"] for s in answer["sources"]] == ["wol/bees"]
    assert answer["left_out"] == [
        {
            "folder": str(wol),
            "files": 3,
            "groups": [
                {"what": "Bible chapter page", "files": 2, "kind": "bible",
                 "examples": ["ruth-1.html", "ruth-2.html"], "page": True},
                {"what": ".jpg", "files": 1, "kind": None, "examples": ["cover.jpg"], "page": False},
            ],
        }
    ]  # fmt: skip
    assert err == f"warning: {wol}: {_NOTE}"  # the same one line as without --json


def test_json_output_is_the_list_of_sources_when_nothing_is_left_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import json

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nOne paragraph of text here.\n", encoding="utf-8")
    assert (
        main(
            [
                "--store",
                str(tmp_path / "s.sqlite"),
                "rag",
                "ingest",
                "markdown",
                str(folder),
                "--json",
            ]
        )
        == 0
    )
    out, err = capsys.readouterr()
    assert isinstance(json.loads(out), list) and err == ""


def test_json_ingest_of_a_folder_of_only_the_other_kind_is_one_error_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wol = _wol(tmp_path, chapters=2)
    (wol / "bees.html").unlink()
    code = main(
        ["--store", str(tmp_path / "s.sqlite"), "rag", "ingest", "article", str(wol), "--json"]
    )
    out, err = capsys.readouterr()
    assert code != 0 and out == ""
    # one error line that names the pages and the kind (no JSON, nothing said twice)
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert "left out 2 Bible chapter pages" in err and "ingest the folder again as bible" in err
