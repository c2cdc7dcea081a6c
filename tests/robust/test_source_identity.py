"""Source ids cannot collide by accident: folder ids carry the folder's name,
a stored source is never replaced from another origin without ``--replace``,
and ``--source-id`` / ``source_id`` name a source."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

from jw_cli.app import main
from jw_eval.bench import DEFAULT_DATASET
from jw_rag.embed.fake import FakeEmbedder
from jw_rag.errors import ConfigError, IngestError
from jw_rag.ingest import (
    ingest_article,
    ingest_documents,
    ingest_markdown,
    ingest_text,
    load_documents,
)
from jw_rag.ingest.pipeline import MAX_SOURCE_ID_CHARS, chunk_document
from jw_rag.store import SQLiteStore, open_store
from tests.mcp.mcp_client import connect

CORPUS = DEFAULT_DATASET / "corpus"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """es/alma.html and pt/alma.html: two articles with one file name."""
    for lang in ("es", "pt"):
        (tmp_path / "corpus" / lang).mkdir(parents=True)
        shutil.copy(CORPUS / lang / "alma.html", tmp_path / "corpus" / lang / "alma.html")
    return tmp_path / "corpus"


@pytest.fixture(autouse=True)
def _fake_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JW_EMBEDDER", "fake")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def per_source(store: str) -> dict[str, int]:
    st = open_store(store)
    try:
        return dict(st.stats()["per_source"])
    finally:
        st.close()


def test_two_folders_with_the_same_file_names_keep_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    assert run(capsys, "--store", store, "rag", "ingest", "article", str(corpus / "es"))[0] == 0
    spanish = per_source(store)
    code, out, err = run(capsys, "--store", store, "rag", "ingest", "article", str(corpus / "pt"))
    assert (code, err) == (0, "") and out.startswith("pt/alma: ")
    both = per_source(store)
    assert set(both) == {"es/alma", "pt/alma"} and both["es/alma"] == spanish["es/alma"]
    # re-ingesting the same folder is the same source, unchanged
    code, out, _ = run(capsys, "--store", store, "rag", "ingest", "article", str(corpus / "es"))
    assert out.endswith("(unchanged, skipped)\n") and per_source(store) == both


def test_a_file_from_another_origin_is_refused_then_replaced_or_renamed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    store = str(tmp_path / "s.sqlite")
    es, pt = corpus / "es" / "alma.html", corpus / "pt" / "alma.html"
    assert run(capsys, "--store", store, "rag", "ingest", "article", str(es))[0] == 0
    before = per_source(store)
    code, out, err = run(capsys, "--store", store, "rag", "ingest", "article", str(pt))
    assert (code, out) == (1, "")
    assert err == (
        f"error: source 'alma' was ingested from {es.resolve()}; refusing to replace it with "
        f"{pt.resolve()}: give this one another id (--source-id / source_id=) or replace it "
        "(--replace / replace=True)\n"
    )
    assert per_source(store) == before
    argv = ["--store", store, "rag", "ingest", "article", str(pt)]
    code, out, _ = run(capsys, *argv, "--source-id", "alma-pt")
    assert (
        code == 0 and out.startswith("alma-pt: ") and set(per_source(store)) == {"alma", "alma-pt"}
    )
    code, out, _ = run(capsys, *argv, "--replace")
    assert code == 0 and out.startswith("alma: ") and out.endswith("language pt (stored)\n")
    st = SQLiteStore(store, FakeEmbedder(dim=64))
    assert st.get_source("alma")["metadata"]["origin"] == pt.resolve().as_posix()
    st.close()
    # the Spanish file is now the other origin
    assert run(capsys, "--store", store, "rag", "ingest", "article", str(es))[0] == 1


def test_python_api_refuses_and_replaces(tmp_path: Path, corpus: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    (tmp_path / "late.txt").write_text("Plain text notes.\n\nA second paragraph.\n", "utf-8")
    (tmp_path / "late.md").write_text("# Notes\n\nMarkdown notes here.\n", "utf-8")
    ingest_text(store, tmp_path / "late.txt")
    with pytest.raises(IngestError, match=r"source 'late' was ingested from .*late\.txt; refusing"):
        ingest_markdown(store, tmp_path / "late.md")
    assert "Plain text notes." in store.get_source("late")["metadata"]["title"]
    ingest_markdown(store, tmp_path / "late.md", replace=True)
    assert store.get_source("late")["metadata"]["title"] == "Notes"
    result = ingest_article(store, corpus / "pt" / "alma.html", source_id="pt/alma")
    assert result.source_id == "pt/alma" and not result.skipped


def test_same_names_in_one_folder_keep_their_extensions(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nMarkdown.\n", "utf-8")
    (folder / "a.txt").write_text("Text.\n", "utf-8")
    (folder / "b.txt").write_text("Other.\n", "utf-8")
    assert [d.source_id for d in load_documents(folder)] == ["notes/a.md", "notes/a.txt", "notes/b"]


def test_source_id_on_a_folder_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    code, _, err = run(
        capsys, "--store", str(tmp_path / "s.sqlite"), "rag", "ingest", "article", str(corpus / "es"),
        "--source-id", "x",
    )  # fmt: skip
    assert code == 2 and err == (
        f"error: a source id names one source, but {corpus / 'es'} is a folder of one file: "
        "ingest that file itself to name it, or let the folder give the id\n"
    )
    assert not (tmp_path / "s.sqlite").exists()
    (corpus / "es" / "notes.txt").write_text("Notas.\n", "utf-8")
    code, _, err = run(
        capsys, "--store", str(tmp_path / "s.sqlite"), "rag", "ingest", "text", str(corpus / "es"),
        "--source-id", "x",
    )  # fmt: skip
    assert code == 2 and f"{corpus / 'es'} is a folder of 2 files: " in err


def test_store_without_origins_keeps_working(tmp_path: Path, corpus: Path) -> None:
    """Sources stored before origins existed: the old folder id is kept for the
    same file, and a file-stem id is replaced as before, recording its origin."""
    store = SQLiteStore(tmp_path / "old.sqlite", FakeEmbedder(dim=16))
    es = corpus / "es" / "alma.html"
    doc = load_documents(es)[0]
    old_meta = {"source": str(es), "format": "article", "title": doc.title, "language": "es"}
    store.replace_source("alma", chunk_document(doc), content_hash="old", source_metadata=old_meta)
    pt_doc = load_documents(corpus / "pt" / "alma.html")[0]
    pt_doc.source_id = "lone"
    store.replace_source("lone", chunk_document(pt_doc), source_metadata={"source": "elsewhere"})
    results = [r.source_id for r in ingest_documents(store, load_documents(corpus / "es"))]
    assert results == ["alma"] and set(store.stats()["per_source"]) == {"alma", "lone"}
    assert store.get_source("alma")["metadata"]["origin"] == es.resolve().as_posix()
    (tmp_path / "lone.txt").write_text("Some text to store.\n", "utf-8")
    assert ingest_text(store, tmp_path / "lone.txt").source_id == "lone"  # no origin: replaced
    assert store.get_source("lone")["metadata"]["origin"].endswith("/lone.txt")


def test_mcp_source_id_replace_and_refusal(tmp_path: Path, corpus: Path) -> None:
    es, pt = corpus / "es" / "alma.html", corpus / "pt" / "alma.html"

    async def scenario() -> None:
        async with connect(tmp_path, "--root", str(corpus)) as c:
            [first] = (await c.call("ingest", kind="article", source=str(es)))[1]
            assert first["source_id"] == "alma"
            error, message = await c.call("ingest", kind="article", source=str(pt))
            assert error and message == (
                f"Error executing tool ingest: source 'alma' was ingested from "
                f"{es.resolve()}; refusing to replace it with {pt.resolve()}: give this one "
                "another id (--source-id / source_id=) or replace it (--replace / replace=True)"
            )
            error, named = await c.call(
                "ingest", kind="article", source=str(pt), source_id="pt/alma"
            )
            assert not error and named[0]["source_id"] == "pt/alma"
            error, replaced = await c.call("ingest", kind="article", source=str(pt), replace=True)
            assert not error and (replaced[0]["source_id"], replaced[0]["language"]) == (
                "alma",
                "pt",
            )
            error, stats = await c.call("stats")
            assert set(stats["per_source"]) == {"alma", "pt/alma"}
            error, message = await c.call("ingest", kind="jwpub", source=str(es), source_id="x")
            assert error and "takes no source_id or replace" in message

    anyio.run(scenario)


def test_folder_given_as_dot_or_dotdot_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "library"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("Text.\n", "utf-8")
    monkeypatch.chdir(folder)
    assert [d.source_id for d in load_documents(".")] == ["library/a"]
    monkeypatch.chdir(folder / "sub")
    assert [d.source_id for d in load_documents("..")] == ["library/a"]


def test_a_folder_of_another_place_with_the_same_name_is_told_how_to_fix_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Two folders called ``notes`` give their files the same ids; the refusal
    names what works for a folder (another folder name, or --replace), not
    --source-id, which a folder refuses."""
    for place in ("home", "work"):
        (tmp_path / place / "notes").mkdir(parents=True)
        (tmp_path / place / "notes" / "a.txt").write_text(f"Notes kept at {place}.\n", "utf-8")
    store = str(tmp_path / "s.sqlite")
    first, second = tmp_path / "home" / "notes", tmp_path / "work" / "notes"
    assert run(capsys, "--store", store, "rag", "ingest", "text", str(first))[0] == 0
    before = per_source(store)
    code, out, err = run(capsys, "--store", store, "rag", "ingest", "text", str(second))
    assert (code, out) == (1, "")
    assert err == (
        f"error: source 'notes/a' was ingested from {(first / 'a.txt').resolve()}; refusing "
        f"to replace it with {(second / 'a.txt').resolve()}: a folder's files take their ids "
        "from the folder's name (notes/...), so ingest this folder from a copy or link of "
        "another name, or replace them (--replace / replace=True)\n"
    )
    assert per_source(store) == before
    link = tmp_path / "work-notes"
    link.symlink_to(second)
    code, out, _ = run(capsys, "--store", store, "rag", "ingest", "text", str(link))
    assert code == 0 and out.startswith("work-notes/a: ")
    assert set(per_source(store)) == {"notes/a", "work-notes/a"}


def test_a_source_id_past_the_cap_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An id is a name: 10 MB of text given as one (an agent passing a document
    as its id) is refused before anything is read or stored, and the error line
    stays short; an id at the cap is taken."""
    note = tmp_path / "note.txt"
    note.write_text("A short note about hope.\n", "utf-8")
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    huge = "x" * 10_000_000
    with pytest.raises(ConfigError) as caught:
        ingest_text(store, note, source_id=huge)
    message = str(caught.value)
    assert message == (
        f"source_id is 10,000,000 characters long; give an id of at most "
        f"{MAX_SOURCE_ID_CHARS:,} characters"
    )
    assert store.stats()["sources"] == 0
    at_cap = "y" * MAX_SOURCE_ID_CHARS
    assert ingest_text(store, note, source_id=at_cap).source_id == at_cap
    store.close()
    code, out, err = run(
        capsys, "--store", str(tmp_path / "cli.sqlite"), "rag", "ingest", "text", str(note),
        "--source-id", "z" * (MAX_SOURCE_ID_CHARS + 1),
    )  # fmt: skip
    assert (code, out) == (2, "")  # a bad option value, as any other
    assert err == (
        f"error: source_id is {MAX_SOURCE_ID_CHARS + 1:,} characters long; give an id of at "
        f"most {MAX_SOURCE_ID_CHARS:,} characters\n"
    )
