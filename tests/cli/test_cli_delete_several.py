"""``jw rag delete --source`` repeats as ``jw rag search --source`` does: every
id given is deleted (the folder re-ingest's vanished warning lists several),
and when one names no stored source, none is. A repeated ``--source`` used to
delete only the last id, without a word about the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jw_cli.app import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    folder = tmp_path / "lib"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.txt").write_text(f"Text of {name}.\n\nMore about {name}.\n")
    path = str(tmp_path / "s.sqlite")
    assert run(capsys, "--store", path, "rag", "ingest", "text", str(folder))[0] == 0
    return path


def _stored(capsys: pytest.CaptureFixture[str], store: str) -> list[str]:
    stats = json.loads(run(capsys, "--store", store, "rag", "stats", "--json")[1])
    return sorted(stats["per_source"])


def test_every_source_given_is_deleted(capsys: pytest.CaptureFixture[str], store: str) -> None:
    code, out, err = run(
        capsys, "--store", store, "rag", "delete", "--source", "lib/a", "--source", "lib/c"
    )
    assert (code, err) == (0, "")
    assert out == "deleted 1 chunk of lib/a\ndeleted 1 chunk of lib/c\n"
    assert _stored(capsys, store) == ["lib/b"]


def test_json_lists_each_deleted_source(capsys: pytest.CaptureFixture[str], store: str) -> None:
    argv = ["--store", store, "rag", "delete", "--source", "lib/a", "--source", "lib/b", "--json"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert json.loads(out) == [
        {"source_id": "lib/a", "deleted_chunks": 1},
        {"source_id": "lib/b", "deleted_chunks": 1},
    ]
    one = run(capsys, "--store", store, "rag", "delete", "--source", "lib/c", "--json")[1]
    assert json.loads(one) == {"source_id": "lib/c", "deleted_chunks": 1}  # one id: as before


def test_an_unknown_id_deletes_none(capsys: pytest.CaptureFixture[str], store: str) -> None:
    argv = ["--store", store, "rag", "delete", "--source", "lib/a", "--source", "lib/zz"]
    code, out, err = run(capsys, *argv)
    assert (code, out) == (1, "")
    assert err == (
        f"error: no source 'lib/zz' in {store}; nothing was deleted: "
        "`jw rag stats` lists the stored source ids\n"
    )
    assert _stored(capsys, store) == ["lib/a", "lib/b", "lib/c"]


def test_an_id_given_twice_is_deleted_once(capsys: pytest.CaptureFixture[str], store: str) -> None:
    argv = ["--store", store, "rag", "delete", "--source", "lib/b", "--source", "lib/b"]
    assert run(capsys, *argv) == (0, "deleted 1 chunk of lib/b\n", "")
