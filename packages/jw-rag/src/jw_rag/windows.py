"""Window units: a second, overlapping granularity indexed beside the chunks.

An argument often answers a question over two to four consecutive
paragraphs, and each paragraph alone may match the question only weakly.
So next to a source's chunks the index also holds, for every chunk, the
*window* made of that chunk and the chunks that follow it, as many as fit in
``max_chars`` characters (at least two chunks; a chunk too long to pair
starts no window). Each chunk therefore belongs to a few windows, and a
window's text is exactly the source text its span designates.

Windows are search units only. Retrieval maps a window hit to its member
chunks (:func:`members`) and delivers those, deduplicated against what other
hits delivered, so a reader never gets the same paragraph twice. A window
carries ``metadata["window"]`` (the member ids in reading order),
``chunker = "window"`` and the unit kind ``metadata["extra_unit"] = "window"`` (so a
store counts windows apart from chunks, :data:`jw_rag.model.EXTRA_UNIT_KEY`); it has no ``prev_id``/``next_id`` of its own.

Measured on the shared question sets (``jw eval chunker-bench``, README):
windows of up to 2,000 characters over paragraph chunks, searched together
with the chunks, lift NDCG of what is delivered within 2,000 characters on
multi-paragraph questions and do not lose on single-paragraph ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from jw_rag.chunk_ids import unit_id
from jw_rag.errors import ConfigError, check_flag
from jw_rag.model import EXTRA_UNIT_KEY, PARAGRAPH_SEPARATOR, Chunk, Paragraph, Span, rebuild_text

__all__ = [
    "DEFAULT_WINDOW_CHARS",
    "MAX_WINDOW_CHARS",
    "WINDOW_CHUNKER",
    "WINDOW_VERSION",
    "is_window",
    "is_window_size",
    "iter_window_units",
    "members",
    "window_units",
    "with_window_units",
]

#: Longest window, in characters (paragraph separators included).
DEFAULT_WINDOW_CHARS = 2000
#: Widest window an option may ask for: a window holds the text of all its
#: members, so a size near a long source's length gives each of its n windows
#: almost the whole source (n²/2 characters). Ten times the default.
MAX_WINDOW_CHARS = 20_000
WINDOW_CHUNKER = "window"
WINDOW_VERSION = "1"


def is_window_size(value: object) -> bool:
    """True for an int (not a bool) from 0 (no windows) to :data:`MAX_WINDOW_CHARS`:
    what every ``window_chars`` option takes."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_WINDOW_CHARS


def is_window(chunk: Chunk) -> bool:
    """True for a window unit (see the module docstring)."""
    return bool(chunk.metadata.get("window"))


def members(chunk: Chunk) -> list[str]:
    """The ids of the chunks a unit stands for: a window's members, else itself."""
    ids = chunk.metadata.get("window")
    return [str(i) for i in ids] if ids else [chunk.id]


def _window(
    run: Sequence[Chunk], paragraphs: Sequence[str | Paragraph] | None, pooled: bool = False
) -> Chunk:
    first, last = run[0], run[-1]
    a, b = Span.from_dict(first.metadata["span"]), Span.from_dict(last.metadata["span"])
    span = Span(a.start_para, a.start_char, b.end_para, b.end_char)
    if paragraphs is not None:
        text = rebuild_text(paragraphs, span)
    else:
        text = PARAGRAPH_SEPARATOR.join(c.text for c in run)
    ids = [c.id for c in run]
    # each id once, in reading order (a dict: linear in the run, however long)
    para_ids: list[Any] = list(
        dict.fromkeys(p for c in run for p in c.metadata.get("para_ids") or ())
    )
    pages: list[Any] = list(dict.fromkeys(p for c in run for p in c.metadata.get("pages") or ()))
    meta: dict[str, Any] = {
        EXTRA_UNIT_KEY: WINDOW_CHUNKER,
        "chunker": WINDOW_CHUNKER,
        "chunker_version": WINDOW_VERSION,
        "language": first.metadata.get("language"),
        "para_ids": para_ids,
        "span": span.to_dict(),
        "window": ids,
        "prev_id": None,
        "next_id": None,
    }
    for key in ("heading_path", "embed_prefix", "prefix_weight", "source_hash"):
        if first.metadata.get(key):
            meta[key] = first.metadata[key]
    if pages:
        meta["pages"] = pages
    if pooled:
        meta["pooled"] = True
    return Chunk(
        id=unit_id(first.source_id, *ids, tag="w"),
        text=text,
        source_id=first.source_id,
        metadata=meta,
    )


def window_units(
    chunks: Sequence[Chunk],
    paragraphs: Sequence[str | Paragraph] | None = None,
    *,
    max_chars: int = DEFAULT_WINDOW_CHARS,
    pooled: bool = False,
) -> list[Chunk]:
    """The windows over ``chunks`` (one source's chunks in reading order).

    With the source's ``paragraphs`` a window's text is rebuilt from its span
    (exact source text); without them it is the members' texts joined by
    :data:`~jw_rag.model.PARAGRAPH_SEPARATOR`. ``max_chars=0`` builds none.
    Chunks without a ``span`` (or window units themselves) are not windowed.
    ``pooled`` marks them for a vector pooled from their members'
    (:mod:`jw_rag.store._pooling`)."""
    return list(iter_window_units(chunks, paragraphs, max_chars=max_chars, pooled=pooled))


def iter_window_units(
    chunks: Sequence[Chunk],
    paragraphs: Sequence[str | Paragraph] | None = None,
    *,
    max_chars: int = DEFAULT_WINDOW_CHARS,
    pooled: bool = False,
) -> Iterator[Chunk]:
    """:func:`window_units` one at a time: a window's text repeats its members',
    so a store that writes in batches holds only the windows of one batch."""
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
        raise ConfigError(f"window max_chars must be an integer >= 0, got {max_chars!r}")
    check_flag("pooled", pooled)
    return _windows([c for c in chunks if "span" in c.metadata and not is_window(c)],
                    paragraphs, max_chars, pooled)  # fmt: skip


def with_window_units(
    chunks: Iterable[Chunk],
    paragraphs: Sequence[str | Paragraph] | None = None,
    *,
    max_chars: int = DEFAULT_WINDOW_CHARS,
    pooled: bool = False,
    wide_chars: int = 0,
) -> Iterator[Chunk]:
    """``chunks`` in order, each window (:func:`iter_window_units`) right after
    its last member: what a store writes, so a pooled window's members are the
    rows it has just embedded. With ``wide_chars`` the windows of that size
    come too (one window only where both sizes give the same members).

    ``chunks`` may be an iterator: it is read one chunk ahead of what is given
    out, and only the chunks a window still being made can reach are held."""
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 0:
        raise ConfigError(f"window max_chars must be an integer >= 0, got {max_chars!r}")
    check_flag("pooled", pooled)
    sizes = [max_chars, *([wide_chars] if wide_chars and wide_chars != max_chars else [])]
    return _Windower(sizes, paragraphs, pooled).run(chunks)


class _Windower:
    """The windows of several sizes over chunks read in order (see
    :func:`with_window_units`): ``base`` holds the windowed chunks from the
    earliest start a window of some size still needs."""

    def __init__(
        self, sizes: list[int], paragraphs: Sequence[str | Paragraph] | None, pooled: bool
    ) -> None:
        self.sizes, self.paragraphs, self.pooled = sizes, paragraphs, pooled
        self.base: list[Chunk] = []
        self.offset = 0  # position of base[0] among the windowed chunks
        self.starts = [0] * len(sizes)  # the next start of a window of each size
        self.made: list[list[Chunk]] = [[] for _ in sizes]  # made, not yet given out

    def run(self, chunks: Iterable[Chunk]) -> Iterator[Chunk]:
        pending: list[Chunk] = []
        for chunk in chunks:
            if "span" in chunk.metadata and not is_window(chunk):
                # the windows ending at a windowed chunk are known once the next one is
                self.base.append(chunk)
                yield from self._give(pending, final=False)
                pending = []
            pending.append(chunk)
        yield from self._give(pending, final=True)

    def _give(self, pending: list[Chunk], *, final: bool) -> Iterator[Chunk]:
        for n in range(len(self.sizes)):
            self._make(n, final)
        for chunk in pending:
            yield chunk
            emitted: set[str] = set()
            for made in self.made:
                while made and made[0].metadata["window"][-1] == chunk.id:
                    head = made.pop(0)
                    if head.id not in emitted:
                        emitted.add(head.id)
                        yield head
        self._trim()

    def _make(self, n: int, final: bool) -> None:
        """Every window of size ``n`` whose members are all known: ``final``
        when no chunk comes after ``base``."""
        max_chars, base, sep = self.sizes[n], self.base, len(PARAGRAPH_SEPARATOR)
        end = self.offset + len(base)  # one past the last known chunk
        if max_chars == 0:
            self.starts[n] = max(end - 1, 0)  # none to make: hold nothing for it
            return
        while self.starts[n] < end - 1:
            i = self.starts[n]
            size, j = len(base[i - self.offset].text), i
            while j + 1 < end and size + sep + len(base[j + 1 - self.offset].text) <= max_chars:
                j += 1
                size += sep + len(base[j - self.offset].text)
            if j + 1 == end and not final:
                return  # the next chunk may still fit
            self.starts[n] = i + 1
            if j > i:
                run = base[i - self.offset : j + 1 - self.offset]
                self.made[n].append(_window(run, self.paragraphs, self.pooled))

    def _trim(self) -> None:
        keep = min(self.starts) if self.starts else self.offset + len(self.base)
        drop = min(max(keep - self.offset, 0), max(len(self.base) - 1, 0))
        if drop:
            del self.base[:drop]
            self.offset += drop


def _windows(
    base: list[Chunk], paragraphs: Sequence[str | Paragraph] | None, max_chars: int, pooled: bool
) -> Iterator[Chunk]:
    if max_chars == 0 or len(base) < 2:
        return
    sep = len(PARAGRAPH_SEPARATOR)
    for i in range(len(base) - 1):
        size, j = len(base[i].text), i
        while j + 1 < len(base) and size + sep + len(base[j + 1].text) <= max_chars:
            j += 1
            size += sep + len(base[j].text)
        if j > i:
            yield _window(base[i : j + 1], paragraphs, pooled)
