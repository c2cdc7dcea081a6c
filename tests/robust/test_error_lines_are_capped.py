"""An error line quotes at most 200 characters of a value (then ``...`` and
the value's length), and is at most about 2,000 characters: a 1 MB id or
query echoed back no longer floods a terminal or an agent's context. One
place (:func:`jw_rag.errors.capped_line`, applied by ``error_line``) serves
the ``jw`` command and the MCP server."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import anyio
import pytest

from jw_cli.app import main
from jw_eval.bench import DEFAULT_DATASET
from jw_rag.errors import LINE_CHARS, QUOTED_CHARS, StoreError, capped_line, error_line
from tests.mcp.mcp_client import connect

ALMA = DEFAULT_DATASET / "corpus" / "es" / "alma.html"
FIX = "`jw rag stats` lists the stored source ids"


@pytest.mark.parametrize(
    "value",
    [
        "x" * 1_000_000,
        "'" * 300_000,
        '"' * 300_000,
        "\\" * 300_000,
        "a b " * 100_000,
        "'\"" * 200_000,
        "\x1b[31m" * 100_000,
        "é🙂" * 200_000,
    ],  # fmt: skip
)
def test_a_huge_quoted_value_is_cut_with_its_length(value: str) -> None:
    started = time.perf_counter()
    line = error_line(StoreError(f"no source {value!r} in the store: {FIX}"))
    assert time.perf_counter() - started < 5
    assert line.startswith("no source ") and line.endswith(f" in the store: {FIX}")
    assert len(line) < QUOTED_CHARS + 150 and "\n" not in line
    assert f"... ({len(' '.join(value.split())):,} characters)" in line or (
        f"({len(value):,} characters)" in line
    )


def test_short_values_and_prose_are_untouched() -> None:
    for message in [
        f"no source 'alma' in the store: {FIX}",
        "the store's file can't be read: restore it from a copy",
        f"value {'y' * QUOTED_CHARS!r} is quoted whole at the limit",
        "it's a 'quoted' word and another's " + "z" * 500,
    ]:
        assert capped_line(message) == message
    assert capped_line("") == ""


def test_a_huge_line_without_quotes_keeps_its_start_and_its_end() -> None:
    line = capped_line("start " + "w" * 1_000_000 + " end: the fix")
    assert len(line) <= LINE_CHARS + 60
    assert line.startswith("start www") and line.endswith("www end: the fix")
    assert "characters cut" in line


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_line_caps_what_it_echoes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")
    store = str(tmp_path / "s.sqlite")
    assert run(capsys, "--store", store, "rag", "ingest", "article", str(ALMA))[0] == 0
    huge = "b" * 100_000
    for argv, code in [
        (["rag", "search", "alma", "--source", huge], 1),
        (["rag", "search", "alma", "--source", huge, "--source", huge + "c"], 1),
        (["rag", "delete", "--source", huge], 1),
        (["rag", "search", "alma", "--mode", huge], 2),
        (["rag", "search", "alma", "--language", huge], 2),
        (["rag", "search", "alma", "--source", "alma", "--source", huge], 0),  # the warning
        (["rag", "search", "alma", "--no-such-option" + huge], 2),
    ]:
        got, _, err = run(capsys, "--store", store, *argv)
        assert got == code, err
        assert 0 < len(err) < 2_500, (argv[:3], len(err))
        if "--source" in argv:
            assert "(100,000 characters)" in err and "jw rag stats" in err


def test_the_mcp_server_caps_what_it_echoes(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(ALMA, root / "alma.html")

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(root), JW_EMBEDDER="fake") as c:
            assert not (await c.call("ingest", kind="article", source="alma.html"))[0]
            for call, args in [
                ("search", {"query": "alma", "source_id": "b" * 100_000}),
                ("delete_source", {"source_id": "b" * 100_000}),
                ("get_chunk", {"chunk_id": "c" * 100_000}),
            ]:
                error, message = await c.call(call, **args)
                assert error and len(message) < 500, (call, len(message))
                assert (
                    "(100,000 characters)" in message
                    and "list_sources" in message
                    or (call == "get_chunk" and "search returned" in message)
                ), message

    anyio.run(scenario)


def test_control_characters_are_shown_escaped() -> None:
    # an escape sequence or a bell in a value (a folder name, a title) reaches no terminal raw
    assert capped_line("a\x1b[2Jb\x07c\x7f\x85 tab\tkept") == "a\\x1b[2Jb\\x07c\\x7f\\x85 tab\tkept"
    assert capped_line("plain é ü ñ — “quoted”") == "plain é ü ñ — “quoted”"


def test_a_folder_named_with_an_escape_sequence_is_one_harmless_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "evil\x1b[2Jname"
    folder.mkdir()
    (folder / "x.jpg").write_bytes(b"x")
    assert (
        main(["--store", str(tmp_path / "s.sqlite"), "rag", "ingest", "markdown", str(folder)]) == 1
    )
    err = capsys.readouterr().err
    assert "\x1b" not in err and "evil\\x1b[2Jname" in err and err.count("\n") == 1
