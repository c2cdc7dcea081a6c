"""The ``ingest`` tool tells the agent which files of a folder it left out: a
``warning:`` line after the stored sources (what ``jw rag ingest`` prints, with
the tool's kind names) and ``left_out`` beside ``result`` in the structured
content. Before, the warning went to the server's stderr and the agent read
only the stored sources, as if the whole folder had been ingested."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from jw_rag.ingest._left_out import NAMED_TYPES
from jw_rag.ingest.loader import EXTENSIONS
from tests.mcp.mcp_client import connect

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"


def _wol_folder(root: Path) -> Path:
    """Saved wol pages: an article and a Bible chapter, with a PDF, a note and
    a picture beside them."""
    wol = root / "wol"
    wol.mkdir(parents=True)
    shutil.copy(FIXTURES / "article_en.html", wol / "garden.html")
    shutil.copy(FIXTURES / "john-3.html", wol / "john-3.html")
    (wol / "notes.txt").write_text("A note.\n", encoding="utf-8")
    (wol / "leaflet.pdf").write_bytes(b"%PDF-1.4\n")
    (wol / "garden_files").mkdir()
    (wol / "garden_files" / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    return wol


async def _texts(c: Any, **arguments: Any) -> tuple[bool, list[str], dict[str, Any] | None]:
    result = await c.session.call_tool("ingest", arguments)
    return result.is_error, [b.text for b in result.content], result.structured_content


async def _stored(c: Any, kind: str, source: str) -> tuple[list[str], dict[str, Any]]:
    """The texts and structured content of an ingest call that succeeded."""
    error, texts, structured = await _texts(c, kind=kind, source=source)
    assert not error and structured is not None, texts
    return texts, structured


def test_the_ingest_tool_names_the_files_of_a_folder_it_left_out(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    wol = _wol_folder(root)
    (root / "only").mkdir()
    shutil.copy(FIXTURES / "article_en.html", root / "only" / "garden.html")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            texts, structured = await _stored(c, "article", "wol")
            assert [r["source_id"] for r in structured["result"]] == ["wol/garden"]
            assert texts[-1] == (
                f"warning: {wol}: left out 2 files that are not HTML (1 .pdf, 1 .txt), "
                "1 Bible chapter page (john-3.html) and 1 file of a type no kind reads "
                "(1 .jpg); ingest the folder again as bible_chapter, pdf or text to store them"
            )
            assert len(texts) == 2 and '"source_id": "wol/garden"' in texts[0]
            assert structured["left_out"] == [{
                "folder": str(wol), "files": 4, "groups": [
                    {"what": ".pdf", "files": 1, "kind": "pdf", "examples": ["leaflet.pdf"],
                     "page": False},
                    {"what": ".txt", "files": 1, "kind": "text", "examples": ["notes.txt"],
                     "page": False},
                    {"what": "Bible chapter page", "files": 1, "kind": "bible_chapter",
                     "examples": ["john-3.html"], "page": True},
                    {"what": ".jpg", "files": 1, "kind": None,
                     "examples": ["garden_files/photo.jpg"], "page": False},
                ],
            }]  # fmt: skip

            # the kind the warning names reads the chapter, and names the article it leaves
            texts, structured = await _stored(c, "bible_chapter", "wol")
            assert [r["source_id"] for r in structured["result"]] == ["john:3"]
            assert "1 article page (garden.html)" in texts[-1]
            assert texts[-1].endswith(
                "ingest the folder again as article, pdf or text to store them"
            )

            # nothing left out: the answer is the list it always was
            texts, structured = await _stored(c, "article", "only")
            assert structured == {"result": [structured["result"][0]]}
            assert len(texts) == 1 and not texts[0].startswith("warning:")

    anyio.run(scenario)


def test_the_left_out_note_stays_bounded_and_folders_of_nothing_are_one_line_errors(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    wol = _wol_folder(root)
    for i in range(2000):
        (wol / f"scan{i}.t{i}").write_bytes(b"")
    (wol / "odd\nname\x1b[31m.html").write_text((FIXTURES / "john-3.html").read_text("utf-8"))
    (wol / b"bad-\xff.jpg".decode("utf-8", "surrogateescape")).write_bytes(b"")
    (root / "empty").mkdir()
    (root / "pictures").mkdir()
    (root / "pictures" / "a.jpg").write_bytes(b"")
    (root / "chapters").mkdir()
    shutil.copy(FIXTURES / "john-3.html", root / "chapters" / "john-3.html")
    odd = root / "saved\npages\x1b[2J"
    odd.mkdir()
    shutil.copy(FIXTURES / "article_en.html", odd / "garden.html")
    (odd / "photo.jpg").write_bytes(b"")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            texts, structured = await _stored(c, "article", "wol")
            line = texts[-1]
            assert line.startswith("warning: ") and line.isprintable(), line
            assert len(line) - len(str(wol)) < 1000
            assert "2 Bible chapter pages (john-3.html, 'odd\\nname\\x1b[31m.html')" in line
            (note,) = structured["left_out"]
            assert note["files"] == 2 + 2 + 2 + 2000
            most = len(EXTENSIONS) + 1 + NAMED_TYPES + 1  # other kinds, pages, no kind
            assert len(note["groups"]) <= most and note["groups"][-1]["what"] == "other types"
            for name, folder in (("empty", "empty"), ("pictures", "pictures")):
                error, texts, _ = await _texts(c, kind="article", source=name)
                assert error and len(texts) == 1 and "\n" not in texts[0], name
                assert f"{root / folder}: no supported files" in texts[0]
            texts, structured = await _stored(c, "article", odd.name)
            shown = repr(str(odd))
            assert texts[-1] == (
                f"warning: {shown}: left out 1 file of a type no kind reads (1 .jpg)"
            )
            assert structured["left_out"][0]["folder"] == shown
            error, texts, _ = await _texts(c, kind="article", source="chapters")
            assert error and texts[0].endswith(
                "nothing to read as article, left out 1 Bible chapter page (john-3.html); "
                "ingest the folder again as bible (bible_chapter in the MCP ingest tool) to "
                "store them"
            )

    anyio.run(scenario)


def test_a_file_name_that_is_not_utf8_is_a_one_line_error_not_a_silent_call(
    tmp_path: Path,
) -> None:
    """A folder holding a file whose name is not UTF-8 is refused (no store keeps
    such an id); the refusal quoted the raw name, which no JSON answer can carry,
    so the server could not send it and the call never ended."""
    root = tmp_path / "docs"
    lib = root / "lib"
    lib.mkdir(parents=True)
    shutil.copy(FIXTURES / "article_en.html", lib / "good.html")
    shutil.copy(
        FIXTURES / "article_en.html", lib / b"bad-\xff.html".decode("utf-8", "surrogateescape")
    )

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            with anyio.fail_after(30):
                error, texts, _ = await _texts(c, kind="article", source="lib")
            assert error and texts == [
                f"Error executing tool ingest: {lib}/bad-\\udcff.html: the path is not UTF-8, "
                "which no store can keep as the source's id or origin: rename the file (or copy "
                "it) to a UTF-8 name"
            ]

    anyio.run(scenario)


def test_publications_and_backups_in_a_folder_are_named_with_their_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A .jwpub or .jwlibrary file beside a folder's notes was called "a type no
    kind reads", though the jwpub and backup kinds read it (one file at a time)."""
    from jw_cli.app import main

    root = tmp_path / "docs"
    lib = root / "lib"
    lib.mkdir(parents=True)
    (lib / "notes.txt").write_text("A note about hope.\n", encoding="utf-8")
    (lib / "lff_E.jwpub").write_bytes(b"PK\x03\x04")
    (lib / "UserDataBackup.jwlibrary").write_bytes(b"PK\x03\x04")
    (lib / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    said = (
        f"{lib}: left out 2 files that a kind reads one at a time (1 .jwlibrary, 1 .jwpub) "
        "and 1 file of a type no kind reads (1 .jpg); ingest each .jwlibrary file as "
        "{backup} and each .jwpub file as jwpub"
    )
    code = main(["--store", str(tmp_path / "cli.sqlite"), "rag", "ingest", "text", str(lib)])
    err = capsys.readouterr().err
    assert code == 0 and err == f"warning: {said.format(backup='backup')}\n"

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root)) as c:
            texts, structured = await _stored(c, "text", "lib")
            assert texts[-1] == f"warning: {said.format(backup='jw_library_backup')}"
            groups = structured["left_out"][0]["groups"]
            assert [(g["what"], g["kind"]) for g in groups] == [
                (".jwlibrary", "jw_library_backup"), (".jwpub", "jwpub"), (".jpg", None),
            ]  # fmt: skip

    anyio.run(scenario)
