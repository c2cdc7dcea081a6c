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
