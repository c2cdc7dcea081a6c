"""``jw rag``: ingest, search, stats, delete and chunk through the real command."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.core import TyperArgument, TyperGroup, TyperOption

from jw_cli.app import app, main
from jw_rag.chunkers import available_chunkers
from jw_rag.ingest import chunk_document, load_documents
from jw_rag.store import open_store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ingest_article_with_chunker_then_skip_unchanged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    alma = str(corpus / "es" / "alma.html")
    code, out, err = run(
        capsys, "rag", "ingest", "article", alma, "--chunker", "semantic", "--store", store
    )
    assert (code, err) == (0, "")
    assert out == "alma: 6 chunks, chunker semantic, language es (stored)\n"
    # the global option is the same choice: the stored hash matches, so nothing is rewritten
    code, out, _ = run(
        capsys, "--chunker", "semantic", "--store", store, "rag", "ingest", "article", alma
    )
    assert out == "alma: 6 chunks, chunker semantic, language es (unchanged, skipped)\n"
    # a different chunker re-ingests
    code, out, _ = run(capsys, "--store", store, "rag", "ingest", "article", alma)
    assert out == "alma: 7 chunks, chunker paragraph, language es (stored)\n"


def test_jw_chunker_env_and_command_option_precedence(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JW_STORE", str(tmp_path / "env.sqlite"))
    monkeypatch.setenv("JW_CHUNKER", "semantic")
    alma = str(corpus / "es" / "alma.html")
    assert run(capsys, "rag", "ingest", "article", alma)[1].startswith(
        "alma: 6 chunks, chunker semantic"
    )
    out = run(
        capsys, "--chunker", "semantic", "rag", "ingest", "article", alma, "--chunker", "paragraph"
    )[1]
    assert out.startswith("alma: 7 chunks, chunker paragraph")
    assert (tmp_path / "env.sqlite").exists()


def test_folder_ingest_language_override_and_totals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    code, out, _ = run(
        capsys,
        "--store",
        store,
        "rag",
        "ingest",
        "article",
        str(corpus / "pt"),
        "--language",
        "PT-br",
    )
    lines = out.splitlines()
    assert code == 0 and len(lines) == 11
    assert all(", chunker paragraph, language pt (stored)" in line for line in lines[:10])
    stats = open_store(store).stats()
    assert lines[10] == f"10 sources, 10 stored, {stats['chunks']} chunks"
    assert stats["sources"] == 10 and stats["languages"] == {"pt": stats["chunks"]}


def test_search_json_table_and_expansion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    run(capsys, "--store", store, "rag", "ingest", "article", str(corpus / "es"))
    query = "el alma que peca morirá"
    code, out, _ = run(
        capsys, "--store", store, "rag", "search", query, "--k", "3", "--mode", "bm25", "--json"
    )
    hits = json.loads(out)
    assert code == 0 and len(hits) == 3
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    top = hits[0]
    assert top["source_id"] == "es/alma" and "peca morirá" in top["text"]
    assert top["para_ids"] and all(isinstance(p, str) for p in top["para_ids"])
    assert top["heading"].startswith("¿Qué es el alma")
    assert "hit" not in top  # the text is the hit alone: nothing to point at

    out = run(capsys, "--store", store, "rag", "search", query, "--k", "1", "--mode", "bm25",
              "--expand", "neighbors", "--json")[1]  # fmt: skip
    (hit,) = json.loads(out)
    with closing(open_store(store, read_only=True)) as st:
        meta = st.get([hit["id"]])[0].metadata
    with closing(open_store(store, read_only=True)) as st:
        around = {c.id: c.text for c in st.get([meta["prev_id"], hit["id"], meta["next_id"]])}
    parts = [around[meta["prev_id"]], around[hit["id"]], around[meta["next_id"]]]
    assert hit["text"] == "\n\n".join(parts)
    start, end = hit["hit"]
    assert hit["text"][:start].endswith("\n\n") and hit["text"][end:].startswith("\n\n")

    code, out, _ = run(
        capsys, "--store", store, "rag", "search", query, "--k", "2", "--mode", "bm25"
    )
    assert code == 0 and "2 hits for 'el alma que peca morirá'" in out
    row = next(line for line in out.splitlines() if line.startswith("│    1 │"))
    assert (
        "alma" in row and ",".join(top["para_ids"]) in row  # the same strings as the JSON: "#4,3"
    )
    assert "¿Sobrevive el alma a la muerte?" in out


def test_stats_and_delete(capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    run(capsys, "--store", store, "rag", "ingest", "article", str(corpus / "es" / "alma.html"))
    run(
        capsys,
        "--store",
        store,
        "rag",
        "ingest",
        "article",
        str(corpus / "es" / "reino.html"),
        "--chunker",
        "semantic",
    )
    stats = json.loads(run(capsys, "--store", store, "rag", "stats", "--json")[1])
    assert stats["sources"] == 2 and stats["per_source"] == {"alma": 7, "reino": 5}
    assert stats["chunkers"] == {"paragraph": 7, "semantic": 5} and stats["model_id"] == "fake-64"
    table = run(capsys, "--store", store, "rag", "stats")[1]
    assert "alma: 7, reino: 5" in table and "fake-64" in table

    assert run(capsys, "--store", store, "rag", "delete", "--source", "alma") == (
        0,
        "deleted 7 chunks of alma\n",
        "",
    )
    code, out, err = run(capsys, "--store", store, "rag", "delete", "--source", "alma")
    assert code == 1 and out == ""
    assert (
        err == f"error: no source 'alma' in {store}: `jw rag stats` lists the stored source ids\n"
    )
    assert json.loads(run(capsys, "--store", store, "rag", "stats", "--json")[1])["per_source"] == {
        "reino": 5
    }


def test_chunk_shows_the_library_chunks_and_stores_nothing(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = tmp_path / "never.sqlite"
    monkeypatch.setenv("JW_STORE", str(store))
    src = corpus / "es" / "infierno.html"
    code, out, _ = run(capsys, "--chunker", "semantic", "rag", "chunk", str(src), "--json")
    (doc,) = json.loads(out)
    expected = chunk_document(load_documents(src)[0], chunker="semantic")
    assert code == 0 and doc["source_id"] == "infierno"
    assert [(c["id"], c["text"], c["chars"]) for c in doc["chunks"]] == [
        (c.id, c.text, len(c.text)) for c in expected
    ]
    assert [c["metadata"]["closure_marker"] for c in doc["chunks"]] == [
        c.metadata["closure_marker"] for c in expected
    ]
    table = run(capsys, "rag", "chunk", str(src), "--chunker", "semantic")[1]
    assert f"infierno: {len(expected)} chunks (semantic)" in table and "Por eso" in table
    assert "continuation_marker" in table
    assert not store.exists()


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--chunker", "nope", "rag", "stats"], 2, "error: unknown chunker 'nope'; valid names: "),
        (
            ["rag", "chunk", "README.md", "--chunker", "Nope"],
            2,
            "error: unknown chunker 'Nope'; valid names: ",
        ),
        (
            ["rag", "diff", "x.html", "--html", "o.html", "--chunkers", "paragraph,zz"],
            2,
            "error: unknown chunker 'zz'",
        ),
        (
            ["rag", "search", "q", "--mode", "vector"],
            2,
            "error: --mode 'vector' is not one of dense, bm25, hybrid",
        ),
        (
            ["rag", "search", "q", "--expand", "all"],
            2,
            "error: --expand 'all' is not one of segment, relevant, chain, neighbors, parent, none",
        ),
        (["rag", "ingest", "article", "/no/such/file.html"], 1, "error: /no/such/file.html"),
        (
            ["rag", "ingest", "article", "README.md", "--language", "klingon"],
            2,
            "error: unknown language",
        ),
        (["rag", "search", "q", "--store", "ftp://host/x"], 2, "error: unknown store scheme 'ftp'"),
    ],
)
def test_errors_are_one_line_without_traceback(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], code: int, message: str
) -> None:
    argv = [a.replace("o.html", str(tmp_path / "o.html")) for a in argv]
    got, out, err = run(capsys, *argv)
    assert got == code and out == ""
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err
    if "valid names" in message:
        assert err.rstrip().endswith(", ".join(available_chunkers()))


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "rag", "search")
    assert code == 2 and "Error: Missing argument 'QUERY'." in err
    assert run(capsys, "rag", "search", "q", "--k", "0")[0] == 2


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = [(path, command)]
    if isinstance(command, TyperGroup):
        for name, sub in command.commands.items():
            out.extend(_commands(sub, (*path, name)))
    return out


def test_every_command_and_option_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    commands = _commands(typer.main.get_command(app))
    names = {" ".join(p) for p, _ in commands}
    for expected in ("rag ingest article", "rag ingest epub", "rag ingest jwpub", "rag ingest backup",
                     "rag search", "rag stats", "rag delete", "rag chunk", "rag diff"):  # fmt: skip
        assert expected in names
    for path, command in commands:
        assert command.help, path
        if not isinstance(command, TyperGroup):
            assert f"Example: jw {' '.join(path)}" in command.help, path
        for param in command.params:
            if isinstance(param, TyperOption) and param.name != "help":
                assert param.help, (path, param.name)
            if isinstance(param, TyperArgument):
                assert getattr(param, "help", None), (path, param.name)
    code, out, _ = run(capsys, "--help")
    flat = "".join(out.split())
    assert code == 0 and "$JW_STORE,else$JW_HOME/store.sqlite" in flat
    assert "$JW_STORE,else$JW_HOME/store.sqlite" in "".join(run(capsys, "rag", "--help")[1].split())


def test_embedder_option_builds_and_reopens_a_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    alma = str(corpus / "es" / "alma.html")
    code, _, err = run(
        capsys, "--embedder", "fake:16", "--store", store, "rag", "ingest", "article", alma
    )
    assert (code, err) == (0, "")
    code, out, _ = run(capsys, "--embedder", "fake:16", "--store", store, "rag", "stats", "--json")
    assert code == 0 and json.loads(out)["model_id"] == "fake-16"
    code, out, _ = run(capsys, "--embedder", "fake:16", "--store", store, "rag", "search", "alma")
    assert code == 0 and "alma" in out
    # $JW_EMBEDDER (fake, 64 dims here) is another model: a one-line error naming the option
    code, _, err = run(capsys, "--store", store, "rag", "search", "alma")
    assert code == 1 and err.count("\n") == 1
    assert "holds vectors from embedder 'fake-16'" in err and "--embedder fake:16" in err
    code, _, err = run(capsys, "--embedder", "bert", "--store", store, "rag", "search", "alma")
    assert code == 2 and err.startswith("error: unknown embedder 'bert'")
