"""Sentence segmentation for English, Spanish and Portuguese.

Returns character spans so callers keep exact provenance. A sentence ends at
``.``, ``?``, ``!`` or an ellipsis (closing quotes and brackets may follow),
then whitespace, then the start of a new sentence: an upper-case letter, a
digit, ``¿``/``¡``, or an opening quote or dash followed by one of those.
A period is not an end after

* a title or Latin abbreviation ("Sr.", "Dra.", "Mr.", "e.g.", "i.e.", "cf."),
* initials and dotted acronyms ("J. R. Smith", "U.S.", "a.C."),
* a doubled-letter plural abbreviation before the next one ("EE. UU."),
* a Bible book or a reference word ("Mat.", "Gén.", "1 Cor.", "pág.", "vol.",
  "No.") when a number follows ("Mat. 5:3", "pág. 12").

Decimals ("3.5") never split because no whitespace follows the period.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable

__all__ = ["SentenceCursor", "ends_sentence", "split_sentences"]

# Never end a sentence: titles and Latin abbreviations that introduce more text.
_NEVER_FINAL = frozenset(
    """
    mr mrs ms dr dra drs dras prof profa profs sr sra srs sras srta srtas snr sto sta
    st jr messrs mme mlle gen gov sen rep hon esq lic ing arq av avda dona ud uds vd vds
    e.g i.e cf vs viz ca approx p.ej ej c.f
    """.split()
)

# Not an end when a number follows: Bible books (en/es/pt abbreviations) and
# words that introduce a number.
_BEFORE_NUMBER = frozenset(
    """
    no nos nº núm nro n p pp pág págs pg pgs vol vols cap caps fig figs art arts sec
    ch chap par párr ed eds tomo t v vv vs ver art
    jan feb mar apr jun jul aug sep sept oct nov dec ene abr ago dic fev mai set out dez
    gén gen gn éx ex êx lev lv núm num nm deut dt jos josh js jue judg jz rut rt sam
    re rs reyes kgs kings crón cr chron esd ezr neh est esth job sal ps sl prov pr ecl
    ec eccl cant ct song is isa jer lam lm ezeq ez ezek dan dn os hos joel am amós abd
    obad jon jn miq mq mic nah na hab hc sof zeph sf ag hag zac zech zc mal ml
    mat matt mt mar mr mc mark luc lu lc luke juan jn john jo hech at acts rom rm
    cor gál gal gl efe ef eph fil fp phil flp col cl tes ts thess tim tm tit tt titus
    filem fm flm philem heb hb sant tg jas ped pe pet jud jd jude apo ap apoc rev
    """.split()
)

# A candidate end: terminal punctuation, optional closing quotes/brackets,
# then whitespace.
_BOUNDARY = re.compile(r"([.!?…]+)([\"'”’»)\]]*)(\s+)")
# The same, for text with capitals: a lower-case letter right after the space
# never starts a sentence there, so those candidates are skipped in the regex.
_BOUNDARY_CASED = re.compile(r"([.!?…]+)([\"'”’»)\]]*)(\s++)(?![a-zß-öø-ÿ])")
# The definition of ends_sentence (which checks the same without a regex search).
_END = re.compile(r"[.!?…][\"'”’»)\]]*\s*$")
# The end of a token before a period: letters, digits and inner periods
# ("a.C", "U.S"), after any other punctuation ("13:4-7" ends in "7").
_TOKEN_TAIL = re.compile(r"[^\W_](?:[^\W_]|\.(?=[^\W_]))*$")
_OPENERS = "\"'“‘«(—–-[.…"
_LOOKBEHIND = 24
_DOUBLED_NEXT = re.compile(r"([A-Z])\1\.")
# Era and time marks end a sentence when a capital follows ("en el siglo II d.C. Este").
_FINAL_ACRONYMS = frozenset("a.c d.c a.e.c d.e.c e.c a.d b.c b.c.e c.e a.m p.m".split())


def _starts_sentence(text: str, pos: int, caseless: bool) -> bool:
    """Whether a sentence can start at ``text[pos]``; in ``caseless`` text
    (no capitals at all) a lower-case letter can start one too."""
    n = len(text)
    while pos < n and text[pos] in _OPENERS:
        pos += 1
        while pos < n and text[pos] == " ":
            pos += 1
    if pos >= n:
        return False
    c = text[pos]
    return c.isupper() or c.isdigit() or c in "¿¡" or (caseless and c.isalpha())


def _period_is_final(text: str, dot: int, nxt: int) -> bool:
    """Whether the single period at ``text[dot]`` ends a sentence, given that
    the next sentence would start at ``nxt``."""
    parts = text[max(0, dot - _LOOKBEHIND) : dot].rsplit(None, 1)
    if not parts:
        return True
    token = parts[-1]
    if len(token) > 2 and token.isalpha():  # a plain word: the common case, decided at once
        word = token.lower()
        return word not in _NEVER_FINAL and not (text[nxt].isdigit() and word in _BEFORE_NUMBER)
    if not token.replace(".", "").isalnum():
        m = _TOKEN_TAIL.search(token)
        if not m:
            return True
        token = m.group(0)
    word = token.lower()
    if word in _NEVER_FINAL:
        return False
    if "." in token:  # dotted acronym: "U.S.", "a.C.", "i.e."
        return word in _FINAL_ACRONYMS or len(token.replace(".", "")) > 4
    if len(token) == 1 and token.isalpha():
        return not token.isupper() and not text[nxt].isdigit()  # initials: "J. Smith"
    if len(token) == 2 and token[0] == token[1] and token.isupper():
        if _DOUBLED_NEXT.match(text, nxt):  # "EE. UU.", "FF. AA."
            return False
    if text[nxt].isdigit():
        if word in _BEFORE_NUMBER:
            return False
        if token.isdigit():  # "3. 5" enumerations, verse lists
            return False
    return True


_TERMINAL = ".!?…"
# A token ending in this many letters is never an abbreviation: longer than
# every listed word (lower-casing never shortens a word) and than the four
# letters of a dotted acronym that _period_is_final keeps final.
_LONG_RUN = max(5, 1 + max(len(w) for w in _NEVER_FINAL | _BEFORE_NUMBER))


def _terminal_positions(text: str) -> list[int]:
    """Where terminal punctuation is in ``text``, in order (``str.find``
    locates it much faster than the regex engine scans for it)."""
    starts: list[int] = []
    append = starts.append
    find = text.find
    for ch in _TERMINAL:
        i = find(ch)
        while i >= 0:
            append(i)
            i = find(ch, i + 1)
    starts.sort()
    return starts


def split_sentences(text: str, language: str | None = None) -> list[tuple[int, int]]:
    """Spans ``(start, end)`` of the sentences of ``text``, whitespace-trimmed,
    covering every non-whitespace character once and in order.

    ``language`` ("en", "es", "pt") is accepted for callers that know it; the
    rules cover all three languages at once. Text without any capital letter
    (lower-cased documents) may start a sentence with a lower-case letter."""
    del language
    return _sentence_spans(text, 0)


def _sentence_spans(text: str, offset: int) -> list[tuple[int, int]]:
    """:func:`split_sentences`, each span shifted by ``offset``.

    The boundaries are those of ``_BOUNDARY(_CASED).finditer(text)``, found
    by trying the regex only at terminal punctuation, leftmost first, resuming
    after each match as ``finditer`` does (a boundary starts at terminal
    punctuation).
    The usual boundary, one punctuation mark, one space, then a non-space, is
    recognised without the regex: there the match is exactly that (the
    mark's group ends at the space, no closers, the whitespace is the space),
    and the cased regex's look-ahead only rejects a lower-case letter, which
    the start-of-sentence test rejects as well."""
    spans: list[tuple[int, int]] = []
    caseless = text.islower()
    start = len(text) - len(text.lstrip())
    start, _ = _scan(text, _terminal_positions(text), start, 0, caseless, offset, spans)
    tail_end = len(text.rstrip())
    if tail_end > start:
        spans.append((start + offset, tail_end + offset))
    return spans


def _scan(
    text: str,
    positions: Iterable[int],
    start: int,
    resume: int,
    caseless: bool,
    offset: int,
    spans: list[tuple[int, int]],
) -> tuple[int, int]:
    """The loop of :func:`_sentence_spans` over the terminal punctuation at
    ``positions`` (in order): appends each sentence it ends to ``spans`` and
    returns the state to go on from, ``(start, resume)``: where the open
    sentence starts and the first position the last match leaves to look at.

    Started at a letter or digit ``x`` with ``start = resume = x`` (and the
    positions from ``x`` on), it finds the boundaries a scan from the
    beginning finds there: no match runs through a letter, so none that began
    before ``x`` covers a position after it, and the open sentence holds that
    letter either way, so the "leading ..." rule cannot tell the two starts
    apart. Only the first span's start is then ``x`` instead of the true one.
    """
    append = spans.append
    n = len(text)
    match = (_BOUNDARY if caseless else _BOUNDARY_CASED).match
    last = n - 2  # the fast path needs text[i + 2]
    for i in positions:
        if i < resume:
            continue
        if i < last and text[i + 1] == " " and not text[i + 2].isspace():
            end = i + 1
            nxt = resume = i + 2
            single_dot = text[i] == "."
        else:
            m = match(text, i)
            if m is None:
                continue
            end, nxt = m.span(3)  # group 3 (the whitespace) starts where group 2 ends
            resume = nxt
            single_dot = m.end(1) == i + 1 and text[i] == "."
            if end <= start or nxt >= n:
                continue
        c = text[nxt]
        if c in _OPENERS:
            if not _starts_sentence(text, nxt, caseless):
                continue
        elif not (c.isupper() or c.isdigit() or c in "¿¡" or (caseless and c.isalpha())):
            continue  # the common case of _starts_sentence, inlined
        if end - start <= 4 and not any(ch.isalnum() for ch in text[start:end]):
            continue  # a leading "..." stays with the sentence it opens
        if single_dot and not _single_period_is_final(text, i, nxt):
            continue
        append((start + offset, end + offset))
        start = nxt
    return start, resume


def _single_period_is_final(text: str, dot: int, nxt: int) -> bool:
    """:func:`_period_is_final`, its common cases decided from the letters
    before the period (or before one space and the period, as in "word ."):
    a run of letters longer than any abbreviation is final, whatever precedes
    it; a word or a number after whitespace is decided by the rules for it."""
    w = dot - 1 if dot and text[dot - 1] == " " else dot
    tail = text[w - _LONG_RUN : w] if w >= _LONG_RUN else ""
    if not tail:
        return _period_is_final(text, dot, nxt)
    if tail.isalpha():
        return True
    token = tail.rsplit(None, 1)[-1] if not tail[-1].isspace() else ""
    if len(token) == _LONG_RUN:  # no whitespace in the tail: a longer token
        token = ""
    c = text[nxt]
    if token.isalpha():
        word = token.lower()
        if word in _NEVER_FINAL:
            return False
        if len(token) == 1:  # an initial: "J. Smith"
            return not (token.isupper() or c.isdigit())
        if c.isdigit() and word in _BEFORE_NUMBER:
            return False
        if len(token) == 2 and token[0] == token[1] and token.isupper():
            return not _DOUBLED_NEXT.match(text, nxt)  # "EE. UU."
        return True
    if token.isdigit():  # "3. 5" enumerations, verse lists
        return not c.isdigit()
    return _period_is_final(text, dot, nxt)


_CLOSERS = "\"'”’»)]"


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with terminal punctuation (closing quotes allowed)."""
    # What _END matches, without a regex search: drop the trailing whitespace,
    # then the closing quotes and brackets; terminal punctuation must remain.
    tail = text.rstrip().rstrip(_CLOSERS)
    return bool(tail) and tail[-1] in ".!?…"


#: How far before a position the cursor starts looking, and how far past it
#: each scan goes (module settings, so that tests can make them tiny).
_WINDOW = 300
_STEP = 200


class SentenceCursor:
    """The sentences of one long text, found only around the positions asked
    for (in increasing order): what :func:`split_sentences` finds there,
    without segmenting the text in between.

    ``first_start`` is where the text's first sentence starts (after leading
    whitespace), ``tail_end`` where its last one ends (before trailing
    whitespace); :meth:`sentence_at` gives the sentence around a position.
    Positions asked for must not decrease. ``window`` and ``step`` (0: the
    module's settings) tune how far it looks; they never change the answers.

    >>> cursor = SentenceCursor("One. Two here. Three.")
    >>> cursor.sentence_at(6)
    (4, 5, 14, 15)

    Scanning jumps ahead to a letter or digit ``window`` characters before
    the position asked for (see :func:`_scan` for why the boundaries found
    from there are the true ones); when no sentence ends between that point
    and the position, the start of the sentence is further back, and the scan
    goes on from where it stood before the jump instead."""

    __slots__ = (
        "_at", "_caseless", "_ends", "_exact", "_k", "_n", "_nxts", "_pos", "_region", "_resume",
        "_asked", "_saved", "_start", "_step", "_text", "_window", "first_start", "tail_end",
    )  # fmt: skip

    def __init__(self, text: str, *, window: int = 0, step: int = 0) -> None:
        if not isinstance(text, str):
            raise TypeError(f"SentenceCursor takes a str, got {type(text).__name__}")
        for name, value in (("window", window), ("step", step)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"SentenceCursor {name} must be a whole number of characters >= 0 "
                    f"(0: the default), got {value!r:.60}"
                )
        self._text = text
        self._asked = 0
        self._n = len(text)
        self._caseless = text.islower()
        self.first_start = self._n - len(text.lstrip())
        self.tail_end = len(text.rstrip())
        self._window = window or _WINDOW
        self._step = step or _STEP
        # Sentence ends found, and where the sentence after each starts;
        # those from index _region on were found by one unbroken scan, which
        # began at the text's start when _exact.
        self._ends: list[int] = []
        self._nxts: list[int] = []
        self._region = 0
        self._exact = True
        # The scan state: positions before _at are done.
        self._at = 0
        self._start = self.first_start
        self._resume = 0
        self._saved: tuple[int, bool, int, int, int, int] | None = None
        self._pos = _terminal_positions(text)
        self._k = 0  # the first of those not scanned yet (or before a jump target)

    def _advance(self, stop: int) -> None:
        """Scan the terminal punctuation before ``stop``."""
        spans: list[tuple[int, int]] = []
        pos = self._pos
        k = self._k
        if k < len(pos) and pos[k] < self._at:  # after a jump
            k = bisect_left(pos, self._at, k)
        end = bisect_left(pos, stop, k)
        self._start, self._resume = _scan(
            self._text, pos[k:end], self._start, self._resume, self._caseless, 0, spans
        )
        self._k = end
        self._at = stop
        if spans:
            ends, nxts = self._ends, self._nxts
            for _, e in spans:
                ends.append(e)
            nxts.extend(s for s, _ in spans[1:])
            nxts.append(self._start)

    def _jump(self, x: int) -> None:
        self._saved = (self._region, self._exact, self._at, self._start, self._resume, self._k)
        self._region = len(self._ends)
        self._exact = False
        self._at = self._start = self._resume = x

    def _back(self) -> None:
        """Undo the last jump: forget what it found, go on from before it."""
        assert self._saved is not None
        del self._ends[self._region :], self._nxts[self._region :]
        self._region, self._exact, self._at, self._start, self._resume, self._k = self._saved
        self._saved = None

    def sentence_at(self, t: int) -> tuple[int | None, int, int, int | None]:
        """``(prev_end, start, end, next_start)`` of the first sentence that
        ends at or after ``t``: the end of the sentence before it (``None``
        for the first), its span, and where the next one starts (``None`` for
        the last). ``t`` is from 0 to ``len(text)`` and never below the position
        asked for before (a ``ValueError`` otherwise: ask a new cursor)."""
        text, n, window = self._text, self._n, self._window
        if isinstance(t, bool) or not isinstance(t, int) or not self._asked <= t <= n:
            raise ValueError(
                f"SentenceCursor.sentence_at takes a position from {self._asked} (the last one "
                f"asked) to {n} (the text's length), got {t!r:.60}; make a new cursor to go back"
            )
        self._asked = t
        x = t - window
        if x - self._at > window:
            while x > self._at and not text[x].isalnum():
                x -= 1
            if x > self._at:
                self._jump(x)
        while True:
            ends = self._ends
            if self._at < t:  # all of it is needed, and most often a little more
                self._advance(min(n, t + self._step))
            while self._at < n and (len(ends) == self._region or ends[-1] < t):
                self._advance(min(n, self._at + self._step))
            k = bisect_left(ends, t, self._region)
            if k > self._region:
                prev_end: int | None = ends[k - 1]
                start = self._nxts[k - 1]
            elif self._exact:
                prev_end, start = None, self.first_start
            else:
                self._back()
                continue
            self._saved = None
            if k < len(ends):
                return prev_end, start, ends[k], self._nxts[k]
            return prev_end, start, self.tail_end, None


#: The name this class had before it was public (kept for existing callers).
_SentenceCursor = SentenceCursor
