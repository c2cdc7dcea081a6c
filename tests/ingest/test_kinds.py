"""The table of source kinds: every front end is generated from it, and the
generic ``ingest`` is what each ``ingest_<kind>`` function does."""

from __future__ import annotations

import typing
from pathlib import Path

import click
import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st

from jw_cli.ingest_commands import ingest_app
from jw_mcp.ingest_tools import KINDS as MCP_KINDS
from jw_mcp.ingest_tools import URL_KINDS
from jw_mcp.params import KindParam
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import (
    KINDS,
    SOURCE_KINDS,
    ingest,
    ingest_article,
    ingest_epub,
    ingest_jwpub,
    ingest_markdown,
    ingest_text,
    kind_names,
    load_kind,
    source_kind,
)
from jw_rag.ingest._source import Loaded, refuse_other_kind
from jw_rag.ingest.loader import EXTENSIONS

NAMES = ("article", "bible", "pdf", "markdown", "text", "epub", "jwpub", "backup")
TOOL_NAMES = ("article", "bible_chapter", "pdf", "markdown", "text", "epub", "jwpub",
              "jw_library_backup")  # fmt: skip


def test_the_table_names_every_kind_once() -> None:
    assert kind_names() == NAMES
    assert kind_names(public=True) == TOOL_NAMES
    assert KINDS == ("article", "bible", "pdf", "markdown", "text", "epub")
    assert EXTENSIONS == {".html": "article", ".htm": "article", ".xhtml": "article",
                          ".pdf": "pdf", ".md": "markdown", ".markdown": "markdown",
                          ".txt": "text", ".epub": "epub"}  # fmt: skip
    for kind in SOURCE_KINDS:
        readers = [kind.read_bytes, kind.read_file, kind.ingest_file]
        assert sum(r is not None for r in readers) == 1, kind.name


def _cli_commands() -> dict[str, click.Command]:
    group = typer.main.get_group(ingest_app)
    return dict(group.commands)


def test_the_cli_has_one_command_per_kind_with_the_options_it_takes() -> None:
    commands = _cli_commands()
    assert tuple(commands) == NAMES
    for kind in SOURCE_KINDS:
        options = {p.name for p in commands[kind.name].params}
        assert ("source_id" in options) == ("source_id" in kind.options), kind.name
        assert ("replace" in options) == ("replace" in kind.options), kind.name
        assert ("skip_bad" in options) == kind.takes("folder"), kind.name
        assert {"chunker", "store", "language", "embedder", "as_json"} <= options
        assert kind.summary in (commands[kind.name].help or "")


def test_the_mcp_tool_offers_every_kind() -> None:
    literal = typing.get_args(KindParam)[0]
    assert typing.get_args(literal) == TOOL_NAMES == MCP_KINDS
    assert URL_KINDS == ("article", "bible_chapter", "pdf", "markdown", "text")


def test_the_sniffer_names_kinds_from_the_table(tmp_path: Path) -> None:
    loaded = Loaded(data=b"%PDF-1.4\n", name="x.txt", path=tmp_path / "x.txt")
    with pytest.raises(IngestError) as err:
        refuse_other_kind(loaded, "text")
    assert str(err.value) == "x.txt is a PDF, not text; ingest it as pdf (`jw rag ingest pdf ...`)"


@given(st.sampled_from(NAMES + TOOL_NAMES), st.sampled_from(["", " ", "\t"]), st.booleans())
def test_either_name_in_any_case_finds_the_kind(name: str, pad: str, upper: bool) -> None:
    found = source_kind(pad + (name.upper() if upper else name) + pad)
    assert name in (found.name, found.public_name)


@pytest.mark.parametrize("bad", ["docx", "", "html", "ingest_article"])
def test_an_unknown_kind_is_one_line_listing_them(bad: str) -> None:
    with pytest.raises(ConfigError) as err:
        source_kind(bad)
    message = str(err.value)
    assert "\n" not in message and message.endswith("valid kinds: " + ", ".join(NAMES))


def test_ingest_is_what_the_named_functions_do(tmp_path: Path, store) -> None:  # noqa: ANN001
    (tmp_path / "a.txt").write_text("One paragraph.\n\nAnother one.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Title\n\nBody text.\n", encoding="utf-8")
    by_alias = [ingest_text(store, tmp_path / "a.txt"), ingest_markdown(store, tmp_path / "b.md")]
    assert [r.skipped for r in by_alias] == [False, False]
    again = ingest(store, "text", tmp_path / "a.txt") + ingest(store, "markdown", tmp_path / "b.md")
    assert [(r.source_id, r.chunks, r.skipped) for r in again] == [
        (r.source_id, r.chunks, True) for r in by_alias
    ]
    assert ingest_article.__name__ == "ingest_article" and "'article'" in (
        ingest_article.__doc__ or ""
    )


def test_a_folder_through_ingest_and_through_load_kind(tmp_path: Path, store) -> None:  # noqa: ANN001
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("First.\n", encoding="utf-8")
    (notes / "b.txt").write_bytes(b"\xff\xfe\x00broken")
    results = ingest(store, "text", notes, skip_bad=True, language="en")
    assert [(r.source_id, r.language) for r in results] == [("notes/a", "en")]
    docs, skipped = load_kind("text", notes, skip_bad=True)
    assert [d.source_id for d in docs] == ["notes/a"]
    assert skipped is not None and [Path(s.path).name for s in skipped] == ["b.txt"]
    with pytest.raises(IngestError, match="is a directory"):
        ingest_text(store, notes)


def test_options_and_sources_a_kind_does_not_take(tmp_path: Path, store) -> None:  # noqa: ANN001
    page = tmp_path / "a.txt"
    page.write_text("Text.\n", encoding="utf-8")
    cases = [
        (lambda: ingest(store, "jwpub", page, source_id="x"), "takes no source_id or replace"),
        (lambda: ingest(store, "jw_library_backup", page, replace=True),
         "kind 'jw_library_backup' takes no source_id or replace"),
        (lambda: ingest(store, "epub", "https://example.org/book.epub"),
         "kind 'epub' reads a file, and https://example.org/book.epub is a URL"),
        (lambda: ingest(store, "text", page, skip_bad=True), "applies to a folder"),
        (lambda: ingest(store, "jwpub", tmp_path), "reads one file"),
        (lambda: ingest(store, "text", page, language="xx"), "unknown language 'xx'"),
        (lambda: ingest(store, "text", tmp_path, source_id="x"), "a source id names one source"),
        (lambda: ingest_jwpub(store, page, source_id="x"), "takes no source_id or replace"),
        (lambda: ingest_epub(store, "https://example.org/b.epub"), "is a URL"),
    ]  # fmt: skip
    for call, expected in cases:
        with pytest.raises(ConfigError) as err:
            call()
        assert expected in str(err.value) and "\n" not in str(err.value)
    assert store.sources == {}
