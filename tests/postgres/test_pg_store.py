"""What the PostgreSQL store promises beyond the shared contract: atomic
replaces, parallel writer processes, clear errors, migrations, indexes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import psycopg
import pytest

from jw_rag.errors import ConfigError, StoreError
from jw_rag.model import Chunk
from jw_rag.store import open_store
from jw_rag.store.postgres import PostgresStore, describe_dsn
from tests.postgres.pg_harness import PgDatabase
from tests.store.store_helpers import CountingEmbedder, make_chunks

REPO = Path(__file__).resolve().parents[2]  # the child scripts import tests.store


def _snapshot(dsn: str) -> dict[str, Any]:
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        st = s.stats()
        st.pop("size_bytes")
        ids = [f"book:{i}" for i in range(400)] + ["other:0", "other:1"]
        source = dict(s.get_source("book") or {})
        return {
            "stats": st,
            "chunks": s.get(ids),
            "parents": s.get_parents(["book:p0"]),
            "source": source,
            "bm25": [h.chunk.id for h in s.search("lamps oil number5", k=5, mode="bm25")],
            "dense": [h.chunk.id for h in s.search("old paragraph 3 of book", k=5)],
        }


def _seed(dsn: str) -> None:
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        parent = Chunk("book:p0", "the old parent", "book")
        s.replace_source(
            "book", make_chunks("book", 300, "old"), content_hash="v1", parents=[parent]
        )
        s.add(make_chunks("other", 2))


class _Boom(RuntimeError):
    pass


def test_exception_mid_replace_leaves_store_unchanged(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    _seed(dsn)
    before = _snapshot(dsn)

    class Failing(PostgresStore):
        batches = 0

        def _copy_batch(self, *args: Any) -> None:
            super()._copy_batch(*args)
            Failing.batches += 1
            if Failing.batches == 3:
                raise _Boom("disk full")

    with Failing(dsn, embedder=CountingEmbedder(), pool_size=1) as s:
        with pytest.raises(_Boom):
            s.replace_source("book", make_chunks("book", 5000, "new"), content_hash="v2")
        # The same (only) pooled connection keeps working after the rollback.
        assert s.stats()["chunks"] == before["stats"]["chunks"]
    assert Failing.batches == 3
    assert _snapshot(dsn) == before


WRITER = textwrap.dedent(
    """
    import time
    from pathlib import Path
    from tests.store.store_helpers import CountingEmbedder, make_chunks
    from jw_rag.store.postgres import PostgresStore

    start = Path({start!r})
    while not start.exists():
        time.sleep(0.01)
    store = PostgresStore({dsn!r}, embedder=CountingEmbedder())
    # all writers ingest the same content at once: exactly one of them writes it
    wrote = store.replace_source("shared", make_chunks("shared", 30, "{name}"), content_hash="same")
    for i in range(15):
        sid = "{name}-" + str(i)
        store.replace_source(sid, make_chunks(sid, 40, "{name}"), content_hash="h")
        store.add(make_chunks(sid + "-extra", 3))
        # and all keep re-ingesting one source with new content: never a mix of versions
        tag = "{name}" + str(i)
        store.replace_source("contended", make_chunks("contended", 10 + i, tag), content_hash=tag)
    store.close()
    print("wrote" if wrote else "skipped")
    """
)


def test_parallel_writer_processes_lose_nothing(pg_database: PgDatabase, tmp_path: Path) -> None:
    dsn = pg_database()
    start = tmp_path / "go"
    PostgresStore(dsn, embedder=CountingEmbedder()).close()  # schema exists, no vectors yet
    names = ("alpha", "beta", "gamma")
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WRITER.format(start=str(start), dsn=dsn, name=name),
            ],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for name in names
    ]
    start.write_text("go")
    outputs = []
    for p in procs:
        out, err = p.communicate(timeout=240)
        assert p.returncode == 0, err.decode()
        outputs.append(out.decode().strip())
    assert sorted(outputs) == ["skipped", "skipped", "wrote"]
    winner = names[outputs.index("wrote")]
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        shared = s.get([f"shared:{i}" for i in range(30)])
        assert len(shared) == 30 and all(c.text.startswith(winner + " ") for c in shared)
        contended = s.get_source("contended")
        tag = contended["content_hash"]
        chunks = s.get([f"contended:{i}" for i in range(30)])
        assert len(chunks) == 10 + int(tag[-2:].lstrip("abcdefghijklmnopqrstuvwxyz"))
        assert all(c.text.startswith(tag + " ") for c in chunks)
        st = s.stats()
        assert st["per_source"].pop("shared") == 30
        assert st["per_source"].pop("contended") == len(chunks)
        assert sum(st["per_source"].values()) == 3 * 15 * 43
        assert st["sources"] == 3 * 15 * 2 + 2
        assert all(n == 40 for sid, n in st["per_source"].items() if not sid.endswith("extra"))
        hits = s.search("gamma", k=5, mode="bm25", filters={"source_id": "gamma-14"})
        assert len(hits) == 5


def test_unreachable_server_is_one_clear_line() -> None:
    dsn = "postgresql://reader:s3cret@127.0.0.1:1/library"
    with pytest.raises(StoreError) as info:
        PostgresStore(dsn, connect_timeout=2)
    message = str(info.value)
    assert "\n" not in message and "s3cret" not in message
    assert "postgresql://reader@127.0.0.1:1/library" in message
    assert "check that the server is running" in message


def test_bad_dsn_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="invalid PostgreSQL DSN"):
        PostgresStore("postgresql://u:pw@127.0.0.1/db?nosuchoption=1")
    assert describe_dsn("host=db.example.org port=6543 dbname=lib password=pw") == (
        "postgresql://db.example.org:6543/lib"
    )


@pytest.mark.parametrize(
    "dsn",
    [
        "postgresql://reader:s3cret@[::1/library",
        "postgresql://reader:s3cret@[]/library",
        "postgres://:s3cret@db,[x/library",
    ],
)
def test_a_dsn_libpq_cannot_parse_is_named_without_its_password(dsn: str) -> None:
    """libpq quotes the whole URI when it cannot parse its host: the message
    keeps the URI, with the password masked."""
    with pytest.raises(StoreError) as info:
        describe_dsn(dsn)
    message = str(info.value)
    assert "s3cret" not in message and "\n" not in message
    assert dsn.replace("s3cret", "***") in message


def test_another_embedder_gets_the_sqlite_message(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        s.add(make_chunks("a", 3))
    other = CountingEmbedder(dim=16, model_id="other-model")
    with PostgresStore(dsn, embedder=other) as s:
        with pytest.raises(StoreError, match="holds vectors from embedder 'fake-32'"):
            s.add(make_chunks("b", 1))
        with pytest.raises(StoreError, match="open it with the 'fake-32' embedder"):
            s.search("paragraph")
        assert other.calls == 0
        # once every vector is gone, the store takes the new model and dimension
        s.delete_source("a")
        assert s.add(make_chunks("b", 2)) == 2
        assert s.stats()["dim"] == 16
        assert {h.chunk.id for h in s.search("paragraph of b", k=5)} == {"b:0", "b:1"}


def test_schema_is_versioned_and_checked(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    PostgresStore(dsn, embedder=CountingEmbedder()).close()
    PostgresStore(dsn, embedder=CountingEmbedder()).close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM jw_schema_version").fetchall() == [(1,)]
        conn.execute("INSERT INTO jw_schema_version (version) VALUES (99)")
    with pytest.raises(StoreError, match="schema 99 .* upgrade jw-rag"):
        PostgresStore(dsn)
    foreign = pg_database()
    with psycopg.connect(foreign, autocommit=True) as conn:
        conn.execute("CREATE TABLE jw_chunks (x int)")
    with pytest.raises(StoreError, match="not a jw-rag store"):
        PostgresStore(foreign)


def test_vector_column_index_and_text_configurations(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        s.add(make_chunks("en", 2) + make_chunks("es", 1, language="es"))
        s.add([Chunk("x:0", "sin idioma", "x")])
    with psycopg.connect(dsn) as conn:
        kind = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'jw_chunks'::regclass AND attname = 'embedding'"
        ).fetchone()
        assert kind == ("vector(32)",)
        indexdef = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'jw_chunks_hnsw'"
        ).fetchone()
        assert indexdef and "hnsw (embedding vector_cosine_ops)" in indexdef[0]
        configs = conn.execute("SELECT id, ts_config::text FROM jw_chunks ORDER BY id").fetchall()
        assert configs == [
            ("en:0", "english"),
            ("en:1", "english"),
            ("es:0", "spanish"),
            ("x:0", "simple"),
        ]


def test_open_store_takes_a_dsn(pg_database: PgDatabase, monkeypatch: pytest.MonkeyPatch) -> None:
    dsn = pg_database()
    monkeypatch.setenv("JW_STORE", dsn)
    with open_store(embedder=CountingEmbedder()) as s:
        assert isinstance(s, PostgresStore)
        s.add(make_chunks("s", 4))
    with open_store(dsn, embedder=CountingEmbedder()) as s:
        assert [h.chunk.id for h in s.search("number3", mode="bm25")] == ["s:3"]


def test_hnsw_search_agrees_with_exact_search(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        s.add(make_chunks("big", 3000, "lamps"))
        queries = [f"paragraph {i} of big about oil" for i in range(0, 3000, 300)]
        overlap = 0
        for q in queries:
            approx = [h.chunk.id for h in s.search(q, k=10)]
            exact = [h.chunk.id for h in s.search(q, k=1001)][:10]  # k > ef_search: exact scan
            overlap += len(set(approx) & set(exact))
        assert overlap / (10 * len(queries)) >= 0.9


def _has_hnsw(dsn: str) -> bool:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("SELECT to_regclass('jw_chunks_hnsw') IS NOT NULL").fetchone()
        return bool(row and row[0])


def test_deferred_index_bulk_load_searches_exactly_then_builds_the_index(
    pg_database: PgDatabase,
) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        with s.deferred_index(memory="64MB") as bulk:
            for n in range(3):
                bulk.replace_source(f"src{n}", make_chunks(f"src{n}", 200, f"topic{n}"))
            assert not _has_hnsw(dsn) and not s.has_index()
            assert s.stats()["hnsw_index"] is False
            exact = [h.chunk.id for h in s.search("paragraph 7 of src1", k=5)]
            assert exact == [h.chunk.id for h in s.search("paragraph 7 of src1", k=1001)][:5]
        assert _has_hnsw(dsn) and s.has_index() and s.stats()["hnsw_index"] is True
        assert s.stats()["chunks"] == 600
        assert s.build_index() is False  # already there
        # Later ingests maintain the rebuilt index as usual.
        s.replace_source("late", make_chunks("late", 3))
        assert s.stats()["per_source"]["late"] == 3


def test_deferred_index_on_an_empty_store_and_after_an_error(pg_database: PgDatabase) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        assert s.build_index() is False  # no vectors yet: nothing to index
        with pytest.raises(RuntimeError, match="stop"):
            with s.deferred_index():
                s.replace_source("a", make_chunks("a", 5))  # the first write sets the dimension
                assert not _has_hnsw(dsn)
                raise RuntimeError("stop")
        assert _has_hnsw(dsn)  # rebuilt although the block failed
        assert s.stats()["per_source"] == {"a": 5}  # what was committed stays
        with pytest.raises(ConfigError, match="memory must be"):
            with s.deferred_index(memory="lots"):  # PostgreSQL rejects it before the drop
                pass
        assert _has_hnsw(dsn)
        assert s.build_index() is False


@pytest.mark.parametrize("bad", [0, 1001, True, "40"])
def test_ef_search_is_checked(pg_database: PgDatabase, bad: object) -> None:
    with pytest.raises(
        ConfigError, match="ef_search must be None .chosen per search. or an integer from 1 to 1000"
    ):
        PostgresStore(pg_database(), embedder=CountingEmbedder(), ef_search=bad)  # type: ignore[arg-type]


def test_a_wider_ef_search_finds_at_least_as_much_of_the_exact_top_k(
    pg_database: PgDatabase,
) -> None:
    dsn = pg_database()
    with PostgresStore(dsn, embedder=CountingEmbedder()) as s:
        s.add(make_chunks("big", 2000, "lamps"))
    queries = [f"paragraph {i} of big about oil" for i in range(0, 2000, 250)]
    found = {}
    for breadth in (1, 400):
        with PostgresStore(dsn, embedder=CountingEmbedder(), ef_search=breadth) as s:
            hits = 0
            for q in queries:
                exact = {h.chunk.id for h in s.search(q, k=1001)[:10]}
                hits += len(exact & {h.chunk.id for h in s.search(q, k=10)})
            found[breadth] = hits / (10 * len(queries))
    assert found[400] >= 0.95 and found[400] > found[1], found


def test_only_real_filters_widen_the_hnsw_search() -> None:
    from jw_rag.store._pg_query import pg_filters

    assert pg_filters(None).active is False and pg_filters({}).active is False
    assert pg_filters({"source_id": "a"}).active is True
    assert pg_filters({"source_id": []}).active is True  # matches nothing


def test_a_selective_filter_is_answered_exactly(pg_database: PgDatabase) -> None:
    with PostgresStore(pg_database(), embedder=CountingEmbedder(), ef_search=1) as s:
        for n in range(3):
            s.replace_source(f"s{n}", make_chunks(f"s{n}", 400, f"topic{n}"))
        for q in ("paragraph 17 of s1 about topic1", "oil lamps", "number250"):
            got = s.search(q, k=10, filters={"source_id": "s1"})
            exact = s.search(q, k=1001, filters={"source_id": "s1"})[:10]
            assert [h.chunk.id for h in got] == [h.chunk.id for h in exact]
            assert all(h.chunk.source_id == "s1" for h in got)


def test_full_text_ranks_a_question_s_content_words_above_its_stop_words(
    pg_database: PgDatabase,
) -> None:
    # PostgreSQL ranks without inverse document frequency: the unstemmed stop words of a
    # question ("what", "is", "it", "que", "lo") once ranked the chunks dense
    # with them first, and matched every row of a large store
    chunks = [
        Chunk("en:ark", "Noah built the ark as he was told.", "b", {"language": "en"}),
        Chunk("es:lamp", "La lámpara se pone sobre el candelero.", "b", {"language": "es"}),
        Chunk("en:stop", "It is what it is, and that is all there is to it, is it not?", "b",
              {"language": "en"}),
        Chunk("es:stop", "Lo que es, es; y lo que no es, no es lo que era.", "b", {"language": "es"}),
    ]  # fmt: skip
    with PostgresStore(pg_database(), embedder=CountingEmbedder()) as s:
        s.add(chunks)
        found = s.search("What is it that Noah built?", k=10, mode="bm25")
        assert [h.chunk.id for h in found] == ["en:ark"]
        found = s.search("¿Qué es lo que se pone sobre el candelero?", k=10, mode="bm25")
        assert [h.chunk.id for h in found] == ["es:lamp"]
        # a question of stop words alone still matches them
        assert [h.chunk.id for h in s.search("what it is", k=10, mode="bm25")] == ["en:stop"]


def test_full_text_leaves_out_the_folded_forms_of_accented_stop_words(
    pg_database: PgDatabase,
) -> None:
    # "não", "também", "você", "más", "había" are stop words; their folded forms
    # ("nao", "tambem", "mas", "habia") are not, and once matched every chunk that
    # holds the stop word, ranking the chunks dense with them first
    chunks = [
        Chunk("pt:deus", "A fé de Abraão foi provada por Deus.", "b", {"language": "pt"}),
        Chunk("pt:stop", "Não, não e não. Você também não sabia, já não era assim.", "b",
              {"language": "pt"}),
        Chunk("es:lamp", "La lámpara se pone sobre el candelero.", "b", {"language": "es"}),
        Chunk("es:stop", "Más y más, también estaba allí, más de lo que había.", "b",
              {"language": "es"}),
    ]  # fmt: skip
    with PostgresStore(pg_database(), embedder=CountingEmbedder()) as s:
        s.add(chunks)
        found = s.search("Você também não crê em Deus?", k=10, mode="bm25")
        assert [h.chunk.id for h in found] == ["pt:deus"]
        found = s.search("¿Por qué también hay más lámparas?", k=10, mode="bm25")
        assert [h.chunk.id for h in found] == ["es:lamp"]
        # the hybrid ranking's full-text half agrees
        found = s.search("¿Había más lámparas?", k=1, mode="hybrid")
        assert [h.chunk.id for h in found] == ["es:lamp"]
        # a question of stop words alone still matches them, accents or not
        assert [h.chunk.id for h in s.search("também não", k=10, mode="bm25")] == ["pt:stop"]


def test_full_text_leaves_out_a_word_that_folds_to_a_stop_word(pg_database: PgDatabase) -> None:
    # PostgreSQL's Portuguese list lacks "é" (is), the language's most frequent
    # verb; its folded "e" (and) is a stop word. Matched, "é" ranked a chunk of
    # "é"s above the one chunk that names Jesus
    chunks = [
        Chunk("pt:jesus", "Jesus curou o cego de nascença em Jerusalém.", "b", {"language": "pt"}),
        Chunk("pt:stop", "O que é, é; e o que não é, não é o que era.", "b", {"language": "pt"}),
    ]
    with PostgresStore(pg_database(), embedder=CountingEmbedder()) as s:
        s.add(chunks)
        assert [h.chunk.id for h in s.search("Quem é Jesus?", k=10, mode="bm25")] == ["pt:jesus"]
        # alone, it is still a word to find
        assert [h.chunk.id for h in s.search("é", k=10, mode="bm25")] == ["pt:stop"]


def test_a_query_of_more_words_than_full_text_holds_is_one_line_naming_the_query(
    pg_database: PgDatabase,
) -> None:
    # 150,000 distinct words: their lexemes pass the megabyte a tsvector holds.
    # The store is fine: the message said "cannot read the store ... check the
    # server and retry". Such a query is now refused for its length, before
    # the server sees it (jw_rag.limits.MAX_QUERY_CHARS)
    words = " ".join(
        "".join(chr(97 + (i // 26**p) % 26) for p in range(4)) + "qz" for i in range(150_000)
    )
    with PostgresStore(pg_database(), embedder=CountingEmbedder()) as s:
        s.add(make_chunks("book", 3))
        for mode in ("bm25", "hybrid"):
            with pytest.raises(ConfigError) as err:
                s.search(words, k=3, mode=mode)
            message = str(err.value)
            assert "\n" not in message and "over the limit of" in message
            assert "key sentences" in message and "check the server" not in message
        assert [h.chunk.id for h in s.search("lamps", k=1, mode="bm25")] == ["book:0"]
