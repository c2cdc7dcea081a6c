"""A folder's file replaced by a link (to a file of the same or other content,
inside the folder) is the same source on re-ingest: its origin is the file's
own path, links followed only on the way to its folder. A link leading
outside the allowed roots is left out by name, never read, and its stored
source is kept as it was."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from jw_rag.embed.fake import FakeEmbedder
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import checking_paths, collecting_left_out, ingest, ingest_folder
from jw_rag.store import SQLiteStore
from tests.threads import run_at_once

NAMES = ["a.txt", "ñ a\u200b b;'.txt"]


def _store(path: Path) -> SQLiteStore:
    return SQLiteStore(path, embedder=FakeEmbedder(dim=16))


def _state(path: Path) -> dict[str, tuple[str, str]]:
    """Each stored source: its origin and its text."""
    with closing(_store(path)) as st:
        out = {}
        for sid in sorted(st.stats()["per_source"]):
            meta = st.get_source(sid)["metadata"]  # type: ignore[index]
            out[sid] = (meta["origin"], meta["title"])
        return out


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    folder.mkdir()
    for name in NAMES:
        (folder / name).write_text(f"First words of {name}.\n", encoding="utf-8")
    (folder / "same.txt").write_text(f"First words of {NAMES[0]}.\n", encoding="utf-8")
    (folder / "other.txt").write_text("Other words.\n", encoding="utf-8")
    return folder


def _ingest(store: Path, folder: Path) -> list[tuple[str, bool]]:
    with closing(_store(store)) as st:
        return [(r.source_id, r.skipped) for r in ingest_folder(st, folder).results]


def _link(path: Path, target: str) -> None:
    path.unlink()
    path.symlink_to(target)


@pytest.mark.parametrize("name", NAMES)
def test_a_file_replaced_by_a_link_to_the_same_content_is_unchanged(
    tmp_path: Path, lib: Path, name: str
) -> None:
    store = tmp_path / "s.sqlite"
    _ingest(store, lib)
    before = _state(store)
    _link(lib / name, "same.txt")
    sid = f"lib/{Path(name).stem}"
    got = dict(_ingest(store, lib))
    if name == NAMES[0]:
        assert got[sid] is True  # unchanged: nothing rewritten
    assert _state(store)[sid][0] == str(lib / name)
    assert set(_state(store)) == set(before)


def test_a_link_to_other_content_replaces_the_source_under_its_own_id(
    tmp_path: Path, lib: Path
) -> None:
    store = tmp_path / "s.sqlite"
    _ingest(store, lib)
    _link(lib / "a.txt", "other.txt")
    assert ("lib/a", False) in _ingest(store, lib)
    assert _state(store)["lib/a"] == (str(lib / "a.txt"), "Other words.")
    # and back to a file of its own: the same source again
    (lib / "a.txt").unlink()
    (lib / "a.txt").write_text("Back again.\n", encoding="utf-8")
    assert ("lib/a", False) in _ingest(store, lib)
    assert _state(store)["lib/a"] == (str(lib / "a.txt"), "Back again.")
    assert _state(store)["lib/other"] == (str(lib / "other.txt"), "Other words.")


def test_a_source_stored_with_its_links_target_as_origin_is_the_same_source(
    tmp_path: Path, lib: Path
) -> None:
    """What an older version stored for a file that was a link: the target."""
    store = tmp_path / "s.sqlite"
    _link(lib / "a.txt", "other.txt")
    _ingest(store, lib)
    with closing(sqlite3.connect(store)) as db, db:
        db.execute(
            "UPDATE sources SET metadata = json_set(metadata, '$.origin', ?) WHERE source_id = ?",
            (str(lib / "other.txt"), "lib/a"),
        )
    assert ("lib/a", False) in _ingest(store, lib)  # rewritten, to record the link's path
    assert _state(store)["lib/a"] == (str(lib / "a.txt"), "Other words.")
    _ingest(store, lib)  # written without a content hash, as --replace does: once more
    assert ("lib/a", True) in _ingest(store, lib)
    assert _state(store)["lib/a"] == (str(lib / "a.txt"), "Other words.")


def test_another_file_under_a_stored_id_is_still_refused(tmp_path: Path, lib: Path) -> None:
    store = tmp_path / "s.sqlite"
    _ingest(store, lib)
    before = _state(store)
    elsewhere = tmp_path / "elsewhere" / "lib"
    elsewhere.mkdir(parents=True)
    (elsewhere / "a.txt").symlink_to(lib / "other.txt")
    with pytest.raises(IngestError, match=r"^source 'lib/a' was ingested from .*; refusing"):
        _ingest(store, elsewhere)
    assert _state(store) == before


def test_a_link_leading_outside_the_allowed_root_is_left_out_and_its_source_kept(
    tmp_path: Path, lib: Path
) -> None:
    store = tmp_path / "s.sqlite"
    _ingest(store, lib)
    before = _state(store)
    secret = tmp_path / "secret.txt"
    secret.write_text("Outside words.\n", encoding="utf-8")
    _link(lib / "a.txt", str(secret))
    allowed = lib.resolve()

    def check(shown: str, resolved: Path) -> None:
        if not resolved.is_relative_to(allowed):
            raise ConfigError(f"{shown} is outside the allowed roots ({allowed})")

    with checking_paths(check), closing(_store(store)) as st, collecting_left_out() as left:
        done = ingest(st, "text", lib)  # the other files are read, the link left out by name
    assert sorted(r.source_id for r in done) == ["lib/other", "lib/same", "lib/ñ a\u200b b;'"]
    assert "1 link to a file outside the allowed roots (a.txt)" in left[0].message
    assert _state(store) == before  # lib/a as it was: the linked file was never read


def test_two_ingests_at_once_of_a_folder_with_a_link_both_succeed(
    tmp_path: Path, lib: Path
) -> None:
    store = tmp_path / "s.sqlite"
    _ingest(store, lib)
    _link(lib / "a.txt", "other.txt")
    assert run_at_once(lambda: _ingest(store, lib), 3) == []
    assert _state(store)["lib/a"] == (str(lib / "a.txt"), "Other words.")
