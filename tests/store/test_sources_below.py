"""``Store.sources_below(root)`` gives, in one query, what the folder
re-ingest's vanished-sources check read from ``stats()`` and one
``get_source`` per stored source: ``(source_id, origin)`` of each source with
chunks whose recorded origin is a string starting with ``root``, by id. Both
backends agree with that per-source reading on origins with LIKE's own
characters (``%``, ``_``, ``\\``), a sibling folder sharing the prefix, non-string
or missing origins, odd ids, and sources with no chunks left."""

from __future__ import annotations

from typing import Any

import pytest

from jw_rag import ConfigError
from jw_rag.ingest.folder import _origins_below, vanished_sources
from jw_rag.model import EXTRA_UNIT_KEY, Chunk
from jw_rag.store import SourceWrite, Store
from tests.store.store_helpers import make_chunks

ROOT = "/data/lib_1/"

ORIGINS: dict[str, Any] = {
    "lib/a": "/data/lib_1/a.txt",
    "lib/sub/b": "/data/lib_1/sub/b.txt",
    "lib/pct": "/data/lib_1/100%/c.txt",
    "lib/back": "/data/lib_1/back\\slash.txt",
    "lib/ñ\u200b'q": "/data/lib_1/ñ\u200b'q.txt",
    "zz-first-by-id": "/data/lib_1/z.txt",
    "sibling": "/data/lib_10/a.txt",  # shares the text prefix, not the folder
    "underscore": "/data/libX1/a.txt",  # what an unescaped LIKE '_' would match
    "elsewhere": "/other/lib_1/a.txt",
    "url": "https://example.org/data/lib_1/a.txt",
    "number": 5,
    "a list": ["/data/lib_1/a.txt"],
    "none": None,
}


def _fill(store: Store) -> None:
    writes = []
    for sid, origin in ORIGINS.items():
        meta = {"title": sid} if origin is None else {"title": sid, "origin": origin}
        writes.append(SourceWrite(sid, make_chunks(sid, 3), None, (), meta))
    store.replace_sources(writes)
    # a source of the folder whose chunks are all gone is no longer listed
    store.replace_source("lib/empty", [], source_metadata={"origin": "/data/lib_1/e.txt"})
    # nor one whose rows are window units only
    window = Chunk("lib/w:w", "window text", "lib/w", {EXTRA_UNIT_KEY: "window", "window": ["x"]})
    store.replace_source("lib/w", [window], source_metadata={"origin": "/data/lib_1/w.txt"})


@pytest.mark.parametrize(
    "root", [ROOT, "/data/lib_1/sub/", "/data/lib_1/100%/", "/data/", "/", "/nowhere/"]
)
def test_sources_below_is_what_each_source_s_row_says(store: Store, root: str) -> None:
    _fill(store)
    assert store.sources_below(root) == _origins_below(store, root)  # type: ignore[attr-defined]


def test_sources_below_the_folder_exactly(store: Store) -> None:
    _fill(store)
    assert store.sources_below(ROOT) == [  # type: ignore[attr-defined]
        ("lib/a", "/data/lib_1/a.txt"),
        ("lib/back", "/data/lib_1/back\\slash.txt"),
        ("lib/pct", "/data/lib_1/100%/c.txt"),
        ("lib/sub/b", "/data/lib_1/sub/b.txt"),
        ("lib/ñ\u200b'q", "/data/lib_1/ñ\u200b'q.txt"),
        ("zz-first-by-id", "/data/lib_1/z.txt"),
    ]
    # every one of them is gone from this machine's disk: all vanished, in that order
    assert [v.source_id for v in vanished_sources(store, ROOT)] == [
        sid
        for sid, _ in store.sources_below(ROOT)  # type: ignore[attr-defined]
    ]


@pytest.mark.parametrize("root", ["", None, 5])
def test_sources_below_names_a_bad_root(store: Store, root: object) -> None:
    with pytest.raises(ConfigError, match="^root must be a non-empty str, got "):
        store.sources_below(root)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("root", "named"),
    [
        ("/data/lib_1/\x00", r"^root '/data/lib_1/\\x00' contains a NUL character"),
        ("/data/\udcff/", r"^root '/data/\\udcff/' holds '\\udcff', which is not text"),
    ],
)
def test_sources_below_names_a_root_no_origin_holds(store: Store, root: str, named: str) -> None:
    """A NUL said "cannot read the store ... check the server and retry" on
    PostgreSQL; a lone surrogate (a path decoded with surrogateescape) raised
    UnicodeEncodeError on both stores."""
    _fill(store)
    with pytest.raises(ConfigError, match=named) as caught:
        store.sources_below(root)  # type: ignore[attr-defined]
    assert "\n" not in str(caught.value)


def test_the_optional_methods_are_protocols_of_their_own(store: Store) -> None:
    from jw_rag.ingest.folder import vanished_sources
    from jw_rag.store import DeletesSources, ListsSourcesBelow

    assert isinstance(store, ListsSourcesBelow) and isinstance(store, DeletesSources)

    class Minimal:  # a third-party store without them is read the long way
        def __init__(self, inner: Store) -> None:
            self.inner = inner

        def stats(self) -> dict[str, Any]:
            return self.inner.stats()

        def get_source(self, source_id: str) -> dict[str, Any] | None:
            return self.inner.get_source(source_id)

    _fill(store)
    minimal = Minimal(store)
    assert not isinstance(minimal, ListsSourcesBelow | DeletesSources)
    assert vanished_sources(minimal, ROOT) == vanished_sources(store, ROOT)  # type: ignore[arg-type]
