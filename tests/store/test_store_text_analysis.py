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


def _terms_without_cache(text: str, language: str | None) -> str:
    """The analysis as written before terms were cached, word list at a time."""
    import Stemmer

    from jw_rag.store._tokens import STEMMED_LANGUAGES, _words, fold

    words = _words(text)
    if language not in STEMMED_LANGUAGES:
        terms = [fold(w) for w in words]
    elif language == "en":
        terms = Stemmer.Stemmer("english").stemWords([fold(w) for w in words])
    else:
        stemmer = Stemmer.Stemmer(STEMMED_LANGUAGES[language])
        terms = [fold(w) for w in stemmer.stemWords(words)]
    return " ".join(t for t in terms if t)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("aeiouáéíóúãõçñü nrstlcdmpbgvhfAÁÉÇ-'·")), max_size=80
    ),
    language=st.sampled_from(["en", "es", "pt", None, "fr"]),
)
def test_cached_terms_are_the_terms_of_the_whole_list(text: str, language: str | None) -> None:
    from jw_rag.store._tokens import analyse

    assert analyse(text, language) == _terms_without_cache(text, language)
    assert analyse(text, language) == analyse(text, language)  # a cache hit gives the same


def test_term_cache_is_bounded_and_shared_by_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from jw_rag.store._tokens import _cached_term, analyse

    words = [f"corações{i} canções{i} running{i}" for i in range(70_000)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: analyse(t, "pt"), words[:2000]))
    assert got == [_terms_without_cache(t, "pt") for t in words[:2000]]
    for text in words:
        analyse(text, "en")
    assert _cached_term.cache_info().currsize <= _cached_term.cache_info().maxsize


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(
        st.text(alphabet=st.sampled_from(list("aeiouáéçñ nrstΣσςİ-'\r\t")), max_size=30),
        max_size=8,
    ),
    language=st.sampled_from(["en", "es", "pt", None]),
    long_line=st.booleans(),
)
def test_text_analysed_line_by_line_gives_the_whole_texts_tokens(
    lines: list[str], language: str | None, long_line: bool
) -> None:
    """A window's text repeats its members' lines, so lines are analysed (and
    remembered) one at a time: the tokens must be those of the whole text, with
    empty lines, blank lines, a final sigma at a line's end and a line too long
    to remember."""
    from jw_rag.store._tokens import _REMEMBERED_LINE_CHARS, analyse

    if long_line:
        lines = [*lines, "palavra " * (_REMEMBERED_LINE_CHARS // 8 + 1)]
    text = "\n".join(lines)
    assert analyse(text, language) == _terms_without_cache(text, language)
    assert analyse(text, language) == analyse(text, language)


def test_remembered_lines_are_bounded_and_shared_by_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from jw_rag.store._tokens import _analysed_line, analyse

    texts = [f"Título {i}\nCorações e canções {i}\n\nrunning {i % 7}" for i in range(3000)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: analyse(t, "pt"), texts))
    assert got == [_terms_without_cache(t, "pt") for t in texts]
    info = _analysed_line.cache_info()
    assert info.hits > 0 and info.currsize <= info.maxsize
