"""Retrieval units that fit the text: passages cut from long chunks, groups of tiny ones.

A chunker decides where thoughts begin and end; the index needs units of a
size the embedder and BM25 rank well. Text in the wild comes in every shape
(2,000-character essay paragraphs, table rows, one-line list items, PDF text
hard-wrapped at 72 columns, chat exports with no blank line at all), so the
units are built from what each chunk looks like, not from blank lines alone:

- **Split.** A chunk longer than ``split_above`` (1,100) characters is cut into
  passages of about ``passage_chars`` (500): the cut points are paragraph
  breaks, then line breaks after a line of its own (rows, list items, chat
  lines; a line wrapped at the margin is not one, and a run of wrapped
  lines is read as sentences: :mod:`jw_rag._lines`), then
  sentence ends, and only for a run of text with none of these, the last
  space before the size. The pieces are balanced (a 1,100-character
  paragraph gives two of ~550, not 500 + 100). A page chunk that starts with
  the previous page's last sentence (the page chunker's ``overlap``) is cut
  from after that sentence, which the previous chunk's passages already hold.
- **Paragraphs on lines of their own.** In a chunk whose lines have
  structure (text extracted without blank lines, where each paragraph is a
  line), a line longer than ``split_above`` is cut as that paragraph would be:
  no passage runs across its line breaks, and a line shorter than
  ``group_below`` just before it (a heading) goes with it. The lines between
  two such paragraphs are packed together, kept whole up to ``split_above``.
  Measured with ``jw eval chunker-bench --shape joined`` against packing the
  whole block (docs/results.md, "Paragraphs on lines of their own"): NDCG
  within 2,000 / 4,000 characters +1.4 points on average over the twelve
  ``joined`` cells of argument and argument-long (argument-long pt +5.4 /
  +4.4, es +2.0 / +2.1; the worst −1.0), XQuAD and FaQuAD ``joined`` −0.4 to
  +0.7, Chroma as it is (one 118,000-character article of 338 lines) −0.1.
  A line of 500 characters or more as the threshold lost 1.7–2.3 points on
  Chroma: its lines of 500–1,100 characters kept whole diluted single-fact
  answers that balanced passages across lines found.
- **Group.** Consecutive chunks shorter than ``group_below`` (200) are
  grouped into units of up to ``passage_chars``; a group never crosses a
  heading change or a page break.
- **Keep.** Chunks in between are indexed as the chunker made them, and so
  are chunks the chunker merged for a reason it argued (a continuation
  marker, an LLM's merge: :data:`ARGUED_MERGES`), Bible verses, parent-child
  hierarchies and chunks whose text is not their span's source text.

Window units (:mod:`jw_rag.windows`) are then built over these units, of two
sizes (up to ``window_chars`` = 2,000 and ``wide_window_chars`` = 3,000
characters), and their vectors are pooled from their members' vectors
(``pooled_windows``, :mod:`jw_rag.store._pooling`) instead of embedding their
long text: a long paragraph is found by its best passage and by the windows
around it, and segment delivery (:mod:`jw_rag.segments`) gives a reader the
contiguous run of passages around a hit: small units to find, the surrounding
text to read. Only the units are embedded: on the argument corpus 1.20 texts
per paragraph against 1.03 before (paragraph chunks and their windows both
embedded), but short texts instead of 2,000-character windows: the model
time per paragraph is 1.14 times that of one text per paragraph (1.13 before;
``benchmarks/ingest_throughput.py --compare --repeat 3``). ``split_above``
was 750 until a measurement over every set and shape: 1,000 sends 10% fewer
texts to the model, keeps the mean lift over the best peer (+7.1% against
+6.8% on the sets as they are, level over the re-laid shapes) and brings
the ``joined`` FaQuAD and XQuAD-es cells at 2,000 characters above the peer
(docs/results.md, "Passages from 1,000 characters"). 1,100 then keeps
paragraphs of 1,000-1,100 characters whole: 564 texts for the argument
corpus's 471 paragraphs instead of 575 (1.20 per paragraph), NDCG within
2,000 / 4,000 characters +0.05 points on average over 110 cells of every set,
shape and language, no set as it is more than 0.9 points lower (Chroma at
4,000) and one shape cell 1.8 lower (``rows`` of argument, English, still
far above the peer; docs/results.md, "Passages from 1,100 characters").

Every unit is embedded with its title and heading path (``embed_prefix``):
that is most of the extra model time above. ``prefix_weight`` > 0 embeds
each unit without them and mixes their vector, embedded once per source,
into the unit's at that weight (:mod:`jw_rag.store._pooling`): at 0.3 the
model time per paragraph falls to 1.00-1.02 times one text per paragraph and a
cold ingest reaches 87-90% of the model's raw rate in paragraphs (78-82%
with the title in every unit), with NDCG level on average over the shared
sets but 1.1-1.3 points lower on FaQuAD and Chroma, whose few long
documents give thousands of units one title (docs/results.md, "The title
mixed into each unit's vector"). The default stays 0.

Every unit keeps exact provenance: its ``span`` designates its text in the
source (``rebuild_text(paragraphs, span) == unit.text``), ``para_ids`` lists
the source ids of the paragraphs it covers, and ``prev_id``/``next_id`` link
the units in reading order.

The numbers were chosen on the shared development sets (argument,
argument-long, XQuAD en/es, FaQuAD, Chroma) against the best of seven
recursive splitters (LangChain and chonkie at 1,000/1,500/2,000 characters,
semchunk at 1,500), NDCG of what is delivered within 2,000 and 4,000
characters, and then checked on every re-laid shape of them (``jw eval
chunker-bench --shape``). On argument-long (paragraphs of ~1,100 characters)
passages of ~500 lifted the lead over the best peer from +2% to +9% (all
languages, 2,000 characters); passages of 400 or 650 did worse on one language
or another; pooling the windows' vectors lifted the English argument set from
+4.5% to +10.9% at no embedding cost; a second window size of 3,000 lifted
NDCG within 4,000 characters (English argument set: +0.3% to +10.1% over the
best peer) where 3,000-character windows alone cost Portuguese at 2,000.
``docs/results.md`` holds the full table and the commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from jw_core.sentences import split_sentences
from jw_rag._lines import line_breaks
from jw_rag.chunk_ids import link_in_order, linked_in_order, span_id
from jw_rag.errors import ConfigError, shown_value
from jw_rag.limits import MAX_SIZE
from jw_rag.model import (
    MAX_PREFIX_WEIGHT,
    PARAGRAPH_SEPARATOR,
    Chunk,
    Paragraph,
    Span,
    is_prefix_weight,
    rebuild_text,
)
from jw_rag.renames import warn_renamed
from jw_rag.windows import MAX_WINDOW_CHARS

__all__ = [
    "ARGUED_MERGES",
    "DEFAULT_UNITS",
    "NO_UNITS",
    "UnitRules",
    "iter_passages",
    "passages",
]


def __getattr__(name: str) -> Any:
    if name == "MAX_UNIT_CHARS":  # now jw_rag.limits.MAX_SIZE: the old name works for one release
        warn_renamed("jw_rag.units", "MAX_UNIT_CHARS", "jw_rag.limits.MAX_SIZE")
        return MAX_SIZE
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: ``merge_reason`` values a chunker argued for: such chunks are never cut.
ARGUED_MERGES = frozenset({"continuation_marker", "llm_merge"})


@dataclass(frozen=True, slots=True)
class UnitRules:
    """How retrieval units are built from a source's chunks (module docstring).

    ``passage_chars=0`` turns splitting and grouping off (the chunks are the
    units); ``window_chars=0`` builds no window units. Window sizes go up to
    :data:`~jw_rag.windows.MAX_WINDOW_CHARS` (20,000)."""

    passage_chars: int = 500
    split_above: int = 1100
    group_below: int = 200
    window_chars: int = 2000
    #: Window vectors pooled from their members' (:mod:`jw_rag.store._pooling`).
    pooled_windows: bool = True
    #: A second, wider window size indexed beside ``window_chars`` (0: none).
    wide_window_chars: int = 3000
    #: How much of the title and heading path's vector is mixed into each
    #: unit's (:mod:`jw_rag.store._pooling`): each unit is embedded without
    #: them, and they once per source. 0 (the default) embeds them with every
    #: unit's text, one longer text per unit (module docstring: the trade).
    prefix_weight: float = 0.0

    def __post_init__(self) -> None:
        for name in (
            "passage_chars", "split_above", "group_below", "window_chars", "wide_window_chars"
        ):  # fmt: skip
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{name} must be an integer >= 0, got {shown_value(value)}")
            if not name.endswith("window_chars") and value > MAX_SIZE:
                raise ConfigError(
                    f"{name} must be at most {MAX_SIZE:,} characters (a size above any "
                    f"text's length), got {shown_value(value)}"
                )
            if name.endswith("window_chars") and value > MAX_WINDOW_CHARS:
                raise ConfigError(
                    f"{name} must be a size in characters from 0 to {MAX_WINDOW_CHARS} "
                    f"(0: no windows), got {shown_value(value)}"
                )
        if not is_prefix_weight(self.prefix_weight):
            raise ConfigError(
                f"prefix_weight must be a number from 0 to {MAX_PREFIX_WEIGHT:g}, "
                f"got {shown_value(self.prefix_weight)}"
            )
        if not isinstance(self.pooled_windows, bool):
            raise ConfigError(
                f"pooled_windows must be True or False, got {shown_value(self.pooled_windows)}"
            )
        if self.passage_chars and self.split_above < self.passage_chars:
            raise ConfigError(
                f"split_above ({self.split_above}) must be >= passage_chars "
                f"({self.passage_chars}): a passage would be split again"
            )
        if self.wide_window_chars and self.wide_window_chars <= self.window_chars:
            raise ConfigError(
                f"wide_window_chars ({self.wide_window_chars}) must be 0 or more than "
                f"window_chars ({self.window_chars})"
            )
        if self.passage_chars and self.group_below > self.passage_chars:
            raise ConfigError(
                f"group_below ({self.group_below}) must be <= passage_chars ({self.passage_chars})"
            )

    @property
    def active(self) -> bool:
        """True when chunks are split or grouped (``passage_chars > 0``)."""
        return self.passage_chars > 0

    def identity(self) -> str:
        """A short stable string naming these rules (part of the stored content hash)."""
        values = asdict(self)
        values["pooled_windows"] = int(values["pooled_windows"])
        del values["prefix_weight"]
        named = "u" + ".".join(str(values[k]) for k in sorted(values))
        return f"{named}.{self.prefix_identity()}" if self.prefix_weight else named

    def prefix_identity(self) -> str:
        """The prefix weight as the stored content hash names it: every digit
        (two weights are two names), an int as its float; "" for 0 (the title
        embedded with the text, as before the weight existed)."""
        return f"t{float(self.prefix_weight)!r}" if self.prefix_weight else ""


DEFAULT_UNITS = UnitRules()
#: The chunks as the chunker made them, with windows of the default size.
NO_UNITS = UnitRules(passage_chars=0, split_above=0, group_below=0)

_Atom = tuple[int, int, int]  # (paragraph, start, end): a piece of text never cut inside
#: A line block's atoms, and whether it is a paragraph on a line of its own.
_Line = tuple[list[_Atom], bool]


def passages(
    chunks: Sequence[Chunk],
    paragraphs: Sequence[str | Paragraph],
    rules: UnitRules = DEFAULT_UNITS,
) -> list[Chunk]:
    """The retrieval units for one source's ``chunks`` (reading order) over
    its ``paragraphs`` (the chunker's input): see the module docstring.

    Chunks that are kept come back as the same objects; new units get ids
    derived from their span, and every unit is re-numbered and re-linked."""
    if not rules.active or not chunks:
        return list(chunks)
    out = list(_units(chunks, paragraphs, rules))
    same = len(out) == len(chunks) and all(a is b for a, b in zip(out, chunks, strict=True))
    if not same:
        link_in_order(out)
    return out


def iter_passages(
    chunks: Iterable[Chunk],
    paragraphs: Sequence[str | Paragraph],
    rules: UnitRules = DEFAULT_UNITS,
) -> Iterator[Chunk]:
    """:func:`passages` one unit at a time, for chunks numbered and linked in
    reading order as a chunker gives them (``chunk_index`` their position):
    each unit is numbered and linked as it comes, so a source's units are
    never all held (the chunks as they are when ``rules`` is not active)."""
    if not rules.active:
        return iter(chunks)
    return linked_in_order(_units(chunks, paragraphs, rules))


def _units(
    chunks: Iterable[Chunk], paragraphs: Sequence[str | Paragraph], rules: UnitRules
) -> Iterator[Chunk]:
    """The units of :func:`passages` in order, not yet numbered or linked; a
    group is given as soon as the next chunk does not fit in it."""
    group = _Grouper(paragraphs, rules)
    for chunk in _coalesced(chunks, paragraphs, rules):
        size = len(chunk.text)
        if size < rules.group_below and _rebuildable(chunk, paragraphs):
            if group.members and not _same_section(group.members[-1], chunk):
                yield from group.flush()
            yield from group.add(chunk)
            continue
        yield from group.flush()
        if size > rules.split_above and _splittable(chunk, paragraphs):
            yield from _split(chunk, paragraphs, rules)
        else:
            yield chunk
    yield from group.flush()


def _coalesced(
    chunks: Iterable[Chunk], paragraphs: Sequence[str | Paragraph], rules: UnitRules
) -> Iterator[Chunk]:
    """``chunks`` with consecutive pieces of one long paragraph (a chunker's
    size cut) joined back, so passages are cut where the text allows."""
    pieces: list[Chunk] = []

    def flush() -> list[Chunk]:
        if len(pieces) > 1:
            first, last = pieces[0].span, pieces[-1].span
            span = Span(first.start_para, first.start_char, last.end_para, last.end_char)
            out = [_unit(pieces[0], pieces, span, paragraphs, "passage")]
        else:
            out = list(pieces)
        pieces.clear()
        return out

    for chunk in chunks:
        if pieces and _continues(pieces[-1], chunk, paragraphs):
            pieces.append(chunk)
            continue
        yield from flush()
        if len(chunk.text) > rules.passage_chars and _splittable(chunk, paragraphs):
            pieces.append(chunk)
        else:
            yield chunk
    yield from flush()


def _continues(a: Chunk, b: Chunk, paragraphs: Sequence[str | Paragraph]) -> bool:
    """True when ``b`` is the next piece of the one paragraph ``a`` ends in."""
    sa, sb = a.span, b.span
    if not (sa.end_para == sb.start_para == sb.end_para) or sa.end_char > sb.start_char:
        return False
    between = _text(paragraphs, sb.start_para)[sa.end_char : sb.start_char]
    return not between.strip() and _splittable(b, paragraphs)


def _rebuildable(chunk: Chunk, paragraphs: Sequence[str | Paragraph]) -> bool:
    if "span" not in chunk.metadata or chunk.metadata.get("parent_id"):
        return False
    try:
        return rebuild_text(paragraphs, chunk.metadata["span"]) == chunk.text
    except (ValueError, KeyError, TypeError):
        return False


def _splittable(chunk: Chunk, paragraphs: Sequence[str | Paragraph]) -> bool:
    return chunk.metadata.get("merge_reason") not in ARGUED_MERGES and _rebuildable(
        chunk, paragraphs
    )


def _same_section(a: Chunk, b: Chunk) -> bool:
    if list(a.metadata.get("heading_path") or ()) != list(b.metadata.get("heading_path") or ()):
        return False
    pages_a, pages_b = a.metadata.get("pages") or [], b.metadata.get("pages") or []
    return not pages_a or not pages_b or pages_a[-1] == pages_b[0]


def _text(paragraphs: Sequence[str | Paragraph], k: int) -> str:
    p = paragraphs[k]
    return p.text if isinstance(p, Paragraph) else p


# --- grouping ---------------------------------------------------------------


class _Grouper:
    """Consecutive short chunks packed greedily into units of up to
    ``passage_chars`` (a lone one stays as it is)."""

    __slots__ = ("members", "_paragraphs", "_rules", "_size")

    def __init__(self, paragraphs: Sequence[str | Paragraph], rules: UnitRules) -> None:
        self._paragraphs, self._rules = paragraphs, rules
        self.members: list[Chunk] = []
        self._size = 0

    def add(self, chunk: Chunk) -> list[Chunk]:
        """Add ``chunk``; the group it closes, if it does not fit."""
        size = self._size + len(PARAGRAPH_SEPARATOR) + len(chunk.text)
        if self.members and size <= self._rules.passage_chars:
            self.members.append(chunk)
            self._size = size
            return []
        done = self.flush()
        self.members, self._size = [chunk], len(chunk.text)
        return done

    def flush(self) -> list[Chunk]:
        """The group being made, closed (none when it is empty)."""
        if not self.members:
            return []
        members, self.members, self._size = self.members, [], 0
        return [_merged(members, self._paragraphs)]


def _merged(members: list[Chunk], paragraphs: Sequence[str | Paragraph]) -> Chunk:
    if len(members) == 1:
        return members[0]
    first, last = members[0].span, members[-1].span
    span = Span(first.start_para, first.start_char, last.end_para, last.end_char)
    return _unit(members[0], members, span, paragraphs, "grouped")


# --- splitting --------------------------------------------------------------


def _split(chunk: Chunk, paragraphs: Sequence[str | Paragraph], rules: UnitRules) -> list[Chunk]:
    span = chunk.span
    carried = chunk.metadata.get("overlap")
    if carried:  # the page chunker's carried sentence: the previous chunk's units hold it
        span = Span(carried["end_para"], carried["end_char"], span.end_para, span.end_char)
    runs = _runs(_lines(span, paragraphs, rules), rules.group_below)
    pieces: list[list[_Atom]] = []
    for atoms in runs:
        total = sum(e - s + 1 for _, s, e in atoms)
        if len(runs) > 1 and total - 1 <= rules.split_above:
            pieces.append(atoms)  # lines between two long ones: kept whole, as a chunk this short
        else:
            pieces.extend(_pack(atoms, total, rules.passage_chars))
    if len(pieces) < 2 and not carried:
        return [chunk]
    return [
        _unit(chunk, [chunk], Span(p[0][0], p[0][1], p[-1][0], p[-1][2]), paragraphs, "passage")
        for p in pieces
    ]


def _lines(span: Span, paragraphs: Sequence[str | Paragraph], rules: UnitRules) -> list[_Line]:
    """The pieces a passage boundary may fall between, in order, each trimmed,
    grouped by the line blocks of :func:`_blocks` they come from."""
    lines: list[_Line] = []
    for k in range(span.start_para, span.end_para + 1):
        text = _text(paragraphs, k)
        a = span.start_char if k == span.start_para else 0
        b = span.end_char if k == span.end_para else len(text)
        blocks = _blocks(text, a, b, rules.split_above)
        for block in blocks:
            atoms = [
                (k, s2, e2)
                for s, e in block
                for s2, e2 in _cut_long(text, s, e, rules)
                if text[s2:e2].strip()
            ]
            start, end = block[0][0], block[-1][1]
            own = (
                len(blocks) > 1 and end - start > rules.split_above and "\n" not in text[start:end]
            )
            if atoms:
                lines.append((atoms, own))
    return lines


def _runs(lines: list[_Line], group_below: int) -> list[list[_Atom]]:
    """Lines in runs to pack: a paragraph on a line of its own is a run of its
    own, with the line before it when that one is shorter than
    ``group_below`` (a heading); the lines between two such paragraphs form
    one run, and a short last run joins the one before."""
    runs: list[list[_Atom]] = []
    pending: list[list[_Atom]] = []
    for line, own in lines:
        if not own:
            pending.append(line)
            continue
        head = pending.pop() if pending and _size(pending[-1]) < group_below else []
        if pending:
            runs.append([atom for atoms in pending for atom in atoms])
        runs.append(head + line)
        pending = []
    rest = [atom for atoms in pending for atom in atoms]
    if rest and runs and _size(rest) < group_below:
        runs[-1] = runs[-1] + rest
    elif rest:
        runs.append(rest)
    return runs


def _size(atoms: list[_Atom]) -> int:
    return sum(e - s + 1 for _, s, e in atoms)


def _blocks(text: str, a: int, b: int, split_above: int) -> list[list[tuple[int, int]]]:
    """The lines of a stretch that has lines of its own (rows, list items,
    chat lines, paragraphs on a line each: :func:`jw_rag._lines.line_breaks`),
    each a block of one piece; a run of wrapped lines is prose and gives one
    block of its sentences, as does a line longer than ``split_above``."""
    lines = _line_spans(text, a, b)
    if len(lines) < 2:
        return [_sentences(text, a, b)]
    structure = line_breaks([text[raw:e] for raw, _, e in lines])
    if not any(structure):  # prose wrapped at a margin
        return [_sentences(text, a, b)]
    out: list[list[tuple[int, int]]] = []
    first = 0
    for k in range(len(lines)):
        if k + 1 < len(lines) and not structure[k]:
            continue
        s, e = lines[first][1], lines[k][2]
        out.append(_sentences(text, s, e) if k > first or e - s > split_above else [(s, e)])
        first = k + 1
    return out


def _line_spans(text: str, a: int, b: int) -> list[tuple[int, int, int]]:
    """``(line start, text start, text end)`` of each non-blank line of
    ``text[a:b]`` (the text trimmed; the line start keeps its indentation)."""
    spans = []
    pos = a
    for line in text[a:b].split("\n"):
        stripped = line.strip()
        if stripped:
            start = pos + line.index(stripped[0])
            spans.append((pos, start, start + len(stripped)))
        pos += len(line) + 1
    return spans


def _sentences(text: str, a: int, b: int) -> list[tuple[int, int]]:
    spans = [(s + a, e + a) for s, e in split_sentences(text[a:b])]
    return spans or [(a, b)]


def _cut_long(text: str, s: int, e: int, rules: UnitRules) -> list[tuple[int, int]]:
    """A stretch with no boundary longer than ``split_above``, cut at the last
    space before ``passage_chars``, or at ``passage_chars`` when it has no space."""
    out: list[tuple[int, int]] = []
    while e - s > rules.split_above:
        cut = text.rfind(" ", s + 1, s + rules.passage_chars + 1)
        if cut <= s:  # no space: not words (a hash, a URL, unspaced script); cut at the size
            cut = s + rules.passage_chars
        end = cut
        while end > s and text[end - 1].isspace():
            end -= 1
        out.append((s, end))
        s = cut
        while s < e and text[s].isspace():
            s += 1
    out.append((s, e))
    return out


def _pack(atoms: list[_Atom], total: int, passage_chars: int) -> list[list[_Atom]]:
    """Consecutive atoms packed into balanced pieces of about ``total / n``.

    Each piece's size is the text left shared over the pieces left, so a
    small shortfall per piece is spread over the next ones instead of piling
    up in the last (a 10 MB paragraph left a last passage of 190,000
    characters)."""
    n = max(1, round(total / passage_chars))
    target = total / n
    pieces: list[list[_Atom]] = []
    current: list[_Atom] = []
    size = 0
    done = 0  # characters in the finished pieces
    for atom in atoms:
        length = atom[2] - atom[1]
        new_paragraph = bool(current) and atom[0] != current[-1][0]
        share = max(target, (total - done) / (n - len(pieces)))
        full = size + length / 2 > share or (new_paragraph and size >= 0.6 * target)
        if current and full and len(pieces) < n - 1:
            pieces.append(current)
            done += size
            current, size = [], 0
        current.append(atom)
        size += length + 1
    if current:
        pieces.append(current)
    return pieces


# --- building units ---------------------------------------------------------


def _unit(
    template: Chunk,
    members: list[Chunk],
    span: Span,
    paragraphs: Sequence[str | Paragraph],
    kind: str,
) -> Chunk:
    meta: dict[str, Any] = dict(template.metadata)
    meta["span"] = span.to_dict()
    meta["para_ids"] = [
        _para_id(paragraphs, k) for k in range(span.start_para, span.end_para + 1)
        if _has_text(_text(paragraphs, k))
    ]  # fmt: skip
    pages = [p for m in members for p in m.metadata.get("pages") or ()]
    if pages:
        first, last = span.start_para, span.end_para
        page_of = [_page(paragraphs, k) for k in range(first, last + 1)]
        known = [p for p in page_of if p is not None]
        meta["pages"] = sorted(set(known)) if known else sorted(set(pages))
    carried = meta.get("overlap")
    if carried and (carried["start_para"], carried["start_char"]) != (
        span.start_para, span.start_char
    ):  # fmt: skip
        del meta["overlap"]  # the carried text is not where this unit starts
    meta["unit"] = kind
    if kind == "grouped":
        meta["merge_reason"] = "short_paragraph"
        meta["closure_marker"] = members[-1].metadata.get("closure_marker")
    return Chunk(
        id=span_id(template.source_id, kind, span, tag="u"),
        text=rebuild_text(paragraphs, span),
        source_id=template.source_id,
        metadata=meta,
    )


def _has_text(text: str) -> bool:
    """``text.strip()`` without copying: it stops at the first character
    that is not a space (a unit's 10 MB paragraph is not read again per unit)."""
    return bool(text) and not text.isspace()


def _para_id(paragraphs: Sequence[str | Paragraph], k: int) -> Any:
    p = paragraphs[k]
    return p.id if isinstance(p, Paragraph) and p.id is not None else k


def _page(paragraphs: Sequence[str | Paragraph], k: int) -> int | None:
    p = paragraphs[k]
    return p.page if isinstance(p, Paragraph) else None
