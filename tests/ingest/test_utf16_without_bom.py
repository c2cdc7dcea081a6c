"""Text saved as UTF-16 without a byte-order mark (every other byte NUL) was
refused as "binary data, not text; check the file", which does not say what
to do; it is named as UTF-16 with the command that converts it. Binary data is
still binary data."""

from __future__ import annotations

from pathlib import Path

import pytest

from jw_rag.errors import IngestError
from jw_rag.ingest import load_documents

TEXT = "The soul is the person.\n\nHowever, it can die, says Ezekiel.\n"


@pytest.mark.parametrize(("codec", "name"), [("utf-16-le", "utf-16le"), ("utf-16-be", "utf-16be")])
@pytest.mark.parametrize("kind", ["text", "markdown"])
def test_utf16_without_a_bom_is_named_with_its_fix(
    tmp_path: Path, codec: str, name: str, kind: str
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(TEXT.encode(codec))
    with pytest.raises(IngestError) as caught:
        load_documents(path, kind=kind)
    assert str(caught.value) == (
        f"{path} looks like UTF-16 text without a byte-order mark, not UTF-8: convert it "
        f"with `iconv -f {name} -t utf-8` and ingest the converted file"
    )


def test_with_a_bom_it_is_read_and_binary_data_is_still_binary(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(TEXT.encode("utf-16"))
    assert [p.text for p in load_documents(path, kind="text")[0].paragraphs][0] == (
        "The soul is the person."
    )
    path.write_bytes(bytes(range(256)) * 8)
    with pytest.raises(IngestError, match=r"notes\.txt holds binary data, not text; check"):
        load_documents(path, kind="text")
    path.write_bytes(b"\x00\x01" * 100)  # NUL every other byte, but no text
    with pytest.raises(IngestError, match=r"notes\.txt holds binary data, not text; check"):
        load_documents(path, kind="text")


# Cyrillic, Greek and Armenian: every character's high byte is its script's
# block (0x04, 0x03, 0x05), not NUL, beside the NULs of spaces and punctuation
OTHER_SCRIPTS = [
    "Душа — это сам человек.\n\nОна может умереть, говорит Иезекииль.\n",
    "Η ψυχή είναι το ίδιο το άτομο.\n\nΜπορεί να πεθάνει, λέει ο Ιεζεκιήλ.\n",
    "Հոգին հենց մարդն է։\n\nՆա կարող է մեռնել, ասում է Եզեկիելը։\n",
]


@pytest.mark.parametrize(("codec", "name"), [("utf-16-le", "utf-16le"), ("utf-16-be", "utf-16be")])
@pytest.mark.parametrize("text", OTHER_SCRIPTS)
def test_utf16_of_another_script_is_named_too(
    tmp_path: Path, codec: str, name: str, text: str
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(text.encode(codec))
    with pytest.raises(IngestError, match=rf"UTF-16 text without a byte-order mark.*-f {name} "):
        load_documents(path, kind="text")


def test_pairs_without_the_nuls_of_spaces_are_still_binary(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"\x1f\x04" * 300)  # one printable character (U+041F) over and over
    with pytest.raises(IngestError, match=r"notes\.txt holds binary data, not text; check"):
        load_documents(path, kind="text")
