"""``Store.delete_sources``: several sources deleted in one transaction, all or
none. ``jw rag delete --source a --source b`` deleted one source per
transaction, so a crash midway deleted part of the list; an unknown id now
deletes nothing, in one line naming it, and a delete racing an ingest of one
of its sources leaves no chunk without its source."""

from __future__ import annotations

import threading
import unicodedata
from typing import Any

import pytest

from jw_rag.errors import ConfigError, StoreError
from jw_rag.store import delete_sources
from tests.store.conftest import StoreFactory
from tests.store.store_helpers import make_chunks
from tests.threads import run_at_once


def _filled(store_factory: StoreFactory, *sources: str, n: int = 3) -> Any:
    store = store_factory()
    for s in sources:
        store.replace_source(s, make_chunks(s, n), source_metadata={"origin": f"/lib/{s}.txt"})
    return store


def _orphans(store: Any) -> set[str]:
    """Source ids that chunks carry but the store holds no source for."""
    per_source = store.stats()["per_source"]
    return {s for s in per_source if store.get_source(s) is None}


def test_several_sources_go_together(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, "a", "b", "c")
    assert store.delete_sources(["c", "a"]) == [3, 3]
    assert store.stats()["per_source"] == {"b": 3}
    assert store.get_source("a") is None and store.get_source("c") is None
    assert store.search("lamps", k=10, mode="bm25")[0].chunk.source_id == "b"


def test_an_unknown_id_deletes_nothing(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, "a", "b")
    before = store.stats()
    with pytest.raises(StoreError) as caught:
        store.delete_sources(["a", "nope", "b"])
    message = str(caught.value)
    assert "\n" not in message and "'nope'" in message and "nothing was deleted" in message
    assert "'a'" not in message
    assert store.stats() == before


def test_many_unknown_ids_are_counted_not_all_listed(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, "a")
    with pytest.raises(StoreError) as caught:
        store.delete_sources(["a", *(f"gone{i}" for i in range(50))])
    assert "and 45 more" in str(caught.value) and len(str(caught.value)) < 400
    assert store.stats()["sources"] == 1


def test_empty_and_bad_arguments(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, "a")
    assert store.delete_sources([]) == []
    with pytest.raises(ConfigError, match="list of source id strings"):
        store.delete_sources("a")  # a string is not a list of ids
    with pytest.raises(ConfigError, match="source_id must be a string"):
        store.delete_sources(["a", 3])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="named twice"):
        store.delete_sources(["a", "a"])
    assert store.stats()["per_source"] == {"a": 3}


def test_an_id_in_another_unicode_form_names_its_source(store_factory: StoreFactory) -> None:
    nfd = unicodedata.normalize("NFD", "café")
    store = _filled(store_factory, nfd, "b")
    assert store.delete_sources([unicodedata.normalize("NFC", "café")]) == [3]
    assert store.stats()["per_source"] == {"b": 3}
    store.replace_source(nfd, make_chunks(nfd, 2))
    with pytest.raises(ConfigError, match="named"):  # both forms name one source
        store.delete_sources([nfd, unicodedata.normalize("NFC", "café")])
    assert store.stats()["per_source"] == {nfd: 2, "b": 3}


def test_a_failure_midway_deletes_none(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, "a", "b", "c")
    before = store.stats()
    real = store._delete_source_rows
    done: list[str] = []

    def crash_on_the_second(conn: Any, source_id: str) -> int:
        if done:
            raise OSError("disk gone")
        done.append(source_id)
        return real(conn, source_id)

    store._delete_source_rows = crash_on_the_second  # type: ignore[method-assign]
    with pytest.raises(OSError):
        store.delete_sources(["a", "b", "c"])
    del store._delete_source_rows
    assert done == ["a"]  # the first was deleted inside the transaction, then rolled back
    assert store.stats() == before


def test_thousands_of_sources_in_one_call(sqlite_factory: StoreFactory) -> None:
    store = sqlite_factory()
    for start in range(0, 2000, 500):
        ids = [f"s{i:04}" for i in range(start, start + 500)]
        store.add([c for s in ids for c in make_chunks(s, 1)])
    assert store.delete_sources([f"s{i:04}" for i in range(1999, -1, -1)]) == [1] * 2000
    assert store.stats()["chunks"] == 0


def test_the_single_id_api_is_unchanged(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, "a")
    assert store.delete_source("nope") == 0  # unknown: nothing to delete, no error
    assert store.delete_source("a") == 3


class _OneAtATime:
    """A third-party store with delete_source but no delete_sources."""

    def __init__(self, inner: Any, fail_on: str | None = None) -> None:
        self.inner = inner
        self.fail_on = fail_on

    def matching_sources(self, source_id: str) -> list[str]:
        return self.inner.matching_sources(source_id)

    def delete_source(self, source_id: str) -> int:
        if source_id == self.fail_on:
            raise OSError("network gone")
        return self.inner.delete_source(source_id)


def test_a_store_without_delete_sources_is_checked_first(sqlite_factory: StoreFactory) -> None:
    inner = _filled(sqlite_factory, "a", "b", "c")
    with pytest.raises(StoreError, match="no source 'zz'.*nothing was deleted"):
        delete_sources(_OneAtATime(inner), ["a", "zz"])
    assert inner.stats()["sources"] == 3
    with pytest.raises(StoreError) as caught:
        delete_sources(_OneAtATime(inner, fail_on="b"), ["a", "b", "c"])
    assert "deleted 1 of 3 sources before the failure ('a'), not deleted: 'b', 'c'" in str(
        caught.value
    )
    assert delete_sources(_OneAtATime(inner), ["c"]) == [3]


def test_deletes_racing_ingests_leave_no_orphan_chunks(store_factory: StoreFactory) -> None:
    store = _filled(store_factory, "a", "b", "c")
    rounds = iter(range(1_000_000))
    lock = threading.Lock()

    def work() -> None:
        with lock:
            i = next(rounds)
        for j in range(6):
            if (i + j) % 2:
                try:
                    store.delete_sources(["c", "a", "b"] if i % 3 else ["a", "b"])
                except StoreError:
                    pass  # another thread deleted one first: nothing was deleted
            else:
                store.replace_source("a", make_chunks("a", 4, tag=f"{i}"))
                store.replace_source("b", make_chunks("b", 2, tag=f"{i}"))

    errors = run_at_once(work, 4)
    assert errors == []
    assert _orphans(store) == set()
    for s in ("a", "b"):
        held = store.get_source(s)
        assert held is None or held["chunks"] == store.stats()["per_source"][s]


def test_one_source_named_in_two_unicode_forms_is_told_apart(
    store_factory: StoreFactory,
) -> None:
    # the two spellings print alike: "named as 'café' and 'café'" told nothing
    nfc, nfd = (unicodedata.normalize(f, "café") for f in ("NFC", "NFD"))
    store = _filled(store_factory, nfc)
    with pytest.raises(ConfigError) as caught:
        store.delete_sources([nfd, nfc])
    message = str(caught.value)
    assert "\n" not in message and "two Unicode forms" in message
    assert "decomposed (NFD) and composed (NFC)" in message
    assert store.stats()["per_source"] == {nfc: 3}


def test_a_store_without_delete_sources_gets_the_same_argument_checks(
    sqlite_factory: StoreFactory,
) -> None:
    inner = _filled(sqlite_factory, "a", "l", "m")
    with pytest.raises(ConfigError, match="list of source id strings"):
        delete_sources(_OneAtATime(inner), "alma")  # not the sources a, l, m and a
    with pytest.raises(ConfigError, match="named twice"):
        delete_sources(_OneAtATime(inner), ["a", "a"])
    with pytest.raises(ConfigError, match="source_id must be a string"):
        delete_sources(_OneAtATime(inner), ["a", None])  # type: ignore[list-item]
    assert inner.stats()["sources"] == 3


def test_a_store_without_delete_sources_keeps_its_failure_line_short(
    sqlite_factory: StoreFactory,
) -> None:
    inner = sqlite_factory()
    ids = [f"s{i:05}" for i in range(3_000)]
    inner.add([c for s in ids for c in make_chunks(s, 1)])
    with pytest.raises(StoreError) as caught:
        delete_sources(_OneAtATime(inner), [*ids[:10], *(f"gone{i}" for i in range(40))])
    assert "and 35 more" in str(caught.value)
    with pytest.raises(StoreError) as caught:
        delete_sources(_OneAtATime(inner, fail_on="s01000"), ids)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 600, len(message)
    assert "deleted 1,000 of 3,000 sources before the failure" in message
    assert "'s00000'" in message and "'s01000'" in message
    assert inner.stats()["sources"] == 2_000


def test_adds_racing_deletes_of_the_same_sources_leave_nothing_half_done(
    store_factory: StoreFactory,
) -> None:
    # add() wrote a source's chunks before its row, a delete takes the row
    # before the chunks: on PostgreSQL the two deadlocked in every run. Both now
    # take the rows first, in code point order; a rarer deadlock between them
    # remains on PostgreSQL, and the transaction it aborts leaves nothing behind
    names = ["B", "a", "c", "D"]  # cased ids: a collation may sort them otherwise
    store = _filled(store_factory, *names)
    rounds = iter(range(1_000_000))
    lock = threading.Lock()
    deadlocks: list[str] = []

    def work() -> None:
        with lock:
            i = next(rounds)
        for j in range(20):
            pick = [names[(i + j + n) % 4] for n in range(2 + (i + j) % 3)]
            try:
                if i % 2:
                    store.delete_sources(pick)
                else:
                    store.add([c for s in pick for c in make_chunks(s, 3, tag=f"{i}-{j}")])
            except StoreError as exc:
                if "deadlock detected" in str(exc):
                    assert "retry" in str(exc) and "\n" not in str(exc)
                    deadlocks.append(str(exc))
                else:  # another thread deleted one of them first
                    assert i % 2 and "no source" in str(exc), str(exc)

    assert run_at_once(work, 4) == []
    assert _orphans(store) == set()
    assert len(deadlocks) <= 8, deadlocks  # of 80 writes: every run deadlocked before


def test_add_still_refuses_what_is_no_chunk_in_one_line(store_factory: StoreFactory) -> None:
    from jw_rag.model import Chunk

    store = _filled(store_factory, "a")
    bad_source = Chunk(id="x", text="t", source_id=["a"], metadata={})  # type: ignore[arg-type]
    for bad in ([None], [{"id": "x"}], [bad_source]):
        with pytest.raises(ConfigError):
            store.add(bad)  # type: ignore[arg-type]
    assert store.stats()["per_source"] == {"a": 3}
