"""Unit kinds: rows the caller marks with ``metadata["extra_unit"]`` are kept and
counted apart from the chunks without the store knowing what they are; the
store package imports nothing from retrieval or windows; the ``Store``
protocol holds every method its callers use. On both backends."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jw_rag.store as store_pkg
from jw_rag.model import EXTRA_UNIT_KEY, Chunk
from jw_rag.store import SQLiteStore, Store
from jw_rag.windows import window_units
from tests.store.store_helpers import make_chunks

STORE_DIR = Path(store_pkg.__file__).parent
RETRIEVAL = ("jw_rag.windows", "jw_rag.retrieve", "jw_rag.units", "jw_rag.segments",
             "jw_rag.hits", "jw_rag.chunk_context")  # fmt: skip


def _units(source_id: str, kind: str, n: int, language: str = "en") -> list[Chunk]:
    return [
        Chunk(
            id=f"{source_id}:{kind}{i}",
            text=f"a {kind} unit {i} of {source_id} about lamps",
            source_id=source_id,
            metadata={EXTRA_UNIT_KEY: kind, "chunker": "anything", "language": language},
        )
        for i in range(n)
    ]


def test_unit_rows_are_counted_apart(store: Store) -> None:
    store.replace_source("a", [*make_chunks("a", 3), *_units("a", "summary", 2)])
    store.replace_source(
        "b", [*make_chunks("b", 2, language="es"), *_units("b", "window", 4, "es")]
    )
    stats = store.stats()
    assert stats["chunks"] == 5 and stats["per_source"] == {"a": 3, "b": 2}
    assert stats["languages"] == {"en": 3, "es": 2}
    assert stats["chunkers"] == {"paragraph": 5}
    assert stats["extra_units"] == {"summary": 2, "window": 4}
    assert stats["windows"] == 4
    assert [c.metadata[EXTRA_UNIT_KEY] for c in store.get(["a:summary0"])] == ["summary"]
    assert store.delete_source("a") == 3  # the unit rows go too, uncounted
    assert store.stats()["extra_units"] == {"window": 4}


def test_window_units_from_the_retrieval_layer_carry_their_kind(store: Store) -> None:
    chunks = make_chunks("a", 6)
    for c in chunks:
        c.metadata["span"] = {"start_para": c.metadata["chunk_index"], "start_char": 0,
                              "end_para": c.metadata["chunk_index"], "end_char": len(c.text)}  # fmt: skip
    windows = window_units(chunks, None, max_chars=400)
    assert windows and {w.metadata[EXTRA_UNIT_KEY] for w in windows} == {"window"}
    store.replace_source("a", [*chunks, *windows])
    assert store.stats()["windows"] == len(windows) and store.stats()["chunks"] == 6


def test_a_store_written_before_kinds_were_recorded(tmp_path: Path) -> None:
    """Window rows written without ``metadata["extra_unit"]`` (older versions) still
    count as windows."""
    old = [
        Chunk(id=f"a:w{i}", text=f"window {i}", source_id="a",
              metadata={"chunker": "window", "window": ["a:0"], "language": "en"})
        for i in range(2)
    ]  # fmt: skip
    from tests.store.store_helpers import CountingEmbedder

    with SQLiteStore(tmp_path / "s.sqlite", embedder=CountingEmbedder()) as store:
        store.replace_source("a", [*make_chunks("a", 1), *old])
        assert (store.stats()["chunks"], store.stats()["windows"]) == (1, 2)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from(["x", "y", ""]), st.integers(1, 3)),
                min_size=1, max_size=5))  # fmt: skip
def test_chunks_plus_units_are_every_row(tmp_path_factory, writes) -> None:  # noqa: ANN001
    from tests.store.store_helpers import CountingEmbedder

    path = tmp_path_factory.mktemp("u") / "s.sqlite"
    with SQLiteStore(path, embedder=CountingEmbedder()) as store:
        expected: dict[str, tuple[int, dict[str, int]]] = {}
        for source, kind, n in writes:
            rows = make_chunks(source, n) + (_units(source, kind, n) if kind else [])
            store.replace_source(source, rows)
            expected[source] = (n, {kind: n} if kind else {})
        stats = store.stats()
        assert stats["chunks"] == sum(n for n, _ in expected.values())
        units: dict[str, int] = {}
        for _, kinds in expected.values():
            for kind, n in kinds.items():
                units[kind] = units.get(kind, 0) + n
        assert stats["extra_units"] == units


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_store_imports_nothing_from_retrieval() -> None:
    files = sorted(STORE_DIR.glob("*.py"))
    assert len(files) > 10
    for path in files:
        bad = {m for m in _imports(path) if m.startswith(RETRIEVAL)}
        assert not bad, (path.name, bad)
        assert "WINDOW_CHUNKER" not in path.read_text(encoding="utf-8"), path.name


def test_the_protocol_holds_what_callers_use(store: Store) -> None:
    members = {"embedder", "add", "replace_source", "replace_sources", "add_parents",
               "get_parents", "delete_source", "get_source", "search", "get", "vectors",
               "stats", "close"}  # fmt: skip
    declared = {n for n in vars(Store) if not n.startswith("_")}
    assert members <= declared
    assert isinstance(store, Store)
    assert store.get_source("missing") is None
