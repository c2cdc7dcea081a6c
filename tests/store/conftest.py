"""Store fixtures. ``store_factory`` is the seam for other backends: every
contract test takes it, so a PostgreSQL store is one more parameter."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jw_rag.store import SQLiteStore, Store
from tests.postgres.pg_harness import pg_database  # noqa: F401  (a fixture)
from tests.store.store_helpers import CountingEmbedder

StoreFactory = Callable[..., Store]


def _opened(tmp_path: Path, databases: Callable[[], str] | None) -> Iterator[StoreFactory]:
    """A factory of fresh, empty stores (PostgreSQL when given ``databases``),
    each closed when the test ends."""
    opened: list[Store] = []
    counter = iter(range(1_000_000))

    def make(embedder: object | None = None) -> Store:
        embedder = embedder or CountingEmbedder()
        if databases is not None:
            from jw_rag.store.postgres import PostgresStore

            store: Store = PostgresStore(databases(), embedder)
        else:
            store = SQLiteStore(tmp_path / f"store-{next(counter)}.sqlite", embedder=embedder)
        opened.append(store)
        return store

    yield make
    for s in opened:
        s.close()


@pytest.fixture(params=["sqlite", "postgres"])
def store_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """``store_factory(embedder=None)`` -> a fresh, empty store of the backend."""
    databases = request.getfixturevalue("pg_database") if request.param == "postgres" else None
    yield from _opened(tmp_path, databases)


@pytest.fixture
def sqlite_factory(tmp_path: Path) -> Iterator[StoreFactory]:
    """``store_factory`` for a test that needs only SQLite."""
    yield from _opened(tmp_path, None)


@pytest.fixture
def store(store_factory: StoreFactory) -> Store:
    return store_factory()
