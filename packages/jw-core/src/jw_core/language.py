"""Language codes and detection for the languages the toolkit has data for."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["SUPPORTED_LANGUAGES", "detect_language", "normalize_language"]

SUPPORTED_LANGUAGES: tuple[str, ...] = ("en", "es", "pt")

# jw.org language codes (E, S, T, ...) and common ISO spellings.
_ALIASES = {
    "e": "en",
    "en": "en",
    "eng": "en",
    "english": "en",
    "s": "es",
    "es": "es",
    "spa": "es",
    "spanish": "es",
    "español": "es",
    "t": "pt",
    "pt": "pt",
    "por": "pt",
    "portuguese": "pt",
    "português": "pt",
}


def normalize_language(code: str | None) -> str | None:
    """ISO 639-1 code for ``code`` ("E", "es-ES", "pt_BR", "spa"), else ``None``."""
    if not code:
        return None
    c = code.strip()
    if c in ("E", "S", "T"):
        return _ALIASES[c.lower()]
    c = re.split(r"[-_]", c.lower(), maxsplit=1)[0]
    if c in ("e", "s", "t"):  # lower-case single letters are not jw.org codes
        return None
    return _ALIASES.get(c, c if re.fullmatch(r"[a-z]{2}", c) else None)


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

# Frequent function words that tell the three languages apart; weights favour
# words exclusive to one language.
_STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        "the of and to in is that it was for on are as with his they at be this from "
        "have or by one had not but what all were when we there can an your which their "
        "said if will each about how up out them then she many some so these would other "
        "into has more her two like him see time could no make than first been its who "
        "now people my made over did down only way find use may water long little very "
        "after words called just where most know god jesus does why our you he".split()
    ),
    "es": frozenset(
        "el la de que y en los se del las un por con no una su para es al lo como más "
        "pero sus le ya o fue este ha sí porque esta son entre cuando muy sin sobre "
        "también me hasta hay donde quien desde todo nos durante todos uno les ni contra "
        "otros ese eso ante ellos e esto mí antes algunos qué unos yo otro otras otra él "
        "tanto esa estos mucho quienes nada muchos cual poco ella estar estas algunas algo "
        "nosotros mi mis tú te ti tu tus ellas vosotros os mío dios jesús enseñó hijo "
        "padre y también pues así según sino aunque cómo dónde".split()
    ),
    "pt": frozenset(
        "o a de que e do da em um para é com não uma os no se na por mais as dos como mas "
        "foi ao ele das tem à seu sua ou ser quando muito há nos já está eu também só pelo "
        "pela até isso ela entre era depois sem mesmo aos ter seus quem nas me esse eles "
        "estão você tinha foram essa num nem suas meu às minha têm numa pelos elas havia "
        "seja qual será nós tenho lhe deles essas esses pelas este fosse dele tu te vocês "
        "vos lhes meus minhas teu tua teus tuas nosso nossa nossos nossas deus jesus "
        "ensinou filho pai então porém assim segundo embora onde não também".split()
    ),
}

_EXCLUSIVE: dict[str, frozenset[str]] = {
    lang: words - frozenset().union(*(w for other, w in _STOPWORDS.items() if other != lang))
    for lang, words in _STOPWORDS.items()
}

# Letters and digraphs typical of one language.
_MARKS = {
    "es": re.compile(r"ñ|¿|¡|ción\b|ciones\b|[^\W\d_]ía\b"),
    "pt": re.compile(r"ã|õ|ç|ção\b|ções\b|nh|lh"),
    "en": re.compile(r"\bth|w[a-z]|ing\b|\bk"),
}


@lru_cache(maxsize=4096)
def _score(text: str) -> tuple[tuple[str, float], ...]:
    lowered = text.lower()
    words = _WORD.findall(lowered)
    scores = dict.fromkeys(SUPPORTED_LANGUAGES, 0.0)
    for w in words:
        for lang in SUPPORTED_LANGUAGES:
            if w in _EXCLUSIVE[lang]:
                scores[lang] += 2.0
            elif w in _STOPWORDS[lang]:
                scores[lang] += 0.5
    for lang, rx in _MARKS.items():
        scores[lang] += 1.5 * len(rx.findall(lowered))
    return tuple(sorted(scores.items(), key=lambda kv: -kv[1]))


def detect_language(text: str, candidates: tuple[str, ...] = SUPPORTED_LANGUAGES) -> str | None:
    """The most likely of ``candidates`` for ``text``, or ``None`` when the text
    gives no evidence (too short, or in none of them)."""
    sample = text[:2000]
    ranked = [(lang, s) for lang, s in _score(sample) if lang in candidates]
    if not ranked or ranked[0][1] < 2.0:
        return None
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]
