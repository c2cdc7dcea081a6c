"""Text analysis for the full-text index: lowercase, language-aware stemming,
accent folding, and a MATCH expression that user text can never break.

Indexed text is analysed in Python and stored as a space-separated token
string, so SQLite's own tokenizer (``unicode61 remove_diacritics 2``) only
splits on spaces. Spanish and Portuguese words are stemmed before their
accents are folded (their Snowball stemmers know accented suffixes such as
``-ción``); English words are folded first (``Jesús`` -> ``jesus``).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from jw_core import SUPPORTED_LANGUAGES, detect_language, normalize_language

__all__ = ["STEMMED_LANGUAGES", "analyse", "fold", "match_expression", "query_terms"]

#: Languages with a stemmer, and the Snowball algorithm used for each.
STEMMED_LANGUAGES: dict[str, str] = {"en": "english", "es": "spanish", "pt": "portuguese"}
_FOLD_FIRST = frozenset({"en"})

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_local = threading.local()  # Stemmer objects are not safe to share between threads


def _stemmer(language: str) -> Stemmer.Stemmer:
    cache: dict[str, Stemmer.Stemmer] | None = getattr(_local, "stemmers", None)
    if cache is None:
        cache = _local.stemmers = {}
    if language not in cache:
        # no cache of its own: _cached_term caches the words worth it (a cache of
        # every word would keep long distinct tokens, see CACHED_WORD_CHARS)
        cache[language] = Stemmer.Stemmer(STEMMED_LANGUAGES[language], 0)
    return cache[language]


def fold(text: str) -> str:
    """Lowercase ``text`` and strip its accents (``"Jesús"`` -> ``"jesus"``)."""
    if text.isascii():  # no accents to strip: most words, and the cheap case
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _words(text: str) -> list[str]:
    """The lowercase words of ``text``, accents composed first (NFC): a
    combining mark is no word character, so ``Jesu\u0301s`` (NFD, as some PDFs
    and macOS file names spell it) would be two words, ``jesu`` and ``s``."""
    lowered = text.lower()
    if not lowered.isascii() and not unicodedata.is_normalized("NFC", lowered):
        lowered = unicodedata.normalize("NFC", lowered)
    return _WORD.findall(lowered)


#: Longest word whose term is cached: real words are far shorter, and a
#: cache of any word would keep a source's distinct long tokens (hashes,
#: base64, unspaced text) for the life of the process, 65,536 of any size.
CACHED_WORD_CHARS = 64


def _term(word: str, language: str | None) -> str:
    """The index term of one lowercase ``word`` (stemmed, accents folded).

    Cached up to :data:`CACHED_WORD_CHARS`: a window unit repeats its members'
    words, and a corpus repeats its vocabulary, so most words of an ingest
    were analysed before."""
    if len(word) > CACHED_WORD_CHARS:
        return _analysed_term(word, language)
    return _cached_term(word, language)


def _analysed_term(word: str, language: str | None) -> str:
    if language not in STEMMED_LANGUAGES:
        return fold(word)
    if language in _FOLD_FIRST:
        return _stemmer(language).stemWord(fold(word))
    return fold(_stemmer(language).stemWord(word))


_cached_term = lru_cache(maxsize=1 << 16)(_analysed_term)


def _stem_words(words: list[str], language: str | None) -> list[str]:
    return [_term(w, language) for w in words]


#: Lines up to this long are remembered (:func:`_analysed_line`); longer ones are rare
#: and would make the cache's worst case large.
_REMEMBERED_LINE_CHARS = 4000


def _analysed(text: str, language: str | None) -> str:
    return " ".join(t for t in _stem_words(_words(text), language) if t)


@lru_cache(maxsize=1024)
def _analysed_line(line: str, language: str | None) -> str:
    """One line's token string, remembered: a window unit's text is its members'
    lines again (the title line, paragraphs), and neighbouring windows share most
    of theirs, so most lines of an ingest were analysed moments before."""
    return _analysed(line, language)


def analyse(text: str, language: str | None) -> str:
    """The token string stored in the full-text index for ``text``.

    No word spans a line break, so the text is analysed line by line and the
    lines' token strings joined: the same string as analysing it whole."""
    lang = normalize_language(language)
    if "\n" not in text:
        return _analysed(text, lang)
    parts = []
    for line in text.split("\n"):
        tokens = (
            _analysed_line(line, lang)
            if len(line) <= _REMEMBERED_LINE_CHARS
            else _analysed(line, lang)
        )
        if tokens:
            parts.append(tokens)
    return " ".join(parts)


def query_terms(query: str, language: str | None = None) -> list[str]:
    """Distinct index terms a query should match, in first-seen order.

    With a known (or detected) language: each word's stem in that language
    plus its plain folded form (which matches text of unknown language).
    Without one: the stems of every supported language, plus the folded form.
    """
    words = _words(query)
    lang = normalize_language(language) if language else detect_language(query)
    languages: Iterable[str] = (lang,) if lang in STEMMED_LANGUAGES else SUPPORTED_LANGUAGES
    variants = [_stem_words(words, lang_) for lang_ in languages]
    variants.append([fold(w) for w in words])
    seen: dict[str, None] = {}
    for i in range(len(words)):
        for v in variants:
            if v[i]:
                seen.setdefault(v[i], None)
    return list(seen)


def match_expression(terms: Iterable[str]) -> str:
    """An FTS5 MATCH expression that ORs ``terms``, each as a quoted string,
    so operators, brackets or quotes in user text are just characters (NUL,
    which would end the string early, is dropped)."""
    cleaned = (t.replace("\x00", "") for t in terms)
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in cleaned if t)
