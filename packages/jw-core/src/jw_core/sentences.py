"""Sentence segmentation for English, Spanish and Portuguese.

Returns character spans so callers keep exact provenance. Not fooled by
abbreviations ("Mat. 5:3", "pág. 12", "Sr.", "e.g."), Bible references
("Juan 3:16"), decimals, ellipses and closing quotes.
"""

from __future__ import annotations

import re

__all__ = ["ends_sentence", "split_sentences"]

_ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof sr sra srta dra st jr vs etc cf ed eds vol vols no nos p pp pág págs
    ed fig figs cap caps núm art arts dept inc ltd co corp gen gov sen rep rev hon esq
    e.g i.e a.c d.c a.e.c a.c d.C a.C ee.uu ud uds vd vds lic ing arq sto sta av avda
    ex op ca approx jan feb mar apr jun jul aug sep sept oct nov dec ene abr ago dic
    gén éx lev núm deut jos jue rut sam re crón esd neh est sal prov ecl cant is jer lam
    ezeq dan os joel amós abd jon miq nah hab sof ag zac mal mat mt mar mr luc lu jn juan
    hech rom cor gál efe fil col tes tim tit filem heb sant ped jud apo rev gen ex lev num
    deut josh judg ruth sam kings chron neh esth job ps prov eccl song isa jer lam ezek
    dan hos obad jon mic nah hab zeph hag zech mal matt mark luke john acts rom cor gal eph
    phil col thess tim titus philem heb jas pet jude gn êx lv nm dt js jz rt sl pr ec ct
    jr lm ez dn mq na hc sf zc ml mt mc lc jo at rm gl ef fp cl ts tm tt fm hb tg pe jd ap
    sr srs sras dona sto snr
    """.split()
)

# A candidate boundary: terminal punctuation, optional closing quotes/brackets,
# then whitespace.
_BOUNDARY = re.compile(r"([.!?…]+|\.\.\.)([\"'”’»)\]]*)(\s+)")
_END = re.compile(r"[.!?…][\"'”’»)\]]*\s*$")
_WORD_BEFORE = re.compile(r"([^\W\d_](?:[^\W_]|\.)*)$", re.UNICODE)


def _is_abbreviation(text: str, dot_pos: int) -> bool:
    m = _WORD_BEFORE.search(text, 0, dot_pos)
    if not m:
        return False
    word = m.group(1).lower().rstrip(".")
    if word in _ABBREVIATIONS:
        return True
    # Initials ("J. R. R.") and dotted acronyms ("U.S.").
    return len(word) == 1 or ("." in word and len(word.replace(".", "")) <= 4)


def split_sentences(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of the sentences of ``text``, whitespace-trimmed,
    covering every non-whitespace character once and in order."""
    spans: list[tuple[int, int]] = []
    n = len(text)
    start = 0
    while start < n and text[start].isspace():
        start += 1
    for m in _BOUNDARY.finditer(text):
        end = m.end(2)
        if end <= start:
            continue
        nxt = m.end(3)
        if nxt >= n:
            break
        punct = m.group(1)
        following = text[nxt]
        if punct == "." and _is_abbreviation(text, m.start(1)):
            continue
        # A sentence starts with an upper-case letter, a digit after "?"/"!",
        # an opening quote or inverted punctuation.
        if not (following.isupper() or following in "¿¡\"'“‘«(—–-" or following.isdigit()):
            continue
        if following.isdigit() and punct == "." and text[m.start(1) - 1 : m.start(1)].isdigit():
            continue
        spans.append((start, end))
        start = nxt
    tail_end = len(text.rstrip())
    if tail_end > start:
        spans.append((start, tail_end))
    return spans


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with terminal punctuation (closing quotes allowed)."""
    return bool(_END.search(text))
