"""Language codes and detection for the languages the toolkit has data for.

Detection runs in two stages. A function-word scorer answers at once when a
text is unambiguous (most paragraphs and document samples); anything closer is
decided by py3langid's character n-gram model restricted to the candidate
languages. The model is loaded on first use, never at import time.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from py3langid.langid import LanguageIdentifier

__all__ = ["SUPPORTED_LANGUAGES", "detect_language", "load_language_model", "normalize_language"]

SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "es", "pt")

# jw.org language codes (E, S, T) and common ISO / English / native spellings.
_ALIASES = {
    "e": "en",
    "en": "en",
    "eng": "en",
    "english": "en",
    "inglés": "en",
    "inglês": "en",
    "s": "es",
    "es": "es",
    "spa": "es",
    "spanish": "es",
    "español": "es",
    "espanhol": "es",
    "t": "pt",
    "pt": "pt",
    "por": "pt",
    "portuguese": "pt",
    "português": "pt",
    "portugués": "pt",
}
_SEPARATOR = re.compile(r"[-_]")
_ISO_639_1 = re.compile(r"[a-z]{2}")


@lru_cache(maxsize=256)  # a library's documents use a few codes, asked for per document
def normalize_language(code: str | None) -> str | None:
    """ISO 639-1 code for ``code`` ("E", "es-ES", "pt_BR", "spa"), else ``None``.

    Single letters are jw.org codes only in upper case ("S" is Spanish, "s" is
    nothing)."""
    if not code:
        return None
    c = code.strip()
    if c in ("E", "S", "T"):
        return _ALIASES[c.lower()]
    c = _SEPARATOR.split(c.lower(), maxsplit=1)[0]
    if len(c) == 1:
        return None
    return _ALIASES.get(c, c if _ISO_639_1.fullmatch(c) else None)


# --- stage 1: function words and spelling marks -------------------------------

_WORD = re.compile(r"[^\W\d_]+")

# Frequent words of each language; words found in one list only weigh more.
_STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the of and to in is that it was for on are as with his they at be this from "
        "have or by one had not but what all were when we there can an your which their "
        "said if will each about how up out them then she many some so these would other "
        "into has more her two like him see time could no make than first been its who "
        "now people my made over did down only way find use may water long little very "
        "after words called just where most know god jesus does why our you he i "
        "should also because those while such through during between".split()
    ),
    "es": frozenset(
        "el la de que y en los se del las un por con no una su para es al lo como más "
        "pero sus le ya o fue este ha sí porque esta son entre cuando muy sin sobre "
        "también me hasta hay donde quien desde todo nos durante todos uno les ni contra "
        "otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él "
        "tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas algo "
        "nosotros mi mis tú te ti tu tus ellas vosotros os mío dios jesús enseñó hijo "
        "padre pues así según sino aunque cómo dónde está están hacia fueron".split()
    ),
    "pt": frozenset(
        "o a de que e do da em um para é com não uma os no se na por mais as dos como mas "
        "foi ao ele das tem à seu sua ou ser quando muito há nos já está eu também só pelo "
        "pela até isso ela entre era depois sem mesmo aos ter seus quem nas me esse eles "
        "estão você tinha foram essa num nem suas meu às minha têm numa pelos elas havia "
        "seja qual será nós tenho lhe deles essas esses pelas este fosse dele tu te vocês "
        "vos lhes meus minhas teu tua teus tuas nosso nossa nossos nossas deus jesus "
        "ensinou filho pai então porém assim segundo embora onde".split()
    ),
}
_EXCLUSIVE_WEIGHT = 2.0
_SHARED_WEIGHT = 0.5
_MARK_WEIGHT = 1.5

_LANG_INDEX = {lang: i for i, lang in enumerate(SUPPORTED_LANGUAGES)}


def _word_weights() -> dict[str, tuple[float, ...]]:
    table: dict[str, list[float]] = {}
    for lang, words in _STOPWORDS.items():
        others = frozenset().union(*(w for o, w in _STOPWORDS.items() if o != lang))
        for w in words:
            row = table.setdefault(w, [0.0] * len(SUPPORTED_LANGUAGES))
            row[_LANG_INDEX[lang]] = _SHARED_WEIGHT if w in others else _EXCLUSIVE_WEIGHT
    return {w: tuple(row) for w, row in table.items()}


_WORD_WEIGHTS = _word_weights()

# Letters, digraphs and endings typical of one language, counted in the
# lower-cased text (plain substring counts: much faster than a regex).
_MARKS: tuple[tuple[str, int], ...] = tuple(
    (mark, _LANG_INDEX[lang])
    for lang, marks in (
        ("es", ("ñ", "¿", "¡", "ción", "ía ", "ll")),
        ("pt", ("ã", "õ", "ç", "nh", "lh")),
        ("en", ("th", "w", "ing ", "k")),
    )
    for mark in marks
)

# Stage 1 answers alone only with this much evidence and this lead.
_FAST_MIN_SCORE = 8.0
_FAST_MIN_RATIO = 3.0
# Below this many letters a text carries no usable evidence.
_MIN_LETTERS = 3
# Stage 2 answers only when its normalised probability is at least this.
_MIN_PROBABILITY = 0.5
# The n-gram model sees at most this many characters.
_MODEL_SAMPLE = 1200


def _word_scores(lowered: str) -> list[float]:
    s0 = s1 = s2 = 0.0
    for row in map(_WORD_WEIGHTS.get, _WORD.findall(lowered)):
        if row is not None:
            s0 += row[0]
            s1 += row[1]
            s2 += row[2]
    scores = [s0, s1, s2]
    for mark, i in _MARKS:
        scores[i] += _MARK_WEIGHT * lowered.count(mark)
    return scores


def _fast_guess(text: str, candidates: frozenset[str]) -> str | None:
    """The word scorer's answer when it is unambiguous, else ``None``."""
    scores = _word_scores(text.lower())
    ranked = sorted(
        (
            (s, lang)
            for lang, s in zip(SUPPORTED_LANGUAGES, scores, strict=True)
            if lang in candidates
        ),
        reverse=True,
    )
    if not ranked:
        return None
    best, lang = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    if best >= _FAST_MIN_SCORE and best >= _FAST_MIN_RATIO * second:
        return lang
    return None


# --- stage 2: py3langid, restricted to the candidates --------------------------


@lru_cache(maxsize=1)
def _model() -> LanguageIdentifier:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def load_language_model() -> None:
    """Load the statistical language identifier now (about a second, once per
    process) instead of in the first :func:`detect_language` call that needs it:
    for a server before its first request, or a benchmark before its clock."""
    _model()


@lru_cache(maxsize=32)
def _restricted_model(candidates: frozenset[str]) -> LanguageIdentifier:
    base = _model()
    unknown = sorted(candidates - set(base.labels))
    if unknown:
        raise ValueError(
            f"cannot detect language(s) {', '.join(unknown)}: use ISO 639-1 codes such as "
            f"{', '.join(SUPPORTED_LANGUAGES)}"
        )
    model = copy.copy(base)
    model.set_languages(sorted(candidates))
    return model


def _candidate_set(candidates: tuple[str, ...] | list[str] | frozenset[str]) -> frozenset[str]:
    if candidates is SUPPORTED_LANGUAGES:  # the default: normalised once
        return _SUPPORTED_SET
    out = set()
    for c in candidates:
        code = normalize_language(c)
        if code is None:
            raise ValueError(f"unknown candidate language {c!r}: use ISO 639-1 codes such as 'es'")
        out.add(code)
    if not out:
        raise ValueError("candidates is empty: pass at least one language code")
    return frozenset(out)


_SUPPORTED_SET = frozenset(SUPPORTED_LANGUAGES)


def _letter_count(text: str) -> int:
    """Letters in ``text``, counted up to the first word that brings them to
    ``_MIN_LETTERS`` (enough to know the text has evidence)."""
    n = 0
    for m in _WORD.finditer(text):
        n += m.end() - m.start()
        if n >= _MIN_LETTERS:
            break
    return n


def detect_language(
    text: str, candidates: tuple[str, ...] | list[str] | frozenset[str] = SUPPORTED_LANGUAGES
) -> str | None:
    """The most likely of ``candidates`` for ``text``, or ``None`` when the text
    gives no evidence (empty, digits or punctuation only, a couple of letters,
    or a word every candidate shares).

    Raises ``ValueError`` for a candidate code that is not a language code."""
    cands = _candidate_set(candidates)
    if not text or _letter_count(text) < _MIN_LETTERS:
        return None
    if len(cands) == 1:
        return next(iter(cands))
    if cands <= _LANG_INDEX.keys():
        fast = _fast_guess(text, cands)
        if fast is not None:
            return fast
    lang, prob = _restricted_model(cands).classify(text[:_MODEL_SAMPLE])
    return str(lang) if prob >= _MIN_PROBABILITY else None
