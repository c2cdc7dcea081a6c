"""The upper bounds every entry point shares: :data:`MAX_SIZE` for size
options and :data:`MAX_QUERY_CHARS` for a search query.

A chunker's character or sentence count, a retrieval unit's passage, split
or group size, and a benchmark peer's chunk size all take whole numbers up
to :data:`MAX_SIZE`: far above any source's length (so it means "never
split" where a size is a threshold), and short enough to print in a chunker
spec or a unit rules' identity. Larger values are refused in one line before
any work starts (Python's own digit limit, 4,300 digits, would otherwise be
the first to complain).
"""

from __future__ import annotations

__all__ = ["MAX_QUERY_CHARS", "MAX_SIZE"]

#: The largest size option, in characters (or sentences for a sentence count).
MAX_SIZE = 1_000_000_000

#: The longest search query, in characters (code points). Longer queries are
#: refused in one line before anything is embedded or ranked, by
#: ``Store.search``, ``retrieve``, ``jw rag search`` and the MCP ``search``
#: tool alike.
#:
#: Why this number. Questions are short: the 3,837 questions of the public
#: sets this project measures with are at most 295 characters (median 64).
#: A longer query is a pasted passage; 4,000 characters hold two long
#: paragraphs, or a default 2,000-character window unit twice over. Neither
#: side of a search reads a longer query better: the USE embedder averages
#: every token of a text (it cuts nothing), so a query of many paragraphs
#: becomes a vector far from each of them (:mod:`jw_rag.embed.use`), and BM25
#: ORs every distinct word, so a longer query only matches and scores more of
#: the store. Its cost grows with the query, faster than linearly on
#: PostgreSQL (``benchmarks/query_length.py --copies 10``: 7,450 chunks, 2
#: shared cores, the median of 3): a pasted passage's full-text ranking took
#: 0.56 s at 2,000 characters, 1.1 s at 4,000 and 3.0 s at 8,000 on
#: PostgreSQL, 0.05, 0.12 and 0.31 s on SQLite; its embedding 0.1 to 0.15 s
#: at 4,000. A 10 MB query took 136 to 208 s on PostgreSQL, holding a read
#: worker of the MCP server long after the call's deadline.
#:
#: The number of distinct words needs no limit of its own. A word and the
#: space after it take two characters or more, so a query at this limit holds
#: at most 2,000 distinct words (50,000 need over 100,000 characters), and
#: what a word costs is how many chunks hold it, not its being distinct: 731
#: distinct made-up words at the limit ranked in 0.08 s on SQLite and 0.33 s
#: on PostgreSQL, while the worst query measured, 1,103 distinct words of two
#: or three letters (many of them common words: ``an``, ``in``, ``to``), took
#: 1.1 s (SQLite) and 2.6 s (PostgreSQL), against the 60 s an MCP read may
#: take (``--read-timeout``).
MAX_QUERY_CHARS = 4_000
