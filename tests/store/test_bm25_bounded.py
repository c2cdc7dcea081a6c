"""A full-text search scores the rows holding a question's rarer words and
bounds what its common words can add (jw_rag.store._fts_topk): the answer is
FTS5's own full query's, ids, order and scores, or that query is run."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.errors import StoreError
from jw_rag.model import Chunk
from jw_rag.store import SQLiteStore, _fts_topk
from jw_rag.store._fts_topk import top_bm25
from jw_rag.store._tokens import match_expression, query_terms
from tests.store.store_helpers import CountingEmbedder

# a few words in most rows, the rest rarer: the mix a real question meets
COMMON = ["the", "of", "and", "god"]
RARE = [f"w{i}" for i in range(40)]
words = st.one_of(st.sampled_from(COMMON), st.sampled_from(RARE))
texts = st.lists(words, min_size=1, max_size=15).map(" ".join)


def _both(store: SQLiteStore, query: str, k: int, filters: dict | None = None) -> tuple:
    store._vocab = False  # FTS5's full query
    full = store.search(query, k=k, mode="bm25", filters=filters)
    store._vocab = True
    bounded = store.search(query, k=k, mode="bm25", filters=filters)
    return full, bounded


def _same(full: list, bounded: list) -> None:
    assert [h.chunk.id for h in bounded] == [h.chunk.id for h in full]
    assert [h.score for h in bounded] == [h.score for h in full]  # to the last bit


@settings(max_examples=60, deadline=None)
@given(
    corpus=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), texts), min_size=1, max_size=80),
    query=st.lists(st.sampled_from([*COMMON, *RARE[:8], "absent"]), min_size=1, max_size=6),
    k=st.integers(1, 30),
    dropped=st.sampled_from([None, "a", "b"]),
    kept=st.sampled_from([None, ["a"], ["b", "c"]]),
    page=st.sampled_from([1, 3, 64]),  # small pages stop early within small tables
)
def test_bounded_search_answers_as_the_full_query(
    tmp_path_factory: object,
    corpus: list[tuple[str, str]],
    query: list[str],
    k: int,
    dropped: str | None,
    kept: list[str] | None,
    page: int,
) -> None:
    folder = Path(tmp_path_factory.mktemp("bm25"))  # type: ignore[attr-defined]
    chunks = [
        Chunk(f"{source}:{i}", text, source, {"language": "en"})
        for i, (source, text) in enumerate(corpus)
    ]
    with SQLiteStore(folder / "s.sqlite", CountingEmbedder()) as store:
        store.add(chunks)
        if dropped:  # deleted rows leave the index's statistics and term counts
            store.delete_source(dropped)
        filters = None if kept is None else {"source_id": kept}
        with mock.patch.object(_fts_topk, "_PAGE", page):
            _same(*_both(store, " ".join(query), k, filters))


def _corpus(n: int = 200) -> list[Chunk]:
    """Rows with ``the`` / ``of`` (all), ``god`` (two in three) and one of
    twenty rarer words (one in twenty each)."""
    return [
        Chunk(f"s:{i}", f"the w{i % 20} of the {'god ' * (i % 3)}n{i}", "s", {"language": "en"})
        for i in range(n)
    ]


def test_a_question_with_common_words_is_answered_by_the_bound(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "s.sqlite", CountingEmbedder()) as store:
        store.add(_corpus())
        _same(*_both(store, "the w3 of the god", 5))
        terms = query_terms("the w3 of the god", "en")
        with store._reading() as conn:
            got = top_bm25(conn, terms, 5)  # None would mean the full query answered
            full = conn.execute(
                "SELECT rowid, -bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
                "ORDER BY s DESC, rowid LIMIT 5",
                (match_expression(terms),),
            ).fetchall()
    assert got is not None
    assert [r for r, _ in got] == [r for r, _ in full]
    assert [s for _, s in got] == [s for _, s in full]


def test_a_store_opened_for_reading_searches_with_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, CountingEmbedder()) as store:
        store.add(_corpus())
        expected = [(h.chunk.id, h.score) for h in store.search("the w7", k=7, mode="bm25")]
    path.chmod(0o444)
    with SQLiteStore(path, CountingEmbedder(), read_only=True) as store:
        assert store._vocab
        full, bounded = _both(store, "the w7", 7)
    _same(full, bounded)
    assert [h.chunk.id for h in bounded] == [i for i, _ in expected]
    assert [h.score for h in bounded] == pytest.approx([s for _, s in expected], rel=1e-12)


def test_a_damaged_statistics_record_leaves_the_answer_to_the_full_query(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, CountingEmbedder()) as store:
        store.add(_corpus(50))
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE temp.jw_fts_vocab USING fts5vocab(main, chunks_fts, row)")
    for block in (b"", b"\x80", b"\x00\x00"):  # cut short, a varint cut, no rows
        conn.execute("UPDATE chunks_fts_data SET block = ? WHERE id = 1", (block,))
        assert top_bm25(conn, ["the", "lamp"], 3) is None
    conn.rollback()
    conn.close()


def _rows(texts: list[str]) -> list[Chunk]:
    fillers = [f"n{i}" for i in range(100 - len(texts))]  # rows of one word of their own
    return [Chunk(f"s:{i}", t, "s", {"language": "en"}) for i, t in enumerate(texts + fillers)]


@pytest.mark.parametrize(
    ("texts", "best"),
    [
        # the row the rare word ranks second wins with the common word's share
        (["x q", "x god god"] + ["god n"] * 20, "s:1"),
        # a row of the common word alone beats the only row with the rare one
        (["x " + " ".join(f"m{i}" for i in range(100))] + ["god god god"] * 20, "s:1"),
    ],
)
def test_rows_beyond_the_rare_words_lead_are_not_missed(
    tmp_path: Path, texts: list[str], best: str
) -> None:
    with SQLiteStore(tmp_path / "s.sqlite", CountingEmbedder()) as store:
        store.add(_rows(texts))
        with mock.patch.object(_fts_topk, "_PAGE", 1):
            full, bounded = _both(store, "x god", 1)
    assert [h.chunk.id for h in full] == [best]
    _same(full, bounded)


def test_scores_are_fts5s_to_the_last_bit(tmp_path: Path) -> None:
    """The common words' share is computed as FTS5's bm25() does (idf times the
    term's fraction, summed in query order); ``weight * tf * 2.2 / d`` differed
    from FTS5's score in its last bits for every hit of "of the god w5"."""
    chunks = [
        Chunk(f"t:{i}", f"the w{i % 20} of the {'god ' * (i % 3)}n{i} zeta{i % 5}", "t", {})
        for i in range(300)
    ]
    with SQLiteStore(tmp_path / "s.sqlite", CountingEmbedder()) as store:
        store.add(chunks)
        for query in ["of the god w5", "the w3 zeta2 of", "god w3 the zeta1"]:
            full, bounded = _both(store, query, 10)
            assert [(h.chunk.id, h.score) for h in bounded] == [(h.chunk.id, h.score) for h in full]


def test_a_word_fts5_folds_otherwise_than_python_is_left_to_the_full_query(
    tmp_path: Path,
) -> None:
    """FTS5 indexes the Greek final sigma as a medial one (``λογος`` as
    ``λογοσ``): a query typed ``λογοσ`` finds the common term ``λογοσ`` in
    FTS5's vocabulary while the rows' Python words say ``λογος``, so its share
    was left out of every score (2.8332133 for FTS5's 2.8332143)."""
    chunks = [
        Chunk(f"s:{i}", f"r{i % 20} pad" + (" λόγος" if i % 3 else " pud"), "s", {})
        for i in range(80)
    ]
    with SQLiteStore(tmp_path / "s.sqlite", CountingEmbedder()) as store:
        store.add(chunks)
        full, bounded = _both(store, "λογοσ r1", 3)
        assert [(h.chunk.id, h.score) for h in bounded] == [(h.chunk.id, h.score) for h in full]
        assert [h.chunk.id for h in full] == ["s:1", "s:41", "s:61"]
        with store._reading() as conn:
            assert top_bm25(conn, query_terms("λογοσ r1"), 3) is None


def test_a_damaged_size_record_is_a_one_line_store_error(tmp_path: Path) -> None:
    """A candidate row whose chunks_fts_docsize record is empty: the bounded
    search says what FTS5's own query says, a one-line StoreError."""
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, CountingEmbedder()) as store:
        store.add(_corpus())
        rowid = store.search("the w3 of the god", k=1, mode="bm25")[0].chunk.id
    with sqlite3.connect(path) as conn:
        number = conn.execute("SELECT rowid FROM chunks WHERE id = ?", (rowid,)).fetchone()[0]
        conn.execute("UPDATE chunks_fts_docsize SET sz = x'' WHERE id = ?", (number,))
    with SQLiteStore(path, CountingEmbedder()) as store:
        for vocab in (False, True):
            store._vocab = vocab
            with pytest.raises(StoreError, match="damaged") as caught:
                store.search("the w3 of the god", k=5, mode="bm25")
            assert "\n" not in str(caught.value)


@pytest.mark.parametrize("block", [b"\x81", b"\x01\x01", "text"])
def test_a_damaged_averages_record_is_a_one_line_store_error(tmp_path: Path, block: object) -> None:
    """FTS5 scores every row NULL when its averages record (chunks_fts_data
    id 1) is cut short or not a blob: both searches said ``TypeError: bad
    operand type for unary -: 'NoneType'``; now the store is named damaged."""
    path = tmp_path / "s.sqlite"
    with SQLiteStore(path, CountingEmbedder()) as store:
        store.add(_corpus())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE chunks_fts_data SET block = ? WHERE id = 1", (block,))
    with SQLiteStore(path, CountingEmbedder()) as store:
        for vocab in (False, True):
            store._vocab = vocab
            for mode in ("bm25", "hybrid"):
                with pytest.raises(StoreError, match="damaged") as caught:
                    store.search("the w3 god", k=3, mode=mode)
                assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "terms", "differ"),
    [
        ("the soren", ["soren", "the"], False),  # ASCII words are FTS5's tokens
        ("the søren", ["soren", "the"], True),  # FTS5 may fold ø to o
        ("the λογος", ["the", "god"], False),  # Greek letters never fold to ASCII ones
        ("the λογοςgod", ["the", "god"], True),  # FTS5 may split before "god"
        ("the xgodλ", ["the", "god"], False),  # "god" inside an ASCII run is no token
    ],
)
def test_which_non_ascii_words_might_hide_a_term(text: str, terms: list[str], differ: bool) -> None:
    assert _fts_topk._may_differ(text.split(), terms) is differ


def test_rows_with_non_ascii_words_answer_as_the_full_query(tmp_path: Path) -> None:
    texts = ["the søren god", "λογος the god w1", "the god w1 ﬁ", "w1 the"] + [
        f"the n{i}" for i in range(60)
    ]
    chunks = [Chunk(f"s:{i}", t, "s", {"language": "en"}) for i, t in enumerate(texts)]
    with SQLiteStore(tmp_path / "s.sqlite", CountingEmbedder()) as store:
        store.add(chunks)
        for query in ("soren w1", "w1 god the", "logos the w1"):
            _same(*_both(store, query, 3))
