"""read_jwpub on publications written by jw_formats_builder, and on broken files."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_core.jwpub import (
    ContentDecryptError,
    JwDocument,
    JwFormatError,
    decrypt_content,
    derive_key_iv,
    encrypt_content,
    read_jwpub,
)
from tests.jwpub.jw_formats_builder import Doc, jwpub_database, write_jwpub

CHAPTER = (
    '<html xmlns="http://www.w3.org/1999/xhtml"><body><header><h1>Chapter One</h1></header>'
    '<p id="p1" data-pid="1"><span class="parNum">1</span> First paragraph.</p>'
    '<p id="p2" data-pid="2">Second paragraph.</p></body></html>'
)


def _docs() -> list[Doc]:
    return [
        Doc(1, 1102024001, "Chapter One", CHAPTER),
        Doc(2, 1102024002, "Cover", ""),  # no content: left out
        Doc(3, 1102024003, "Chapter Two", '<p data-pid="7">Seventh ¿sí? ção.</p>'),
    ]


def test_round_trip_metadata_and_documents(tmp_path: Path) -> None:
    path = write_jwpub(tmp_path / "tp_E.jwpub", _docs(), symbol="tp", year=2024, title="Test Pub")
    pub = read_jwpub(path)
    assert (pub.symbol, pub.year, pub.meps_language_index, pub.issue_tag_number) == (
        "tp",
        2024,
        0,
        0,
    )
    assert pub.title == "Test Pub"
    assert pub.language == "en"
    assert pub.manifest["publication"]["symbol"] == "tp"
    assert pub.documents == (
        JwDocument(1, 1102024001, "Chapter One", CHAPTER),
        JwDocument(3, 1102024003, "Chapter Two", '<p data-pid="7">Seventh ¿sí? ção.</p>'),
    )


def test_issue_tag_number_enters_the_key(tmp_path: Path) -> None:
    path = write_jwpub(
        tmp_path / "w_S.jwpub", _docs(), symbol="w22", year=2022, meps_language_index=1,
        issue_tag_number=20220600,
    )  # fmt: skip
    pub = read_jwpub(path)
    assert pub.issue_tag_number == 20220600
    assert pub.language == "es"
    assert [d.document_id for d in pub.documents] == [1, 3]


def test_unknown_meps_language_is_none(tmp_path: Path) -> None:
    pub = read_jwpub(write_jwpub(tmp_path / "x.jwpub", _docs(), meps_language_index=77))
    assert pub.language is None
    assert len(pub.documents) == 2


def test_reading_leaves_the_file_unchanged(tmp_path: Path) -> None:
    path = write_jwpub(tmp_path / "tp.jwpub", _docs())
    before = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    read_jwpub(path)
    assert (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tp.jwpub"]


def test_wrong_key_names_file_and_document(tmp_path: Path) -> None:
    # Content encrypted for another publication card than the Publication row says.
    path = write_jwpub(tmp_path / "bad.jwpub", _docs(), key_card=(0, "tp", 2023, 0))
    with pytest.raises(ContentDecryptError) as err:
        read_jwpub(path)
    message = str(err.value)
    assert "bad.jwpub" in message and "document 1" in message
    assert "\n" not in message


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in members.items():
            z.writestr(k, v)
    return buf.getvalue()


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good_db = jwpub_database(_docs(), symbol="tp", year=2024, meps_language_index=0)
    cases: dict[str, tuple[bytes, str]] = {
        "not_zip": (b"plain text, not an archive", "not a ZIP archive"),
        "empty": (b"", "not a ZIP archive"),
        "zip_without_contents": (_zip({"manifest.json": b"{}"}), "not a JWPUB"),
        "contents_not_zip": (_zip({"contents": b"nope"}), "not a ZIP archive"),
        "contents_without_db": (_zip({"contents": _zip({"a.txt": b"x"})}), "no .db"),
        "db_not_sqlite": (_zip({"contents": _zip({"a.db": b"x" * 600})}), "not a SQLite"),
        "db_truncated": (
            _zip({"contents": _zip({"a.db": good_db[: len(good_db) // 2]})}),
            "damaged or truncated",
        ),
        "bad_manifest": (
            _zip({"manifest.json": b"{oops", "contents": _zip({"a.db": good_db})}),
            "manifest.json is not valid JSON",
        ),
    }
    out = {}
    for name, (data, expected) in cases.items():
        p = tmp_path / f"{name}.jwpub"
        p.write_bytes(data)
        out[name] = (p, expected)
    return out


@pytest.mark.parametrize(
    "case",
    ["not_zip", "empty", "zip_without_contents", "contents_not_zip", "contents_without_db",
     "db_not_sqlite", "db_truncated", "bad_manifest"],
)  # fmt: skip
def test_bad_files_give_one_line_errors(tmp_path: Path, case: str) -> None:
    path, expected = _bad_files(tmp_path)[case]
    with pytest.raises(JwFormatError) as err:
        read_jwpub(path)
    message = str(err.value)
    assert expected in message
    assert str(path) in message
    assert "\n" not in message


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(JwFormatError, match="no such file"):
        read_jwpub(tmp_path / "absent.jwpub")
    with pytest.raises(JwFormatError, match="directory"):
        read_jwpub(tmp_path)


def _db_with(sql: list[str]) -> bytes:
    import sqlite3

    conn = sqlite3.connect(":memory:")
    for s in sql:
        conn.execute(s)
    conn.commit()
    data = bytes(conn.serialize())
    conn.close()
    return data


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (["CREATE TABLE Other (x)"], "Publication lacks MepsLanguageIndex, Symbol, Year"),
        (
            ["CREATE TABLE Publication (MepsLanguageIndex, Symbol, Year)",
             "INSERT INTO Publication VALUES (0, 'tp', 2024)"],
            "Document lacks DocumentId, Content",
        ),
        (["CREATE TABLE Publication (MepsLanguageIndex, Symbol, Year)"], "Publication table is empty"),
    ],
)  # fmt: skip
def test_unknown_schema(tmp_path: Path, sql: list[str], expected: str) -> None:
    path = write_jwpub(tmp_path / "odd.jwpub", [], database=_db_with(sql))
    with pytest.raises(JwFormatError, match=expected):
        read_jwpub(path)


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(min_size=0, max_size=400),
    lang=st.integers(0, 999),
    symbol=st.from_regex(r"[a-z]{1,5}[0-9]{0,2}", fullmatch=True),
    year=st.integers(1950, 2100),
    issue=st.integers(0, 99999999),
)
def test_encrypt_decrypt_round_trip(
    text: str, lang: int, symbol: str, year: int, issue: int
) -> None:
    key, iv = derive_key_iv(lang, symbol, year, issue)
    blob = encrypt_content(text, key, iv)
    assert len(blob) % 16 == 0
    assert decrypt_content(blob, key, iv) == text


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=1, max_size=200), year=st.integers(1950, 2100))
def test_other_key_never_yields_the_text(text: str, year: int) -> None:
    key, iv = derive_key_iv(0, "nwt", year)
    other_key, other_iv = derive_key_iv(0, "nwt", year + 1)
    blob = encrypt_content(text, key, iv)
    try:
        got = decrypt_content(blob, other_key, other_iv)
    except ContentDecryptError:
        return
    assert got != text
