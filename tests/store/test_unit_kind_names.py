"""A unit kind (``metadata["extra_unit"]``) is a short name of its own, on SQLite
and PostgreSQL: one that is also the name of a chunker the store holds would
turn that chunker's chunks into units (``stats()["chunks"]`` dropping to 0 and
``delete_source`` answering 0), and a name that is no name (empty, a number, a
newline, 10,000 characters) would become a column value and a metadata key."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jw_rag.errors import ConfigError
from jw_rag.model import EXTRA_UNIT_KEY, Chunk
from jw_rag.store import Store

StoreFactory = Callable[..., Store]


def _chunk(cid: str, source: str, chunker: str, **extra: Any) -> Chunk:
    meta = {"chunker": chunker, "language": "en", **extra}
    return Chunk(id=cid, text=f"Some words of {cid} about water.", source_id=source, metadata=meta)


def _counts(store: Store) -> tuple[int, dict[str, int], dict[str, int]]:
    stats = store.stats()
    return stats["chunks"], stats["per_source"], stats["extra_units"]


def test_a_unit_kind_named_after_a_stored_chunker_is_refused(store_factory: StoreFactory) -> None:
    store = store_factory()
    store.replace_source("notes", [_chunk("notes:0", "notes", "paragraph")])
    before = _counts(store)
    unit = _chunk("other:u", "other", "paragraph", **{EXTRA_UNIT_KEY: "paragraph"})
    for write in (lambda: store.add([unit]), lambda: store.replace_source("other", [unit])):
        with pytest.raises(ConfigError, match="unit kind 'paragraph'.*kind of their own") as err:
            write()
        assert "\n" not in str(err.value)
    assert _counts(store) == before == (1, {"notes": 1}, {})
    assert store.get(["other:u"]) == []
    assert store.delete_source("notes") == 1


def test_units_and_chunks_of_one_name_in_one_call_are_refused(store_factory: StoreFactory) -> None:
    store = store_factory()
    rows = [_chunk("a:0", "a", "summary"), _chunk("a:u", "a", "x", **{EXTRA_UNIT_KEY: "summary"})]
    with pytest.raises(ConfigError, match="unit kind 'summary'"):
        store.replace_source("a", rows)
    assert _counts(store) == (0, {}, {})


def test_chunks_of_a_chunker_named_after_a_unit_kind_are_refused(
    store_factory: StoreFactory,
) -> None:
    store = store_factory()
    store.replace_source("a", [_chunk("a:0", "a", "paragraph"),
                               _chunk("a:u", "a", "x", **{EXTRA_UNIT_KEY: "digest"})])  # fmt: skip
    with pytest.raises(ConfigError, match="unit kind 'digest'"):
        store.replace_source("b", [_chunk("b:0", "b", "digest")])
    assert _counts(store) == (1, {"a": 1}, {"digest": 1})
    store.replace_source("c", [_chunk("c:u", "c", "y", **{EXTRA_UNIT_KEY: "digest"})])
    assert _counts(store) == (1, {"a": 1}, {"digest": 2})  # more units of the kind are fine


@pytest.mark.parametrize("kind", ["", 5, True, "x" * 41, "semantic\n", " window", "a:b",
                                  "ü", ["window"], "x" * 10_000])  # fmt: skip
def test_a_unit_kind_that_is_no_name_is_one_line(store_factory: StoreFactory, kind: object) -> None:
    store = store_factory()
    with pytest.raises(ConfigError, match="a unit kind is a name of 1 to 40") as err:
        store.add([_chunk("a:u", "a", "x", **{EXTRA_UNIT_KEY: kind})])
    line = str(err.value)
    assert "\n" not in line and len(line) < 300
    assert _counts(store) == (0, {}, {})
