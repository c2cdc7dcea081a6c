"""The exact BM25 top ``k`` of an FTS5 index without scoring every match.

FTS5 ranks a query by scoring every row that holds any of its terms, so a
question with a common word (``the``, ``de``, ``god``) scores a large share
of the table. BM25 is a sum over the query's terms, and one term adds at most
``idf * (k1 + 1)`` to any row. So the rows that hold only common terms score
at most the sum of those terms' bounds: :func:`top_bm25` ranks the rows that
hold a rarer term (a far smaller set), adds the common terms' share to each
from the row's own tokens, in the order of the rare terms' score until no
later row can reach the ``k``-th best, and returns the answer only when that
``k``-th best also beats every row of common terms alone. Otherwise it
returns ``None`` and the caller runs FTS5's own full query, so the answer is
always FTS5's, its scores to the last bit (each row's score is summed again as
FTS5 sums it, term by term in query order). Only ASCII terms are scored
this way, and rows whose other words cannot hide one: FTS5's unicode61 folds
some letters otherwise than Python (a final sigma as a medial one, ``ø`` as
``o``), so such words need not be its tokens.
"""

from __future__ import annotations

import heapq
import json
import math
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Sequence

from jw_rag.store._schema import IN_JSON
from jw_rag.store._tokens import match_expression

__all__ = ["COMMON_SHARE", "VOCAB_TABLE", "create_vocab", "top_bm25"]

#: FTS5's ``bm25()`` constants.
_K1, _B = 1.2, 0.75
#: A term in more than this share of the rows is scored from the candidates'
#: tokens instead of through the index. On store_scale.py's 100,000 real
#: chunks and 200 real questions (k = 10), a first version was 2.5x faster in
#: total than the full query at 0.1, 1.2x at 0.3, and at 0.03 the candidates
#: to score grew faster than the index work saved (p95 worse).
COMMON_SHARE = 0.1
#: A connection's view of the index's terms and how many rows hold each.
VOCAB_TABLE = "temp.jw_fts_vocab"
_PAGE = 64


def create_vocab(conn: sqlite3.Connection) -> bool:
    """Give ``conn`` the term table :func:`top_bm25` reads (outside a
    transaction, which would roll it back); whether it could."""
    try:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE} "
            "USING fts5vocab(main, chunks_fts, row)"
        )
    except sqlite3.Error:
        return False
    return True


def _varints(blob: bytes, count: int) -> list[int]:
    """The first ``count`` SQLite varints of ``blob`` (big-endian groups of
    seven bits, a ninth byte of eight): FTS5's averages record starts with
    the number of rows and of tokens, a row's size its number of tokens."""
    out, i = [], 0
    for _ in range(count):
        value = 0
        for n in range(9):
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def _latin(char: str) -> bool:
    """Whether FTS5 might fold ``char`` (not ASCII) to an ASCII letter."""
    return not char.isascii() and "LATIN" in unicodedata.name(char, "")


def _may_differ(words: Sequence[str], terms: Sequence[str]) -> bool:
    """Whether FTS5 might count one of the (ASCII) ``terms`` in a non-ASCII
    one of a row's ``words`` that Python's split does not: FTS5's unicode61 folds some
    letters Python keeps (``ø`` as ``o``) and splits at characters Python
    counts as letters, one character for one, so a word can hide a term only
    where its ASCII letters agree with the term's, its Latin ones standing for
    any letter, between the word's ends or non-ASCII characters (which FTS5
    may take for separators)."""
    for word in words:
        if word.isascii():
            continue
        n = len(word)
        for term in terms:
            size = len(term)
            for i in range(n - size + 1):
                if i and word[i - 1].isascii() or i + size < n and word[i + size].isascii():
                    continue
                if all(c == t or _latin(c) for c, t in zip(word[i : i + size], term, strict=True)):
                    return True
    return False


def _idf(rows: int, hits: int) -> float:
    """FTS5's inverse document frequency (never below 1e-6)."""
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0 else 1e-6


def top_bm25(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    k: int,
    join: str = "",
    where: str = "",
    params: Sequence[object] = (),
) -> list[tuple[int, float]] | None:
    """The ``k`` best ``(rowid, -bm25)`` for ``terms`` (distinct, ORed) with
    the filter ``join`` / ``where`` / ``params`` (as the full query takes
    them), best first, ties by rowid; ``None`` when the common terms' bound
    cannot prove the answer (or the index's statistics cannot be read)."""
    if k < 1 or len(terms) < 2 or not all(t.isascii() and t.isalnum() for t in terms):
        return None  # only ASCII words are FTS5's tokens as Python splits them (see below)
    try:
        averages = conn.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
        found = conn.execute(
            f"SELECT term, doc FROM {VOCAB_TABLE} WHERE term {IN_JSON}", (json.dumps(terms),)
        ).fetchall()
    except sqlite3.Error:
        return None
    if averages is None or not isinstance(averages[0], bytes):
        return None
    try:
        rows, tokens = _varints(averages[0], 2)
    except IndexError:  # a record cut short: FTS5's own query says what is wrong
        return None
    if rows < 1 or tokens < 1:
        return None
    hits = dict(found)
    common = [t for t in terms if hits.get(t, 0) > COMMON_SHARE * rows]
    rare = [t for t in terms if t not in common]
    if not common or not rare:
        return None
    weights = {t: _idf(rows, hits.get(t, 0)) for t in terms}
    bound = sum(weights[t] for t in common) * (_K1 + 1)
    average = tokens / rows
    best: list[tuple[float, int]] = []  # a min-heap of (score, -rowid): the k-th best on top
    cursor = conn.execute(
        f"SELECT chunks_fts.rowid, bm25(chunks_fts) AS s FROM chunks_fts {join}"
        f"WHERE chunks_fts MATCH ?{where} ORDER BY s, chunks_fts.rowid",
        (match_expression(rare), *params),
    )
    while page := cursor.fetchmany(_PAGE):
        if any(score is None for _, score in page):
            return None  # damaged statistics: FTS5's own query says so
        if len(best) == k and -page[0][1] + bound < best[0][0]:
            break  # no later row can reach the k-th best
        rows_text = conn.execute(  # FTS5's own token count, and the tokens it indexed
            "SELECT f.rowid, f.tokens, d.sz FROM chunks_fts f JOIN chunks_fts_docsize d "
            f"ON d.id = f.rowid WHERE f.rowid {IN_JSON}",
            (json.dumps([r[0] for r in page]),),
        )
        texts = {r[0]: (r[1], r[2]) for r in rows_text}
        for rowid, _ in page:
            text, size = texts.get(rowid, (None, None))
            # FTS5's unicode61 folds and splits some non-ASCII words otherwise than
            # Python (a final sigma is indexed as a medial one): a row with a word
            # that might hide a term is left to the full query
            if not isinstance(text, str) or not isinstance(size, bytes):
                return None
            words = text.split()
            if not text.isascii() and _may_differ(words, terms):
                return None
            try:
                length = _varints(size, 1)[0]
            except IndexError:  # a damaged size record: FTS5's own query says so
                return None
            counts = Counter(words)
            norm = _K1 * (1 - _B + _B * length / average)
            total = 0.0  # summed as FTS5's bm25() does, term by term in query order
            for term in terms:
                tf = counts.get(term, 0)
                if tf:
                    total += weights[term] * ((tf * (_K1 + 1.0)) / (tf + norm))
            item = (total, -rowid)
            if len(best) < k:
                heapq.heappush(best, item)
            elif item > best[0]:
                heapq.heapreplace(best, item)
    if len(best) < k or best[0][0] <= bound:
        return None  # a row of common terms alone might still be among the k best
    return [(-neg, score) for score, neg in sorted(best, reverse=True)]
