"""A folder re-ingest names the stored sources of that folder whose file is
gone (one ``warning:`` line, and ``"vanished"`` in ``--json``) and how to
remove them; it deletes none of them."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.embed.fake import FakeEmbedder
from jw_rag.ingest import ingest_folder
from jw_rag.ingest.folder import Vanished, vanished_line, vanished_sources
from jw_rag.store import SQLiteStore, open_store
from tests.threads import run_at_once


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _ids(store: str) -> list[str]:
    with closing(open_store(store, read_only=True)) as st:
        return sorted(st.stats()["per_source"])


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    (folder / "sub").mkdir(parents=True)
    for name in ("a", "b", "sub/d", "e\u0301 \x7f;'"):
        (folder / f"{name}.txt").write_text(f"Text of {name}.\n", encoding="utf-8")
    return folder


@pytest.fixture
def store(tmp_path: Path, lib: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "s.sqlite")
    assert run(capsys, "rag", "ingest", "text", str(lib), "--store", path)[0] == 0
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.txt").write_text("Elsewhere.\n", encoding="utf-8")
    assert run(capsys, "rag", "ingest", "text", str(tmp_path / "other"), "--store", path)[0] == 0
    return path


def test_a_re_ingest_with_every_file_in_place_says_nothing_more(
    capsys: pytest.CaptureFixture[str], lib: Path, store: str
) -> None:
    code, out, err = run(capsys, "rag", "ingest", "text", str(lib), "--store", store, "--json")
    assert (code, err) == (0, "")
    assert isinstance(json.loads(out), list)


def test_gone_files_are_one_warning_line_and_nothing_is_deleted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lib: Path, store: str
) -> None:
    before = _ids(store)
    (lib / "b.txt").unlink()
    (lib / "sub" / "d.txt").unlink()
    (tmp_path / "other" / "x.txt").unlink()  # another folder's: not this ingest's to name
    code, out, err = run(capsys, "rag", "ingest", "text", str(lib), "--store", store)
    assert code == 0 and out.splitlines()[-1] == "2 sources, 0 stored, 2 chunks"
    assert err == (
        f"warning: {lib}: 2 stored sources of this folder have no file any more ('lib/b', "
        "'lib/sub/d'), kept in the store: `jw rag delete --source ID` removes one\n"
    )
    assert _ids(store) == before
    code, out, err2 = run(capsys, "rag", "ingest", "text", str(lib), "--store", store, "--json")
    assert code == 0 and err2 == err
    got = json.loads(out)
    assert [s["source_id"] for s in got["sources"]] == ["lib/a", "lib/e\u0301 \x7f;'"]
    assert got["vanished"] == [
        {"source_id": "lib/b", "origin": str(lib / "b.txt")},
        {"source_id": "lib/sub/d", "origin": str(lib / "sub" / "d.txt")},
    ]
    # the command the line names removes one; the next re-ingest names the other
    assert run(capsys, "rag", "delete", "--source", "lib/b", "--store", store)[0] == 0
    _, _, err3 = run(capsys, "rag", "ingest", "text", str(lib), "--store", store)
    assert "1 stored source of this folder has no file any more ('lib/sub/d')" in err3


def test_an_odd_name_and_a_long_list_stay_one_line(tmp_path: Path, lib: Path) -> None:
    odd = Vanished("lib/e\u0301 \x7f\n;'", "/x")
    line = vanished_line(lib, [odd])
    assert "\n" not in line and '("lib/e\u0301 \\x7f\\n;\'")' in line
    many = [Vanished(f"lib/{i}", f"/x/{i}") for i in range(10_000)]
    line = vanished_line("lib", many)
    assert line == (
        "lib: 10000 stored sources of this folder have no file any more ('lib/0', 'lib/1', "
        "'lib/2', 'lib/3', 'lib/4' and 9995 more), kept in the store: "
        "`jw rag delete --source ID` removes one"
    )


def test_a_gone_file_replaced_by_a_folder_or_a_broken_link_counts_as_gone(
    tmp_path: Path, lib: Path, store: str
) -> None:
    (lib / "a.txt").unlink()
    (lib / "a.txt").mkdir()
    (lib / "b.txt").unlink()
    (lib / "b.txt").symlink_to(tmp_path / "nowhere.txt")
    with closing(open_store(store)) as st:
        assert [v.source_id for v in vanished_sources(st, lib)] == ["lib/a", "lib/b"]
        assert vanished_sources(st, lib / "sub") == []
        assert vanished_sources(st, tmp_path / "empty-name") == []


def test_concurrent_re_ingests_each_name_the_gone_file_and_keep_it(
    tmp_path: Path, lib: Path, store: str
) -> None:
    (lib / "b.txt").unlink()
    seen: list[list[str]] = []

    def one() -> None:
        with closing(SQLiteStore(store, embedder=FakeEmbedder(dim=64))) as st:
            ingest_folder(st, lib)
            seen.append([v.source_id for v in vanished_sources(st, lib)])

    errors = run_at_once(one, 3)
    assert errors == [] and seen == [["lib/b"]] * 3
    assert "lib/b" in _ids(store)
