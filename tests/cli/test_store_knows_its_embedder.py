"""A store opens with the embedder it recorded; a different explicit one is
refused in one line; ``--embedder`` also works after the subcommand; and
``jw --embedder X eval chunker-bench`` runs with X."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_eval.bench import DEFAULT_DATASET
from jw_rag.store import open_store

CORPUS = DEFAULT_DATASET


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    """A store built with ``fake:32``, then no embedder in the environment."""
    store = str(tmp_path / "s.sqlite")
    monkeypatch.delenv("JW_EMBEDDER", raising=False)
    article = str(CORPUS / "corpus" / "en" / "soul.html")
    assert (
        run(capsys, "--embedder", "fake:32", "--store", store, "rag", "ingest", "article", article)[
            0
        ]
        == 0
    )
    return store


def test_a_store_opens_with_its_recorded_embedder(
    built: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "--store", built, "rag", "search", "does the soul die", "--mode", "dense", "--json"
    )
    assert (code, err) == (0, "") and json.loads(out)
    with open_store(built, read_only=True) as st:
        assert st.recorded_embedder() == "fake:32" and st.embedder.model_id == "fake-32"
    code, out, _ = run(capsys, "--store", built, "rag", "stats", "--json")
    assert code == 0 and json.loads(out)["model_id"] == "fake-32"


def test_a_different_explicit_embedder_is_refused_in_one_line(
    built: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ("--embedder", "fake:16", "--store", built, "rag", "search", "soul", "--mode", "dense"),
        ("--store", built, "rag", "search", "soul", "--mode", "dense", "--embedder", "fake:16"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert "'fake-32'" in err and "'fake-16'" in err and "--embedder fake:32" in err


def test_embedder_after_the_subcommand(built: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "--store",
        built,
        "rag",
        "search",
        "soul",
        "--mode",
        "dense",
        "--embedder",
        "fake:32",
        "--json",
    )
    assert (code, err) == (0, "") and json.loads(out)
    code, out, err = run(
        capsys, "--store", built, "rag", "stats", "--embedder", "fake:32", "--json"
    )
    assert code == 0 and json.loads(out)["dim"] == 32
    code, out, _ = run(capsys, "-h")
    assert code == 0 and "also take them after it" in " ".join(out.split())  # where they go
    for command in (("rag", "search"), ("rag", "stats"), ("rag", "ingest", "text")):
        code, out, _ = run(capsys, *command, "-h")
        assert (
            code == 0 and "--embedder" in out and "Overrides jw --embedder" in " ".join(out.split())
        )


def test_the_environment_is_an_explicit_choice(
    built: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake:16")
    code, _, err = run(capsys, "--store", built, "rag", "search", "soul", "--mode", "dense")
    assert code == 1 and "JW_EMBEDDER=fake:32" in err


def test_the_bench_runs_with_jw_embedder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")  # what it would use without jw --embedder
    out = tmp_path / "report.json"
    argv = ["--embedder", "fake:8", "eval", "chunker-bench", "--variants", "paragraph",
            "--limit", "2", "--report", "json", "--out", str(out), "--quiet"]  # fmt: skip
    assert run(capsys, *argv)[0] == 0
    assert json.loads(out.read_text(encoding="utf-8"))["config"]["embedder"] == "fake-8"
    # the command's own option still wins
    assert run(capsys, *argv[2:], "--embedder", "fake:4")[0] == 0
    assert json.loads(out.read_text(encoding="utf-8"))["config"]["embedder"] == "fake-4"
