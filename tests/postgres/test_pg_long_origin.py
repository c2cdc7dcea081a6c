"""A source's recorded origin is any string (a file path, a URL with a long
query): the ``jw_sources_by_origin`` index holds its first characters only,
so it refuses no write the table takes (a B-tree entry holds 2704 bytes; a
12,000-character origin failed with "index row requires 12040 bytes ... check
the server and retry"), and ``sources_below`` still compares whole origins."""

from __future__ import annotations

import random
import string

from jw_rag.store.postgres import PostgresStore
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks


def test_sources_with_long_origins_are_stored_and_found(pg_database: PgDatabase) -> None:
    rng = random.Random(7)
    query = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(12_000))
    origins = {
        "long": "https://example.org/a?" + query,
        "long-sibling": "https://example.org/a?"
        + query[:1000]
        + "!"
        + query[1001:],  # past the head
        "wide": "/data/" + "\U0001f600" * 1000 + "/a.txt",  # 4,000 bytes of UTF-8
    }
    with PostgresStore(pg_database(), CountingEmbedder()) as store:
        for sid, origin in origins.items():
            store.replace_source(sid, make_chunks(sid, 2), source_metadata={"origin": origin})
        assert store.sources_below("https://example.org/") == [
            ("long", origins["long"]),
            ("long-sibling", origins["long-sibling"]),
        ]
        # a root longer than the indexed head is compared whole
        assert store.sources_below(origins["long"][:-5]) == [("long", origins["long"])]
        assert store.sources_below("/data/" + "\U0001f600" * 999) == [("wide", origins["wide"])]
