"""Full-text analysis: exact tokens for small inputs, and MATCH expressions
that no user text can break."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from jw_rag.store._tokens import analyse, fold, match_expression, query_terms


def test_analyse_golden() -> None:
    assert analyse("Jesús enseñó a sus discípulos", "es") == "jesus ensen a sus discipul"
    assert analyse("Jesús taught his disciples", "en") == "jesus taught his discipl"
    assert analyse("As ações dos apóstolos", "pt") == "as aco dos apostol"
    assert analyse("Ñandú CORAZÓN 3:16", None) == "nandu corazon 3 16"
    assert analyse("Ñandú CORAZÓN", "de") == "nandu corazon"  # no stemmer: fold only
    assert analyse("Enseñó", "S") == "ensen"  # jw.org language codes are understood


def test_query_terms_by_language() -> None:
    assert query_terms("¿Qué enseña Jesús?") == ["que", "ensen", "ensena", "jesus"]
    assert query_terms("teaching", "en") == ["teach", "teaching"]
    # No language evidence: stems of every language, plus the folded word.
    assert query_terms("ensina") == ["ensina", "ensin"]
    assert query_terms("  ?! ") == []


def test_fold() -> None:
    assert fold("ÁÉÍÓÚ ãõç ñ Ü") == "aeiou aoc n u"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_query_is_a_valid_match_expression(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(tokens, tokenize='unicode61 remove_diacritics 2')"
    )
    conn.execute("INSERT INTO t VALUES (?)", (analyse(text, None),))
    terms = query_terms(text)
    if terms:
        rows = conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match_expression(terms),))
        assert rows.fetchall() == ([(1,)] if analyse(text, None) else [])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=10), min_size=1, max_size=5))
def test_match_expression_quotes_raw_terms(terms: list[str]) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(tokens)")
    expression = match_expression(terms)
    if expression:
        conn.execute("SELECT * FROM t WHERE t MATCH ?", (expression,)).fetchall()
    else:
        assert all(not t.replace("\x00", "") for t in terms)
