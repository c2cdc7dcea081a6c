"""``jw rag ingest jwpub|backup`` on small files written by the JWPUB test builder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jw_cli.app import main
from tests.jwpub.jw_formats_builder import Doc, Note, write_backup, write_jwpub

BODY = (
    "<html><body><h1>Why Pray?</h1>"
    '<p data-pid="1">Prayer lets us speak to our Creator at any hour, in any language.</p>'
    '<p data-pid="2">We may pray about our daily needs, our worries and our thanks.</p>'
    "</body></html>"
)


def test_ingest_jwpub_and_backup(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    pub = write_jwpub(tmp_path / "tp_E.jwpub", [Doc(1, 1102024101, "Why Pray?", BODY)])
    assert (
        main(["--store", store, "rag", "ingest", "jwpub", str(pub), "--chunker", "semantic"]) == 0
    )
    out = capsys.readouterr().out
    assert out == "jwpub:tp:2024:1102024101:0: 1 chunk, chunker semantic, language en (stored)\n"

    notes = [Note("g-1", "Endurance", "Endurance brings approval and hope."),
             Note("g-2", "", "Un pensamiento sobre la oración y la paciencia de Dios.")]  # fmt: skip
    backup = write_backup(tmp_path / "b.jwlibrary", notes)
    assert main(["--store", store, "rag", "ingest", "backup", str(backup)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "jwlibrary:note:g-1: 1 chunk, chunker paragraph, language en (stored)",
        "jwlibrary:note:g-2: 1 chunk, chunker paragraph, language es (stored)",
        "2 sources, 2 stored, 2 chunks",
    ]
    assert (
        main(["--store", store, "rag", "search", "daily needs worries", "--mode", "bm25", "--json"])
        == 0
    )
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["source_id"] == "jwpub:tp:2024:1102024101:0"
    assert hits[0]["para_ids"][-1] == "2"
