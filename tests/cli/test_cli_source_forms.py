"""``jw rag search --source`` and ``jw rag delete --source`` name a stored id
equal under Unicode NFC: an id that came in NFD (a macOS file name) is found
with the NFC form a keyboard types, and the reverse."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from jw_cli.app import main
from tests.cli.conftest import CORPUS

STORED = unicodedata.normalize("NFD", "café")
TYPED = unicodedata.normalize("NFC", "café")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_and_delete_find_the_id_stored_in_another_form(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    alma = str(CORPUS / "es" / "alma.html")
    assert (
        run(capsys, "--store", store, "rag", "ingest", "article", alma, "--source-id", STORED)[0]
        == 0
    )
    code, out, err = run(
        capsys, "--store", store, "rag", "search", "alma", "--source", TYPED, "--json"
    )
    assert code == 0 and err == "", err
    assert {h["source_id"] for h in json.loads(out)} == {STORED}
    code, out, err = run(capsys, "--store", store, "rag", "search", "alma", "--source", TYPED,
                         "--source", "nope", "--json")  # fmt: skip
    assert code == 0 and json.loads(out) and "no source 'nope'" in err and "café" not in err
    code, _, err = run(capsys, "--store", store, "rag", "search", "alma", "--source", "cafe")
    assert code == 1 and "no source 'cafe' in the store" in err
    code, out, _ = run(capsys, "--store", store, "rag", "delete", "--source", TYPED, "--json")
    assert code == 0 and json.loads(out)["deleted_chunks"] == 7
    code, _, err = run(capsys, "--store", store, "rag", "delete", "--source", STORED)
    assert code == 1 and "no source" in err
