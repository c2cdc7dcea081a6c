"""Deleting a source while another process re-ingests it leaves no chunk of
it behind. The delete read the source without its row lock, so it waited
only on the old chunk rows; when the re-ingest committed, those were gone
("deleted 0 chunks"), the new ones were not in the delete's view, and the
source row went: its chunks stayed, searched and counted, while `jw rag
delete` said there was no such source. Now the delete takes the source's
row lock first, as an ingest does, and runs after the ingest."""

from __future__ import annotations

import threading
import time

import psycopg

from jw_rag.store.postgres import PostgresStore
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks

COLUMNS = (
    "id, source_id, ord, text, metadata, language, chunker, chunker_version, ts_config, embedding"
)


def test_a_delete_during_a_re_ingest_removes_the_new_chunks(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as store:
        store.add(make_chunks("book", 5))
        store.add(make_chunks("other", 2))
        with psycopg.connect(dsn) as ingest:  # a re-ingest of "book", midway through its write
            ingest.execute("SELECT 1 FROM jw_sources WHERE source_id = 'book' FOR UPDATE")
            ingest.execute(
                f"INSERT INTO jw_chunks ({COLUMNS}) SELECT id || '-new', {COLUMNS.split(', ', 1)[1]} "
                "FROM jw_chunks WHERE source_id = 'book'"
            )
            ingest.execute("DELETE FROM jw_chunks WHERE source_id = 'book' AND id NOT LIKE '%-new'")
            deleted: list[int] = []
            deleting = threading.Thread(target=lambda: deleted.append(store.delete_source("book")))
            deleting.start()
            time.sleep(1.0)  # the delete now waits on the ingest
            ingest.commit()
            deleting.join(timeout=30)
        assert deleted == [5]  # the re-ingest's chunks, all of them
        assert store.stats()["per_source"] == {"other": 2}
        with psycopg.connect(dsn) as conn:
            left = conn.execute(
                "SELECT count(*) FROM jw_chunks WHERE source_id = 'book'"
            ).fetchone()
        assert left == (0,)


def test_an_ingest_waiting_on_a_delete_stores_its_source_row(pg_database: PgDatabase) -> None:
    """The other order: a delete holds the source's row lock when an ingest
    asks for it. The ingest's lock then found the row gone and wrote its
    chunks without a source row (searched and counted, unknown to
    ``get_source`` and ``jw rag delete``); it now makes the row again."""
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as store:
        store.add(make_chunks("book", 5))
        with psycopg.connect(dsn) as deleting:  # delete_sources(["book", ...]), before its commit
            deleting.execute("SELECT 1 FROM jw_sources WHERE source_id = 'book' FOR UPDATE")
            ingest = threading.Thread(
                target=lambda: store.replace_source("book", make_chunks("book", 3, tag="new"))
            )
            ingest.start()
            time.sleep(1.0)  # the ingest found the row, and now waits for its lock
            deleting.execute("DELETE FROM jw_chunks WHERE source_id = 'book'")
            deleting.execute("DELETE FROM jw_sources WHERE source_id = 'book'")
            deleting.commit()
            ingest.join(timeout=30)
        assert store.stats()["per_source"] == {"book": 3}
        held = store.get_source("book")
        assert held is not None and held["chunks"] == 3
        assert store.delete_sources(["book"]) == [3]
        assert store.stats()["chunks"] == 0
