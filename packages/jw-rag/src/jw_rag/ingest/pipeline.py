"""The shared ingest pipeline: documents -> chunks -> one batch write to the store.

Everything that can fail (reading, parsing, chunking) happens before the store
is touched, so a bad source never changes what is stored.

The content hash covers every paragraph (text, id, page, heading path, kind),
the title and language, and the chunker's identity (name, version, ``params()``); the
stored hash adds the unit rules and window size (:func:`indexed_hash`): re-ingesting
an unchanged source with the same chunker and units is skipped by the store.

The chunker's chunks become retrieval units (:mod:`jw_rag.units`: long chunks
cut into passages, runs of tiny ones grouped) and window units
(:mod:`jw_rag.windows`) as :data:`jw_rag.defaults.DEFAULT_PIPELINE` says;
``units=`` chooses other rules (``jw_rag.units.NO_UNITS``: the chunks as made).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from jw_core import SUPPORTED_LANGUAGES, detect_language, normalize_language
from jw_rag._memory import give_back
from jw_rag.chunk_ids import link_in_order, span_id
from jw_rag.chunkers import Chunker, get_chunker
from jw_rag.chunkers.base import ChunkerBase
from jw_rag.chunkers.protocol import identity
from jw_rag.errors import ConfigError, IngestError, check_flag, shown_value
from jw_rag.ingest._identity import settle_source_ids
from jw_rag.ingest._skipped import PER_FILE_ERRORS, SkippedFile
from jw_rag.model import Chunk, Document, Paragraph, Span
from jw_rag.renames import renamed
from jw_rag.store import SourceWrite, check_store, replace_sources
from jw_rag.store.protocol import Store
from jw_rag.units import DEFAULT_UNITS, UnitRules, iter_passages, passages
from jw_rag.windows import MAX_WINDOW_CHARS, is_window_size, with_window_units

__all__ = [
    "AUTO_LANGUAGE",
    "MAX_SOURCE_ID_CHARS",
    "add_embed_prefix",
    "ChunkerArg",
    "IngestResult",
    "check_language",
    "chunk_document",
    "chunk_documents",
    "content_hash",
    "indexed_hash",
    "ingest_document",
    "ingest_documents",
    "ingest_parsed",
    "resolve_chunker",
    "with_language",
    "with_source_id",
]

#: What ``chunker=`` accepts: a registered name, a chunker, or None ($JW_CHUNKER / "paragraph").
ChunkerArg = str | Chunker | None

#: A source of at least this many paragraphs gives the memory its parsing and
#: chunking freed back to the system before the next step (:mod:`jw_rag._memory`).
BIG_SOURCE_PARAGRAPHS = 20_000

#: ``Document.metadata["unit"]`` value for sources whose paragraphs are never merged.
VERSE_UNIT = "verse"


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What one ingest did: ``skipped`` is True when the stored hash was unchanged."""

    source_id: str
    chunks: int
    skipped: bool
    chunker: str
    language: str | None


def resolve_chunker(chunker: ChunkerArg) -> Chunker:
    """A chunker instance for ``chunker=`` (see :data:`ChunkerArg`)."""
    if chunker is None or isinstance(chunker, str):
        return get_chunker(chunker)
    if not callable(getattr(chunker, "chunk", None)) or not getattr(chunker, "name", None):
        raise TypeError(f"chunker must be a name or a Chunker, got {type(chunker).__name__}")
    return chunker


def content_hash(doc: Document, chunker: Chunker) -> str:
    """SHA-256 over the document's content and the chunker's identity (module docstring)."""
    h = hashlib.sha256()
    ident = identity(chunker)
    header = {
        "chunker": ident["name"],
        "version": ident["version"],
        "params": ident["params"],
        "title": doc.title,
        "language": doc.language,
        "unit": doc.metadata.get("unit"),
    }
    # surrogatepass: text no store keeps is refused by the store, in one line
    h.update(
        json.dumps(header, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
    )
    for p in doc.paragraphs:
        record = [p.text, p.id, p.page, list(p.heading_path), p.kind]
        h.update(b"\x1e" + json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def _metadata(doc: Document) -> dict[str, Any]:
    meta: dict[str, Any] = {"language": doc.language, "title": doc.title}
    for key in ("source", "format"):
        if doc.metadata.get(key) is not None:
            meta[key] = doc.metadata[key]
    return meta


def _source_metadata(doc: Document, chunker: Chunker) -> dict[str, Any]:
    meta = {k: v for k, v in doc.metadata.items() if isinstance(v, str | int | float | bool)}
    meta.update(title=doc.title, language=doc.language, chunker=chunker.name)
    return meta


def add_embed_prefix(chunks: list[Chunk], title: str, weight: float = 0.0) -> None:
    """Set each chunk's ``embed_prefix`` to the title and its heading path (as
    ingestion does), and with a ``weight``, ``prefix_weight``: the prefix's
    vector is then mixed into the chunk's instead of being embedded with its
    text (:mod:`jw_rag.store._pooling`)."""
    for c in chunks:
        parts: list[str] = [title] if title else []
        for h in c.metadata.get("heading_path") or ():
            if h not in parts:
                parts.append(h)
        if parts:
            c.metadata["embed_prefix"] = " > ".join(parts)
            if weight:
                c.metadata["prefix_weight"] = weight


def _chunk_units(doc: Document, chunker: Chunker, meta: dict[str, Any]) -> list[Chunk]:
    """Each paragraph chunked on its own, then re-numbered and re-linked as one sequence."""
    if not meta.get("language"):
        sample = " ".join(p.text for p in doc.paragraphs[:40])
        meta["language"] = detect_language(sample) if sample else None
    out: list[Chunk] = []
    for i, para in enumerate(doc.paragraphs):
        if not para.text.strip():
            continue
        for c in chunker.chunk([para], doc.source_id, metadata=meta):
            s = c.span
            span = Span(s.start_para + i, s.start_char, s.end_para + i, s.end_char)
            c.metadata["span"] = span.to_dict()
            c.metadata["para_ids"] = [para.id if para.id is not None else i]
            c.id = span_id(doc.source_id, chunker.name, span)
            out.append(c)
    link_in_order(out)
    return out


def chunk_document(
    doc: Document, *, chunker: ChunkerArg = None, units: UnitRules = DEFAULT_UNITS
) -> list[Chunk]:
    """The chunks ``ingest_document`` would store for ``doc`` (window units aside):
    the chunker's chunks made into retrieval units by ``units`` (:mod:`jw_rag.units`).

    Documents whose ``metadata["unit"]`` is ``"verse"`` (Bible chapters) are
    chunked one paragraph at a time, so no chunk spans two verses.
    """
    return chunk_document_with_parents(doc, chunker=chunker, units=units)[0]


def chunk_documents(
    docs: Iterable[Document],
    *,
    chunker: ChunkerArg = None,
    skipped: list[SkippedFile] | None = None,
) -> list[tuple[Document, list[Chunk]]]:
    """Each document with the chunks :func:`chunk_document` gives it (``docs``:
    a list, tuple or generator, read once, as :func:`ingest_documents` takes it).
    With a ``skipped`` list, a file one of whose documents cannot be chunked is left
    out, all its documents with it, and listed there with the reason, as
    :func:`ingest_documents` does; without it, the first failure raises."""
    docs = _checked_documents(docs)
    resolved = resolve_chunker(chunker)
    if skipped is None:
        return [(doc, chunk_document(doc, chunker=resolved)) for doc in docs]
    return [(doc, chunks) for doc, chunks, _ in _chunk_all(docs, resolved, skipped, DEFAULT_UNITS)]  # type: ignore[misc]


def chunk_document_with_parents(
    doc: Document, *, chunker: ChunkerArg = None, units: UnitRules = DEFAULT_UNITS
) -> tuple[list[Chunk], list[Chunk]]:
    """``(chunks, parents)`` for ``doc``: parents come from chunkers that build a
    hierarchy (``ParentChildChunker``); other chunkers give none. Chunks of a
    hierarchy and verses are kept as made; others become units by ``units``."""
    if not isinstance(units, UnitRules):
        raise TypeError(f"units must be a UnitRules, got {type(units).__name__}")
    resolved = resolve_chunker(chunker)
    if not any(p.text.strip() for p in doc.paragraphs):
        raise IngestError(f"{doc.source_id}: the document has no text to index")
    meta = _metadata(doc)
    parents: list[Chunk] = []
    hierarchy = getattr(resolved, "chunk_hierarchy", None)
    if doc.metadata.get("unit") == VERSE_UNIT:
        chunks = _chunk_units(doc, resolved, meta)
    elif hierarchy is not None:
        chunks, parents = hierarchy(doc.paragraphs, doc.source_id, metadata=meta)
    else:
        chunks = passages(resolved.chunk(doc.paragraphs, doc.source_id, metadata=meta),
                          doc.paragraphs, units)  # fmt: skip
    add_embed_prefix(chunks, doc.title, units.prefix_weight)
    return chunks, parents


def _result(
    doc: Document, chunks: list[Chunk], chunker: Chunker, changed: bool = True
) -> IngestResult:
    language = chunks[0].metadata.get("language") if chunks else doc.language
    return IngestResult(
        source_id=doc.source_id,
        chunks=len(chunks),
        skipped=not changed,
        chunker=chunker.name,
        language=normalize_language(language) if language else None,
    )


def indexed_hash(doc: Document, chunker: Chunker, units: UnitRules, window_chars: int) -> str:
    """The stored content hash: the document and chunker's, plus the unit
    rules (when they split or group), the window size and, with windows, how
    their vectors are made and the wide size (with the chunks as made too), and
    the prefix weight (:attr:`UnitRules.prefix_weight`, part of the identity)."""
    digest = content_hash(doc, chunker)
    if units.active:
        digest = f"{digest}+{units.identity()}"
    elif units.prefix_weight:
        digest = f"{digest}+{units.prefix_identity()}"
    if not window_chars:
        return digest
    digest = f"{digest}+w{window_chars}"
    if not units.active and (not units.pooled_windows or units.wide_window_chars):
        digest = f"{digest}.p{int(units.pooled_windows)}.ww{units.wide_window_chars}"
    return digest


def _check_window_chars(value: object) -> None:
    if value is not None and not is_window_size(value):
        raise ConfigError(
            f"window_chars must be a size in characters from 0 to {MAX_WINDOW_CHARS} "
            f"(0: no window units), got {shown_value(value)}"
        )


def _checked_documents(docs: object) -> list[Document]:
    """``docs`` as a list, when it is an iterable of :class:`Document` objects
    whose ids are text and whose paragraphs are :class:`Paragraph` objects;
    else a one-line ConfigError naming the first that is not."""
    if isinstance(docs, Document):
        raise ConfigError("docs must be a list of Document objects, got one Document: pass [doc]")
    if isinstance(docs, str | bytes | bytearray | Mapping) or not isinstance(docs, Iterable):
        raise ConfigError(f"docs must be a list of Document objects, got {type(docs).__name__}")
    checked = docs if isinstance(docs, list) else list(docs)
    for i, doc in enumerate(checked):
        if not isinstance(doc, Document):
            raise ConfigError(
                f"docs[{i}] is a {type(doc).__name__}, not a Document: pass "
                "Document(source_id, [Paragraph(text), ...]) (jw_rag.Document)"
            )
        if not isinstance(doc.source_id, str):
            raise ConfigError(
                f"docs[{i}].source_id must be a str, got {type(doc.source_id).__name__}"
            )
        if not isinstance(doc.paragraphs, list):
            raise ConfigError(
                f"docs[{i}].paragraphs must be a list of Paragraph objects, got "
                f"{type(doc.paragraphs).__name__}"
            )
        for j, p in enumerate(doc.paragraphs):
            if not isinstance(p, Paragraph):
                raise ConfigError(
                    f"docs[{i}].paragraphs[{j}] is a {type(p).__name__}, not a Paragraph: "
                    "wrap each text as Paragraph(text) (jw_rag.Paragraph)"
                )
    return checked


def ingest_documents(
    store: Store,
    docs: Iterable[Document],
    *,
    chunker: ChunkerArg = None,
    replace: bool = False,
    window_chars: int | None = None,
    skipped: list[SkippedFile] | None = None,
    units: UnitRules = DEFAULT_UNITS,
    windows: int | None = None,
) -> list[IngestResult]:
    """Chunk every document first, then replace every source in one transaction
    (all stored or none; unchanged ones skipped, see :func:`jw_rag.store.replace_sources`).
    ``docs`` is any iterable of documents (a list, a tuple, a generator), read
    whole before the store is touched: when it raises midway, nothing is stored,
    not even the documents it gave before.

    A source id already stored from another origin (another file or URL) is
    refused unless ``replace``, and documents that would share an id are told
    apart or refused (see :mod:`jw_rag.ingest._identity`). The chunks become
    retrieval units by ``units`` (:mod:`jw_rag.units`), and window units of up
    to ``window_chars`` characters (default ``units.window_chars``; 0 for none) are
    indexed beside them (:mod:`jw_rag.windows`; ``windows`` is the old name of
    ``window_chars``, kept for one release). With a ``skipped`` list, a file one of
    whose documents cannot be chunked (no text to index...) is left out, all
    its documents with it, and listed there with the reason."""
    window_chars = renamed("ingest_documents()", "windows", windows, "window_chars", window_chars)
    check_flag("replace", replace)
    _check_window_chars(window_chars)
    check_store(store, "replace_sources")
    docs = _checked_documents(docs)
    resolved = resolve_chunker(chunker)
    if window_chars is None:
        window_chars = units.window_chars
    moved = settle_source_ids(store, docs, replace=replace)
    prepared = _chunk_all(docs, resolved, skipped, units)
    writes, results = [], []
    prepared.reverse()
    while prepared:  # no list keeps a source's units: the store lets them go once staged
        doc, chunks, parents = prepared.pop()
        results.append(chunks if isinstance(chunks, _Streamed) else _result(doc, chunks, resolved))
        indexed = with_window_units(
            chunks, doc.paragraphs, max_chars=window_chars, pooled=units.pooled_windows,
            wide_chars=units.wide_window_chars if window_chars else 0,
        )  # fmt: skip
        del chunks
        digest = (
            None if doc.source_id in moved else indexed_hash(doc, resolved, units, window_chars)
        )
        meta = _source_metadata(doc, resolved)
        keep = not replace and bool(meta.get("origin")) and doc.source_id not in moved
        writes.append(SourceWrite(doc.source_id, indexed, digest, parents, meta, keep_origin=keep))
    changed = replace_sources(store, writes)
    return [
        dataclasses.replace(r.result() if isinstance(r, _Streamed) else r, skipped=not done)
        for r, done in zip(results, changed, strict=True)
    ]


class _Streamed:
    """A source's units made as the store reads them (:func:`_stream`), counted
    on the way for its :class:`IngestResult`."""

    __slots__ = ("_doc", "_chunker", "_units", "count", "language")

    def __init__(self, doc: Document, chunker: Chunker, units: Iterator[Chunk]) -> None:
        self._doc, self._chunker, self._units = doc, chunker, units
        self.count = 0
        self.language: str | None = None

    def __iter__(self) -> Iterator[Chunk]:
        for unit in self._units:
            if not self.count:
                self.language = unit.metadata.get("language")
            self.count += 1
            yield unit
        self._units = iter(())

    def result(self) -> IngestResult:
        """The source's result, once every unit went by (a store that did not
        read them all, e.g. for an unchanged source, leaves the rest counted here)."""
        for _ in self:
            pass
        language = self.language if self.count else self._doc.language
        return IngestResult(
            source_id=self._doc.source_id,
            chunks=self.count,
            skipped=False,
            chunker=self._chunker.name,
            language=normalize_language(language) if language else None,
        )


def _streams(chunker: Chunker) -> bool:
    """True when ``chunker`` builds its chunks as :class:`ChunkerBase` does, so
    they can come one at a time (:meth:`ChunkerBase.iter_chunks`)."""
    kind = type(chunker)
    return (
        isinstance(chunker, ChunkerBase)
        and kind.chunk is ChunkerBase.chunk
        and kind._build is ChunkerBase._build
        and getattr(chunker, "chunk_hierarchy", None) is None
    )


def _stream(doc: Document, chunker: Chunker, units: UnitRules) -> _Streamed:
    """What :func:`chunk_document` gives for ``doc``, one unit at a time: the
    chunker's pieces are found now (a bad input fails here), the chunks, units
    and their links are made as the store reads them, so a source's chunks
    and units are never all held at once."""
    if not any(p.text.strip() for p in doc.paragraphs):
        raise IngestError(f"{doc.source_id}: the document has no text to index")
    raw = chunker.iter_chunks(doc.paragraphs, doc.source_id, metadata=_metadata(doc))  # type: ignore[attr-defined]
    pieces = iter_passages(raw, doc.paragraphs, units)
    return _Streamed(doc, chunker, _prefixed(pieces, doc.title, units.prefix_weight))


def _prefixed(units: Iterable[Chunk], title: str, weight: float) -> Iterator[Chunk]:
    for unit in units:
        add_embed_prefix([unit], title, weight)
        yield unit


def _chunk_all(
    docs: list[Document], chunker: Chunker, skipped: list[SkippedFile] | None, units: UnitRules
) -> list[tuple[Document, list[Chunk] | _Streamed, list[Chunk]]]:
    """``(doc, chunks, parents)`` for every document, the chunks made as they are
    stored where the chunker allows it (:func:`_stream`); with ``skipped``, the
    documents of a file that fails (see :func:`ingest_documents`) left out
    (their chunks all made first, so a failure is known before the store is)."""
    prepared = []
    bad: dict[str, BaseException] = {}
    # twice at most, not once a big source: each call walks every object held,
    # every source's paragraphs among them (40 sources of 20,000 paragraphs
    # spent 6.2 of 6.6 seconds there)
    big = any(len(doc.paragraphs) >= BIG_SOURCE_PARAGRAPHS for doc in docs)
    if big:
        give_back()  # what parsing the sources freed
    for doc in docs:
        try:
            if skipped is None and doc.metadata.get("unit") != VERSE_UNIT and _streams(chunker):
                prepared.append((doc, _stream(doc, chunker, units), []))
            else:
                prepared.append(
                    (doc, *chunk_document_with_parents(doc, chunker=chunker, units=units))
                )
        except PER_FILE_ERRORS as exc:
            if skipped is None:
                raise
            bad.setdefault(_file_of(doc), exc)
    if big:
        give_back()  # the chunker's working lists, before the store stages the units
    if skipped is not None and bad:
        skipped.extend(SkippedFile.of(path, exc) for path, exc in bad.items())
        skipped.sort(key=lambda s: s.path)
    return [p for p in prepared if _file_of(p[0]) not in bad]


def _file_of(doc: Document) -> str:
    """The file (or URL) ``doc`` was read from, as skipped files are listed."""
    return str(doc.metadata.get("source") or doc.source_id)


def ingest_document(
    store: Store,
    doc: Document,
    *,
    chunker: ChunkerArg = None,
    replace: bool = False,
    window_chars: int | None = None,
    units: UnitRules = DEFAULT_UNITS,
    windows: int | None = None,
) -> IngestResult:
    """Chunk ``doc`` and replace its source in ``store`` (skipped when unchanged;
    ``replace``, ``window_chars`` and ``units`` as in :func:`ingest_documents`;
    ``windows`` is the old name of ``window_chars``, kept for one release)."""
    window_chars = renamed("ingest_document()", "windows", windows, "window_chars", window_chars)
    check_flag("replace", replace)
    return ingest_documents(
        store, [doc], chunker=chunker, replace=replace, window_chars=window_chars, units=units
    )[0]


def ingest_parsed(
    store: Store,
    doc: Document,
    *,
    chunker: ChunkerArg = None,
    language: str | None = None,
    source_id: str | None = None,
    replace: bool = False,
) -> IngestResult:
    """:func:`ingest_document` after applying the caller's language and source id."""
    check_flag("replace", replace)
    return ingest_document(
        store,
        with_source_id(with_language(doc, language), source_id),
        chunker=chunker,
        replace=replace,
    )


#: What ``language=`` accepts besides a supported code: detect it from the text.
AUTO_LANGUAGE = "auto"


def check_language(language: str | None) -> str | None:
    """The supported ISO code for ``language`` (``None`` for None or ``"auto"``,
    meaning: detect it); anything else is a one-line :class:`ConfigError`."""
    if language is not None and not isinstance(language, str):
        valid = ", ".join((*SUPPORTED_LANGUAGES, AUTO_LANGUAGE))
        raise ConfigError(
            f"language must be a str ({valid}) or None, got {type(language).__name__}"
        )
    if language is None or language.strip().lower() == AUTO_LANGUAGE:
        return None
    code = normalize_language(language)
    if code not in SUPPORTED_LANGUAGES:
        valid = ", ".join((*SUPPORTED_LANGUAGES, AUTO_LANGUAGE))
        raise ConfigError(f"unknown language {language!r}; use one of {valid}")
    return code


def with_language(doc: Document, language: str | None) -> Document:
    """``doc`` with the caller's language when one is given (see :func:`check_language`);
    ``"auto"`` drops the language the source declares, so it is detected from the text."""
    code = check_language(language)
    if code is not None:
        doc.language = code
    elif language is not None:
        doc.language = None
    return doc


#: The most characters a caller's source id may have (an id is a name: every
#: chunk id, search hit and source list repeats it).
MAX_SOURCE_ID_CHARS = 4096


def check_source_id(source_id: str) -> str:
    """``source_id`` when it is a usable id: not empty, one line, no control
    characters, at most :data:`MAX_SOURCE_ID_CHARS` characters."""
    if not isinstance(source_id, str):
        raise ConfigError(f"source_id must be a str, got {type(source_id).__name__}")
    if len(source_id) > MAX_SOURCE_ID_CHARS:
        raise ConfigError(
            f"source_id is {len(source_id):,} characters long; give an id of at most "
            f"{MAX_SOURCE_ID_CHARS:,} characters"
        )
    if not source_id.strip():
        raise ConfigError("source_id must not be empty")
    control = next((c for c in source_id if unicodedata.category(c) == "Cc"), None)
    if control is not None:
        raise ConfigError(
            f"source_id {source_id!r} holds a control character ({control!r}): give an id "
            "on one line, without tabs or other control characters"
        )
    return source_id


def with_source_id(doc: Document, source_id: str | None) -> Document:
    """``doc`` with the caller's source id when one is given (:func:`check_source_id`)."""
    if source_id is not None:
        doc.source_id = check_source_id(source_id)
    return doc
