"""Findings of the review of streaming ingest (issue 30, part 5), each with the
test that failed before its fix."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.jwpub.jw_formats_builder import Doc, write_jwpub

XHTML = (
    '<html><body><article><h1 data-pid="1">Water</h1>'
    '<p data-pid="2">Gardens need water every morning, and the soil keeps it.</p>'
    "</article></body></html>"
)


def _names(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_jwpubs_database_copy_has_no_name_while_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed while reading a publication (kill -9, power cut) left its
    private copy of the database, up to 256 MiB, in the temporary folder for
    ever: the copy had a name from the copy to the end of the read."""
    import jw_core.jwpub as jwpub

    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    path = write_jwpub(tmp_path / "pub.jwpub", [Doc(1, 101, "Water", XHTML)])
    seen: list[list[str]] = []
    real_copy, real_decrypt = jwpub.shutil.copyfileobj, jwpub.decrypt_content

    def copy(*args: object, **kwargs: object) -> None:
        real_copy(*args, **kwargs)  # type: ignore[arg-type]
        seen.append(_names(spare))

    def decrypt(*args: object) -> str:
        seen.append(_names(spare))
        return real_decrypt(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(jwpub.shutil, "copyfileobj", copy)
    monkeypatch.setattr(jwpub, "decrypt_content", decrypt)
    pub = jwpub.read_jwpub(path)
    assert "Gardens need water" in pub.documents[0].xhtml
    assert len(seen) == 3  # 'contents' spooled, its database copied, one document decrypted
    assert seen == [[], [], []], f"named temporary files while reading: {seen}"
    assert _names(spare) == []


def test_a_damaged_jwpub_database_still_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jw_core.jwpub import JwFormatError, read_jwpub

    spare = tmp_path / "tmp"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    good = write_jwpub(tmp_path / "good.jwpub", [Doc(1, 101, "Water", XHTML)])
    import zipfile

    with zipfile.ZipFile(good) as outer, zipfile.ZipFile(outer.open("contents")) as inner:
        db = inner.read("tp.db")
    for label, data in [("cut", db[: len(db) // 2]), ("not sqlite", b"x" * 4096), ("empty", b"")]:
        path = write_jwpub(tmp_path / f"{label}.jwpub", [], database=data)
        with pytest.raises(JwFormatError, match=r"\.jwpub: contents: tp\.db") as caught:
            read_jwpub(path)
        assert "\n" not in str(caught.value)
        assert _names(spare) == [], label
