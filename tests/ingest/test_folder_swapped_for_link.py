"""A folder swapped for a link to a folder outside the allowed roots after its
check, while it is being read: nothing outside is read, and the outside
folder's file names are not told either. They were listed through the link
and named in the answer as "links to files outside the allowed roots",
though none of them was a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import jw_rag.ingest.loader as loader
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import checking_paths, load_folder

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")


def _confined(root: Path):  # type: ignore[no-untyped-def]
    def check(name: str, real: Path) -> None:
        if not real.is_relative_to(root.resolve()):
            raise ConfigError(f"{name} is outside the allowed roots")

    return check


def _tree(tmp_path: Path) -> tuple[Path, Path, Path]:
    root, outside = tmp_path / "root", tmp_path / "outside"
    notes = root / "notes"
    (notes / "sub").mkdir(parents=True)
    outside.mkdir()
    (notes / "a.txt").write_text("Lamps need oil.\n", encoding="utf-8")
    (notes / "sub" / "b.txt").write_text("Bread and wine.\n", encoding="utf-8")
    (outside / "private-plans.txt").write_text("Outside words.\n", encoding="utf-8")
    (outside / "b.txt").write_text("Outside words.\n", encoding="utf-8")
    return root, notes, outside


def _swap(folder: Path, target: Path) -> None:
    folder.rename(folder.with_name(folder.name + ".old"))
    folder.symlink_to(target, target_is_directory=True)


def test_the_folder_swapped_after_its_check_names_no_outside_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, notes, outside = _tree(tmp_path)
    checked = loader.checked_folder

    def check_then_swap(folder: str | Path) -> Path:
        path = checked(folder)
        _swap(notes, outside)  # between the check and the listing
        return path

    monkeypatch.setattr(loader, "checked_folder", check_then_swap)
    with checking_paths(_confined(root)), pytest.raises(IngestError) as caught:
        load_folder(notes)
    message = str(caught.value)
    assert "\n" not in message and "changed while it was being read" in message
    assert "private-plans" not in message and "link to" not in message


def test_a_folder_inside_swapped_after_the_listing_stops_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, notes, outside = _tree(tmp_path)
    listed = loader._folder_files

    def list_then_swap(folder: Path):  # type: ignore[no-untyped-def]
        found = listed(folder)
        _swap(notes / "sub", outside)
        return found

    monkeypatch.setattr(loader, "_folder_files", list_then_swap)
    with checking_paths(_confined(root)), pytest.raises(IngestError) as caught:
        load_folder(notes)
    assert "changed while it was being read" in str(caught.value)


def test_a_real_link_to_a_file_outside_is_still_left_out_by_name(tmp_path: Path) -> None:
    root, notes, outside = _tree(tmp_path)
    (notes / "plans.txt").symlink_to(outside / "private-plans.txt")
    with checking_paths(_confined(root)):
        docs, _ = load_folder(notes)
    assert sorted(d.source_id for d in docs) == ["notes/a", "notes/sub/b"]
