"""Names that say one thing: ``reach`` counts chunks each way a delivery adds,
``window_chars`` measures window units in characters. The old names
(``retrieve(window=)``, ``ingest_documents(windows=)``, ``MAX_WINDOW``) work
for one release with one RenamedWarning naming the new name; old and new
given with different values is a one-line error."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import jw_rag.retrieve as retrieve_module
from jw_rag.chunkers import ParagraphChunker
from jw_rag.embed import FakeEmbedder
from jw_rag.errors import ConfigError
from jw_rag.ingest import ingest_document, ingest_documents
from jw_rag.model import Document, Paragraph
from jw_rag.renames import RENAMED, RenamedWarning, renamed
from jw_rag.retrieve import MAX_REACH, expand_hits, retrieve
from jw_rag.store import SQLiteStore

ARTICLE = [
    "Rivers carry silt from the mountains down to the plains every spring.",
    "However, the delta at Alexandria grows each year by several metres of mud.",
    "Therefore, the old harbour now lies far inland from the present coast.",
    "Bakers in the city rise at three to light ovens before the markets open.",
    "Bread is sold warm from carts that cross the squares until midday.",
    "Lamps of olive oil lit the libraries where scribes copied scrolls at night.",
]
QUERY = "delta Alexandria grows metres of mud"


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    s = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=64))
    s.replace_source(
        "art", ParagraphChunker(min_chars=10).chunk(ARTICLE, "art", metadata={"language": "en"})
    )
    yield s
    s.close()


def _ids(delivery) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return [[c.id for c in h.expanded] for h in delivery]


def _renamed_warnings(record: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, RenamedWarning)]


# --- retrieve / expand_hits: window -> reach ---------------------------------


def test_reach_is_the_new_name_and_warns_nothing(store: SQLiteStore) -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        wide = retrieve(store, QUERY, k=1, expand="neighbors", reach=2)
    assert not _renamed_warnings(record)
    paras = [c.metadata["para_ids"][0] for c in wide[0].expanded]
    assert paras == [0, 1, 2, 3]


@pytest.mark.parametrize("expand", ["neighbors", "chain", "relevant", "segment"])
def test_old_window_delivers_what_reach_does_and_warns_once(
    store: SQLiteStore, expand: str
) -> None:
    new = retrieve(store, QUERY, k=2, expand=expand, reach=2)
    with pytest.warns(RenamedWarning) as record:
        old = retrieve(store, QUERY, k=2, expand=expand, window=2)
    messages = _renamed_warnings(list(record))
    assert len(messages) == 1  # retrieve resolves it; expand_hits does not warn again
    assert "window is renamed reach; use reach" in messages[0]
    assert "\n" not in messages[0]
    assert _ids(old) == _ids(new)


def test_the_warning_points_at_the_callers_line(store: SQLiteStore) -> None:
    with pytest.warns(RenamedWarning) as record:
        retrieve(store, QUERY, k=1, expand="neighbors", window=1)
    assert record[0].filename == __file__


def test_expand_hits_takes_reach_and_its_old_name(store: SQLiteStore) -> None:
    hits = store.search(QUERY, 1)
    new = expand_hits(store, hits, expand="neighbors", reach=2)
    with pytest.warns(RenamedWarning, match=r"expand_hits\(\): window is renamed reach"):
        old = expand_hits(store, hits, expand="neighbors", window=2)
    assert _ids(old) == _ids(new) and len(new[0].expanded) == 4


def test_old_and_new_name_that_disagree_are_one_line_error(store: SQLiteStore) -> None:
    with pytest.raises(ConfigError) as info:
        retrieve(store, QUERY, expand="neighbors", window=1, reach=2)
    message = str(info.value)
    assert "\n" not in message
    assert "window=1 and reach=2 disagree" in message and "pass reach only" in message
    with pytest.raises(ConfigError, match="disagree"):
        expand_hits(store, store.search(QUERY, 1), expand="neighbors", window=3, reach=0)


def test_old_and_new_name_that_agree_work_with_the_warning(store: SQLiteStore) -> None:
    with pytest.warns(RenamedWarning):
        both = retrieve(store, QUERY, k=1, expand="neighbors", window=2, reach=2)
    assert _ids(both) == _ids(retrieve(store, QUERY, k=1, expand="neighbors", reach=2))


def test_a_size_in_characters_given_as_window_is_refused_not_taken_as_chunks(
    store: SQLiteStore,
) -> None:
    # window used to be a neighbour count here and a size in characters elsewhere:
    # a character size passed to the old name is refused with the right name for it
    with pytest.warns(RenamedWarning), pytest.raises(ConfigError) as info:
        retrieve(store, QUERY, expand="neighbors", window=2000)
    message = str(info.value)
    assert f"reach must be a number of chunks each way from 0 to {MAX_REACH}" in message
    assert "window_chars" in message and "\n" not in message


@pytest.mark.parametrize("bad", [-1, MAX_REACH + 1, 10**9, 1.5, "2", True])
def test_bad_reach_values_are_one_line_errors(store: SQLiteStore, bad: object) -> None:
    with pytest.raises(ConfigError, match="reach must be a number of chunks") as info:
        retrieve(store, QUERY, expand="neighbors", reach=bad)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_reach_zero_and_the_largest_reach(store: SQLiteStore) -> None:
    alone = retrieve(store, QUERY, k=1, expand="neighbors", reach=0)
    assert len(alone[0].expanded) == 1
    everything = retrieve(store, QUERY, k=1, expand="neighbors", reach=MAX_REACH)
    assert len(everything[0].expanded) == len(ARTICLE)


def test_max_window_is_the_old_name_of_max_reach() -> None:
    with pytest.warns(RenamedWarning, match="MAX_WINDOW is renamed MAX_REACH"):
        assert retrieve_module.MAX_WINDOW == MAX_REACH
    with pytest.raises(AttributeError):
        _ = retrieve_module.NOT_A_NAME  # type: ignore[attr-defined]


def test_max_unit_chars_is_the_old_name_of_max_size() -> None:
    import jw_rag.units as units_module
    from jw_rag.limits import MAX_SIZE

    with pytest.warns(RenamedWarning, match="MAX_UNIT_CHARS is renamed jw_rag.limits.MAX_SIZE"):
        assert units_module.MAX_UNIT_CHARS == MAX_SIZE == 1_000_000_000
    with pytest.raises(AttributeError):
        _ = units_module.NOT_A_NAME  # type: ignore[attr-defined]


def test_old_name_from_many_threads_at_once(store: SQLiteStore) -> None:
    expected = _ids(retrieve(store, QUERY, k=2, expand="neighbors", reach=2))
    results: list[list[list[str]]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RenamedWarning)
                results.append(_ids(retrieve(store, QUERY, k=2, expand="neighbors", window=2)))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [expected] * 8


# --- ingestion: windows -> window_chars --------------------------------------


def _doc(n: int = 8) -> Document:
    paras = [
        Paragraph(f"Paragraph {i} says a thing of its own. " + "More. " * 20) for i in range(n)
    ]
    return Document("d", paras, title="Names", language="en")


def _windows_stored(tmp_path: Path, name: str, **kwargs: object) -> int:
    store = SQLiteStore(tmp_path / f"{name}.sqlite", FakeEmbedder(dim=16))
    try:
        ingest_documents(store, [_doc()], **kwargs)  # type: ignore[arg-type]
        return int(store.stats()["windows"])
    finally:
        store.close()


def test_window_chars_sets_the_window_size_at_ingestion(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        none = _windows_stored(tmp_path, "none", window_chars=0)
        default = _windows_stored(tmp_path, "default")
        huge = _windows_stored(tmp_path, "huge", window_chars=20_000)  # the widest allowed
    assert not _renamed_warnings(record)
    assert none == 0 and default > 0 and huge > 0


@pytest.mark.parametrize("size", [0, 700])
def test_old_windows_stores_what_window_chars_does_and_warns_once(
    tmp_path: Path, size: int
) -> None:
    new = _windows_stored(tmp_path, "new", window_chars=size)
    with pytest.warns(RenamedWarning) as record:
        old = _windows_stored(tmp_path, "old", windows=size)
    messages = _renamed_warnings(list(record))
    assert messages == [
        "ingest_documents(): windows is renamed window_chars; use window_chars "
        "(windows stops working in the next release)"
    ]
    assert old == new


def test_ingest_document_takes_window_chars_and_its_old_name(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    try:
        with pytest.warns(RenamedWarning) as record:
            ingest_document(store, _doc(), windows=0)
        assert len(_renamed_warnings(list(record))) == 1  # not once more in ingest_documents
        assert "ingest_document(): windows is renamed window_chars" in str(record[0].message)
        assert store.stats()["windows"] == 0
        ingest_document(store, _doc(), window_chars=700, replace=True)
        assert store.stats()["windows"] > 0
    finally:
        store.close()


def test_ingest_old_and_new_that_disagree_touch_nothing(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite", FakeEmbedder(dim=16))
    try:
        with pytest.raises(ConfigError, match="windows=0 and window_chars=2000 disagree"):
            ingest_documents(store, [_doc()], windows=0, window_chars=2000)
        with pytest.raises(ConfigError, match="window_chars must be a size in characters"):
            ingest_documents(store, [_doc()], window_chars=-1)
        assert store.stats()["chunks"] == 0
    finally:
        store.close()


# --- the rule itself ---------------------------------------------------------

values = st.none() | st.integers(-5, 5)


@given(old=values, new=values)
def test_renamed_keeps_one_meaning(old: int | None, new: int | None) -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            got = renamed("f()", "a", old, "b", new)
        except ConfigError as exc:
            assert old is not None and new is not None and old != new
            assert "\n" not in str(exc) and "pass b only" in str(exc)
            return
    expected = new if old is None else old
    assert got == expected
    assert len(_renamed_warnings(record)) == (0 if old is None else 1)


def test_every_renamed_entry_names_a_new_name_that_exists() -> None:
    import jw_eval.bench.expansion as expansion
    import jw_eval.bench.runner as runner
    import jw_eval.bench.variants as variants

    assert retrieve_module.MAX_REACH == MAX_REACH
    homes = {
        "reach": [retrieve, expand_hits, expansion.deliver],
        "window_chars": [ingest_document, ingest_documents],
    }
    import inspect

    for entry in RENAMED:
        assert entry.old != entry.new and entry.meaning
        for fn in homes.get(entry.new, []):
            params = inspect.signature(fn).parameters
            assert entry.new in params and entry.old in params, (fn, entry)
    assert "window_chars" in {f.name for f in variants.VariantSpec.__dataclass_fields__.values()}
    assert hasattr(runner.BenchConfig, "window_chars_for")
