"""CLI text written for people: paragraph ids of one type, plural forms,
``stats`` as a table or JSON (never a Python dict), help without Typer's
type labels, and one spelling of the retriever option that both commands
take."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
import typer.main
from hypothesis import given
from hypothesis import strategies as st

from jw_cli.app import app, main
from jw_cli.views import para_labels, plural
from jw_eval.bench import DEFAULT_DATASET
from jw_rag.hits import para_id, para_ids

CORPUS = DEFAULT_DATASET / "corpus"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_para_ids_golden() -> None:
    assert para_ids([4, "3"]) == ["#4", "3"]
    assert para_ids(["john:3:16", 0]) == ["john:3:16", "#0"]
    assert para_labels([4, "3"]) == "#4,3"  # the table shows what the JSON says
    assert para_ids(None) == []


@given(st.lists(st.one_of(st.integers(0, 10**6), st.text(min_size=1, max_size=8))))
def test_para_ids_are_always_strings_and_keep_positions_apart(values: list[int | str]) -> None:
    out = para_ids(values)
    assert all(isinstance(v, str) for v in out) and len(out) == len(values)
    for raw, shown in zip(values, out, strict=True):
        assert shown == (f"#{raw}" if isinstance(raw, int) else raw)
    assert para_id(True) == "True"  # a bool is not a position


def test_plural_forms() -> None:
    assert [plural(n, "hit") for n in (0, 1, 2)] == ["0 hits", "1 hit", "2 hits"]
    assert plural(1, "more hit") == "1 more hit" and plural(3, "more hit") == "3 more hits"


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    path = str(tmp_path / "s.sqlite")
    assert (
        run(capsys, "--store", path, "rag", "ingest", "article", str(CORPUS / "es" / "alma.html"))[
            0
        ]
        == 0
    )
    return path


def test_a_search_in_a_source_the_store_lacks_names_it(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--store", store, "rag", "search", "alma", "--source", "almaa")
    assert (code, out) == (1, "")
    assert (
        err == "error: no source 'almaa' in the store: `jw rag stats` lists the stored source ids\n"
    )
    # one stored source among those asked for: its hits, and no error
    code, out, _ = run(capsys, "--store", store, "rag", "search", "alma", "--source", "almaa",
                       "--source", "alma", "--json")  # fmt: skip
    assert code == 0 and {hit["source_id"] for hit in json.loads(out)} == {"alma"}
    # a stored source with nothing that matches the filters is zero hits, not an error
    code, out, _ = run(capsys, "--store", store, "rag", "search", "alma", "--source", "alma",
                       "--language", "en", "--json")  # fmt: skip
    assert (code, out) == (0, "[]\n")


def test_a_source_id_given_twice_is_named_once(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "--store", store, "rag", "search", "alma", "--source", "almaa",
                         "--source", "almaa", "--source", "x")  # fmt: skip
    assert (code, out) == (1, "")
    assert err == (
        "error: no source 'almaa', 'x' in the store: `jw rag stats` lists the stored source ids\n"
    )


def test_a_source_id_the_store_lacks_among_stored_ones_is_warned_of(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    warning = ("warning: no source 'almaa' in the store, so only the others were searched: "
               "`jw rag stats` lists the stored source ids\n")  # fmt: skip
    code, out, err = run(capsys, "--store", store, "rag", "search", "alma", "--source", "almaa",
                         "--source", "alma", "--json")  # fmt: skip
    assert code == 0 and {hit["source_id"] for hit in json.loads(out)} == {"alma"}
    assert err == warning
    # no hits in the stored source: the typo is still named, as the likely reason
    code, out, err = run(capsys, "--store", store, "rag", "search", "alma", "--source", "alma",
                         "--source", "almaa", "--language", "en", "--json")  # fmt: skip
    assert (code, out, err) == (0, "[]\n", warning)
    # every id stored: no warning
    code, _, err = run(capsys, "--store", store, "rag", "search", "alma", "--source", "alma")
    assert (code, err) == (0, "")


def test_one_hit_and_one_chunk_are_singular(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--store", store, "rag", "search", "alma", "-k", "1", "--mode", "bm25",
                       "--expand", "none")  # fmt: skip
    assert code == 0 and "1 hit for 'alma'" in out and "1 hits" not in out
    code, out, _ = run(capsys, "--store", store, "rag", "search", "alma", "-k", "3", "--mode", "bm25",
                       "--expand", "neighbors")  # fmt: skip
    assert code == 0 and "1 more hits" not in " ".join(out.split())
    one = Path(store).with_name("one.txt")
    one.write_text("A single paragraph of text.\n", encoding="utf-8")
    code, out, _ = run(capsys, "rag", "chunk", str(one))
    assert code == 0 and "one: 1 chunk (paragraph)" in out
    code, out, _ = run(capsys, "--store", store, "rag", "ingest", "text", str(one))
    assert code == 0 and out.startswith("one: 1 chunk, chunker paragraph")


def test_stats_is_a_table_or_json(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--store", store, "rag", "stats")
    assert code == 0 and "{" not in out and "'" not in out
    assert "chunker versions" in out and "paragraph (1: 7)" in " ".join(out.split())
    code, out, _ = run(capsys, "--store", store, "rag", "stats", "--json")
    assert code == 0 and json.loads(out)["chunker_versions"] == {"paragraph": {"1": 7}}


def test_chunk_json_para_ids_are_strings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rag", "chunk", str(CORPUS / "es" / "alma.html"), "--json")
    ids = [p for doc in json.loads(out) for c in doc["chunks"] for p in c["metadata"]["para_ids"]]
    assert code == 0 and ids and all(isinstance(p, str) for p in ids)
    assert any(p.startswith("#") for p in ids) and any(not p.startswith("#") for p in ids)


def _commands(group: click.Command, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [path]
    for name, sub in getattr(group, "commands", {}).items():
        out += _commands(sub, (*path, name))
    return out


def test_no_type_labels_in_any_help(capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands(typer.main.get_command(app))
    assert len(commands) > 12
    for path in commands:
        code, out, _ = run(capsys, *path, "-h")
        assert code == 0, path
        for label in ("<str>", "<bool>", "<int>", "<path>", "<float>", "{"):
            assert label not in out, (path, label)


def test_retriever_and_mode_are_one_option(store: str, capsys: pytest.CaptureFixture[str]) -> None:
    a = run(capsys, "--store", store, "rag", "search", "alma", "--mode", "bm25", "--json")
    b = run(capsys, "--store", store, "rag", "search", "alma", "--retriever", "bm25", "--json")
    assert a == b and a[0] == 0
    help_text = " ".join(run(capsys, "rag", "search", "-h")[1].split())
    assert "--retriever" in help_text
