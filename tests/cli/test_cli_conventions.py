"""``jw`` conventions: --version, -h, -k, enforced choices, chunker specs,
--json everywhere a result is printed, search filters, install hints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from contextlib import closing
from importlib.metadata import version
from pathlib import Path

import pytest

from jw_cli.app import main
from jw_rag.chunkers import ParagraphChunker
from jw_rag.errors import install_command
from jw_rag.store import open_store

REPO = Path(__file__).resolve().parents[2]

NOTES = """# Notes

## Soul

The soul is the whole living person, not a part that survives death.

However, the Bible also speaks of a resurrection, so death is not the end.

## Hope

Therefore the hope rests on God's memory of the person.
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "--version") == (0, f"jw {version('jw-cli')}\n", "")


@pytest.mark.parametrize(
    "argv",
    [
        ("-h",),
        ("rag", "-h"),
        ("rag", "search", "-h"),
        ("rag", "ingest", "markdown", "-h"),
        ("rag", "delete", "-h"),
        ("eval", "chunker-bench", "-h"),
    ],
)
def test_short_help_everywhere_with_an_example(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "Usage: jw" in out
    if len(argv) > 2 or argv == ("-h",):
        assert "Example: jw " in out


def test_search_help_lists_choices_and_short_k(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "rag", "search", "-h")[1]
    flat = "".join(out.split())
    assert "-k" in out and "dense|bm25|hybrid" in flat
    assert "segment|relevant|chain|neighbors|parent|none" in flat
    assert "<en|es|pt>" in flat
    # named metavars, flags and -h none, the argument by its name
    assert "PATH|DSN" in out and "<bool>" not in out and "<str>" not in out
    assert "Usage: jw rag search [OPTIONS] QUERY" in out and "{" not in out


def test_search_help_shows_bracketed_text(capsys: pytest.CaptureFixture[str]) -> None:
    """The help is rich markup: "[start, end]" was taken for a style tag and
    dropped, leaving "hit ( of the hit in text)"."""
    flat = "".join(run(capsys, "rag", "search", "-h")[1].split())
    assert "hit([start,end]ofthehitintext)" in flat


def test_bad_choice_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "rag", "search", "q", "--mode", "fuzzy")
    assert (code, err) == (2, "error: --mode 'fuzzy' is not one of dense, bm25, hybrid\n")
    code, _, err = run(capsys, "rag", "search", "q", "--language", "fr")
    assert code == 2 and err.startswith("error: unknown language 'fr'")


def test_help_shows_the_store_under_jw_home(tmp_path: Path) -> None:
    env = {**os.environ, "JW_HOME": str(tmp_path), "COLUMNS": "400"}
    env.pop("JW_STORE", None)
    out = subprocess.run(
        [sys.executable, "-m", "jw_cli.app", "rag", "stats", "-h"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert f"now{tmp_path / 'store.sqlite'}" in "".join(out.split())


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.md"
    path.write_text(NOTES, encoding="utf-8")
    return path


def test_ingest_markdown_with_a_chunker_spec_as_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, notes: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    argv = ("rag", "ingest", "markdown", str(notes), "--store", store, "--json")
    code, out, err = run(capsys, *argv, "--chunker", "semantic:target_chars=800")
    assert (code, err) == (0, "")
    [result] = json.loads(out)
    assert result["source_id"] == "notes" and result["chunker"] == "semantic"
    assert result["skipped"] is False and result["chunks"] >= 1
    # the options are part of the stored identity: other options re-ingest, the same skip
    again = json.loads(run(capsys, *argv, "--chunker", "semantic:target_chars=800")[1])
    other = json.loads(run(capsys, *argv, "--chunker", "semantic:target_chars=80,min_chars=10")[1])
    assert again[0]["skipped"] is True and other[0]["skipped"] is False
    assert other[0]["chunks"] > result["chunks"]


def test_chunk_and_env_accept_specs(
    capsys: pytest.CaptureFixture[str], notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small = json.loads(
        run(capsys, "rag", "chunk", str(notes), "--chunker", "paragraph", "--json")[1]
    )
    monkeypatch.setenv("JW_CHUNKER", "semantic:target_chars=1000")
    merged = json.loads(run(capsys, "rag", "chunk", str(notes), "--json")[1])
    assert len(merged[0]["chunks"]) < len(small[0]["chunks"])
    assert merged[0]["chunks"][0]["metadata"]["chunker"] == "semantic"


def test_bad_chunker_spec_is_one_line(capsys: pytest.CaptureFixture[str], notes: Path) -> None:
    code, _, err = run(capsys, "rag", "chunk", str(notes), "--chunker", "semantic:target_chars")
    assert code == 2 and err.count("\n") == 1 and "key=value" in err
    code, _, err = run(capsys, "rag", "chunk", str(notes), "--chunker", "semantic:size=3")
    assert code == 2 and err.count("\n") == 1 and "size" in err


def test_search_filters_and_delete_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    for path in (corpus / "es" / "alma.html", corpus / "en" / "soul.html"):
        assert run(capsys, "--store", store, "rag", "ingest", "article", str(path))[0] == 0
    search = ("--store", store, "rag", "search", "soul alma death muerte", "-k", "10", "--json")

    languages = {"alma": "es", "soul": "en"}

    def sources(*extra: str) -> set[tuple[str, str]]:
        code, out, err = run(capsys, *search, *extra)
        assert (code, err) == (0, "")
        return {(h["source_id"], languages[h["source_id"]]) for h in json.loads(out)}

    assert sources() == {("alma", "es"), ("soul", "en")}
    assert sources("--language", "EN") == {("soul", "en")}
    assert sources("--source", "alma") == {("alma", "es")}
    assert sources("--source", "alma", "--source", "soul") == {("alma", "es"), ("soul", "en")}
    code, out, _ = run(capsys, "--store", store, "rag", "delete", "--source", "alma", "--json")
    assert code == 0 and json.loads(out) == {"source_id": "alma", "deleted_chunks": 7}
    assert sources() == {("soul", "en")}


def _extras() -> list[str]:
    found = []
    for pyproject in sorted(REPO.glob("packages/*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        found += list(project.get("optional-dependencies", {}))
    return found


@pytest.mark.parametrize("extra", _extras())
def test_install_hint_works_at_the_repository_root(extra: str) -> None:
    argv = [*install_command(extra).split(), "--frozen", "--dry-run"]
    done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


ARGUMENT = [
    "Many people believe the soul lives on after death, in heaven or somewhere else entirely.",
    "However, Ezekiel 18:4 says plainly that soul who sins is the one who will die.",
    "Therefore, the soul is the person himself and not an immortal part inside him.",
    "Gardens need water every morning during the hot summer months to grow tomatoes well.",
]


def ranked_in_reading_order(texts: dict[str, str], ids: list[str]) -> list[str]:
    return sorted(ids, key=lambda i: ARGUMENT.index(texts[i]))


def test_search_output_accounts_for_every_hit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = str(tmp_path / "s.sqlite")
    with closing(open_store(path)) as st:
        st.replace_source("art", ParagraphChunker(min_chars=10).chunk(ARGUMENT, "art"))
        ranked = [h.chunk.id for h in st.search("soul who sins", 20, mode="bm25")]
        texts = {c.id: c.text for c in st.get(ranked)}
    assert len(ranked) == 3  # the three paragraphs that say "soul"
    argv = ("--store", path, "rag", "search", "soul who sins", "-k", "3", "--mode", "bm25")
    code, out, err = run(capsys, *argv, "--expand", "neighbors", "--json")
    assert (code, err) == (0, "")
    [hit] = json.loads(out)  # its neighbours are the other two hits
    assert hit["text"] == "\n\n".join(texts[i] for i in ranked_in_reading_order(texts, ranked))
    start, end = hit["hit"]
    assert hit["text"][start:end] == texts[hit["id"]]
    assert sorted([hit["id"], *hit["folded"]]) == sorted(ranked)
    code, out, _ = run(capsys, *argv, "--expand", "neighbors")
    flat = " ".join(out.split())
    assert "1 hit for 'soul who sins' (2 more hits folded into their context)" in flat
    assert f"holding2morehits:{','.join(hit['folded'])}" in "".join(out.split())
    # the snippet is the hit's own text, not its neighbours'
    assert " ".join(texts[hit["id"]].split())[:40] in flat
    other = next(i for i in ranked if i != hit["id"])
    assert " ".join(texts[other].split())[:40] not in flat
    # without context around hits nothing is folded: three rows
    code, out, _ = run(capsys, *argv, "--expand", "none", "--json")
    assert [h.get("folded") for h in json.loads(out)] == [None, None, None]
