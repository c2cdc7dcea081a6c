"""What every store backend shares: input checks, embedding and its model
checks, the write sequence of each operation, search dispatch and fusion,
reads in the order asked for, and the assembly of ``stats``.

A backend subclasses :class:`StoreCore` and supplies its transactions
(``_reading``/``_writing``), its queries and its row I/O (the abstract
methods below). Writes follow one rule whatever the backend: validate and
embed first, a batch at a time (batches past the first wait in an anonymous
temporary file, :mod:`jw_rag.store._staging`), then write everything in one
transaction, so a slow embedder holds no locks, a source of any size costs
the memory of one batch, and an exception leaves the store as it was.
"""

from __future__ import annotations

import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from jw_rag.defaults import SEARCH_MODES
from jw_rag.embed.protocol import embed_queries
from jw_rag.errors import (
    ConfigError,
    EmbeddingError,
    IngestError,
    StoreError,
    check_flag,
    shown_value,
)
from jw_rag.limits import MAX_QUERY_CHARS
from jw_rag.model import Chunk
from jw_rag.store._filters import SqlFilter, parse_filters
from jw_rag.store._fusion import reciprocal_rank_fusion
from jw_rag.store._pooling import PooledMembers
from jw_rag.store._rows import (
    EXTRA_UNIT_KEY,
    UNIT_META_PREFIX,
    ChunkRow,
    check_id,
    check_source_metadata,
    check_text,
    check_unique,
    dump_metadata,
    unit_kinds,
)
from jw_rag.store._staging import Staged
from jw_rag.store.protocol import SearchHit, SearchMode, SourceWrite

if TYPE_CHECKING:  # the embed package is only needed for its types here
    from typing import Self

    from jw_rag.embed.protocol import Embedder, Vectors

__all__ = [
    "HYBRID_DEPTH",
    "check_search",
    "Counts",
    "Ranked",
    "SourceRow",
    "StoreCore",
    "before_writes",
    "languages_sql",
    "source_sql",
]

#: Hybrid search fuses the top ``max(k * 4, HYBRID_DEPTH)`` of each list.
HYBRID_DEPTH = 50
_MODES: tuple[str, ...] = SEARCH_MODES

ConnT = TypeVar("ConnT")
#: ``(rowid, score)`` pairs, best first.
Ranked = list[tuple[int, float]]


class SourceRow(NamedTuple):
    """What a backend stores about one source."""

    content_hash: str | None
    metadata: dict[str, Any]
    ingested_at: str
    chunks: int


@dataclass(frozen=True, slots=True)
class Counts:
    """Row counts for ``stats``: ``(key, count)`` pairs ordered by key
    (``None`` for a missing language or chunker)."""

    sources: int
    parents: int
    per_source: list[tuple[str, int]]
    languages: list[tuple[str | None, int]]
    chunker_versions: list[tuple[str | None, str | None, int]]
    #: ``(unit kind, source_id, language, count)`` of the rows of a unit kind
    #: (:data:`EXTRA_UNIT_KEY`; already counted above).
    units: list[tuple[str, str, str | None, int]] = field(default_factory=list)


_BEFORE_WRITE: ContextVar[Callable[[], None] | None] = ContextVar(
    "jw_rag_before_write", default=None
)


@contextmanager
def before_writes(callback: Callable[[], None]) -> Iterator[None]:
    """Within the block, ``callback()`` runs when a write's chunks are all
    embedded and its transaction is about to start (``add`` and
    ``replace_source``); an exception it raises abandons the write, which then
    leaves the store as it was. A server uses it to stop cutting a call at its
    deadline once the write begins."""
    token = _BEFORE_WRITE.set(callback)
    try:
        yield
    finally:
        _BEFORE_WRITE.reset(token)


def _write_begins() -> None:
    callback = _BEFORE_WRITE.get()
    if callback is not None:
        callback()


class _Unchanged(Exception):
    """Raised inside a write transaction to roll it back as a no-op."""


def source_sql(prefix: str, mark: str) -> str:
    """The query for one source's hash, metadata, ingest time and chunk count,
    given a backend's table name prefix and parameter mark."""
    return (
        "SELECT content_hash, metadata, ingested_at, "
        f"(SELECT COUNT(*) FROM {prefix}chunks WHERE source_id = s.source_id) "
        f"FROM {prefix}sources AS s WHERE source_id = {mark}"
    )


def languages_sql(prefix: str, mark: str) -> str:
    """The query for the languages one source's chunks record, sorted, given a
    backend's table name prefix and parameter mark."""
    return (
        f"SELECT DISTINCT language FROM {prefix}chunks WHERE source_id = {mark} "
        "AND language IS NOT NULL ORDER BY language"
    )


def _belongs(chunk: Any, source_id: str) -> None:
    if getattr(chunk, "source_id", None) != source_id:
        raise ConfigError(
            f"chunk {getattr(chunk, 'id', chunk)!r} belongs to source "
            f"{getattr(chunk, 'source_id', None)!r}, not {source_id!r}: give each source its own call"
        )


def _check_write(write: SourceWrite) -> str:
    """Check what one source of a batch holds besides its chunks (its parents
    belong to it and are unique, its metadata is storable); returns the
    metadata as JSON. Its chunks are checked as they are read
    (:func:`_chunk_check`), so a generator is read once."""
    if not isinstance(write, SourceWrite):
        raise ConfigError(
            f"replace_sources takes a list of SourceWrite objects, got a "
            f"{type(write).__name__} in it: pass [SourceWrite(source_id, chunks, ...), ...] "
            "(jw_rag.store.SourceWrite)"
        )
    check_flag(f"SourceWrite({write.source_id!r}).keep_origin", write.keep_origin)
    for p in write.parents:
        _belongs(p, write.source_id)
    check_unique(write.parents, "parent")
    return check_source_metadata(write.source_id, write.source_metadata)


def _check_sources(writes: Sequence[SourceWrite]) -> None:
    """Refuse a batch naming one source twice."""
    sources: set[str] = set()
    for w in writes:
        if w.source_id in sources:
            raise ConfigError(
                f"source {w.source_id!r} appears twice in one batch: give each its own id"
            )
        sources.add(w.source_id)


def _chunk_check(source_id: str, owner: dict[str, str]) -> Callable[[Any], None]:
    """The check of each chunk of ``source_id`` in a batch: it belongs to the
    source, and its id is in no other source of the batch (the second would
    overwrite the first); ``owner`` maps the batch's chunk ids to their source."""

    def check(chunk: Any) -> None:
        _belongs(chunk, source_id)
        cid = getattr(chunk, "id", None)
        if isinstance(cid, str) and owner.setdefault(cid, source_id) != source_id:
            raise ConfigError(
                f"chunk id {cid!r} is in sources {owner[cid]!r} and {source_id!r} of one "
                "batch: chunk ids must be unique across sources"
            )

    return check


def _by_source(pair: tuple[SourceWrite, str]) -> str:
    """Batch writes take their sources in id order, so concurrent batches lock
    rows in one order."""
    return pair[0].source_id


def _named(rows: Sequence[tuple[Any, int]]) -> dict[str, int]:
    return {("unknown" if key is None else key): n for key, n in rows}


def _without_units(
    rows: Sequence[tuple[Any, int]], units: Sequence[tuple[Any, int]]
) -> dict[str, int]:
    """``rows`` counted by key, less the unit rows counted under the same key
    (keys left with no chunk are dropped)."""
    counts = _named(rows)
    for key, n in units:
        name = "unknown" if key is None else key
        counts[name] = counts.get(name, 0) - n
    return {key: n for key, n in counts.items() if n > 0}


#: The unit kind whose count ``stats`` has always reported as ``"windows"``.
_WINDOW_UNIT = "window"

#: The most hits one search returns.
MAX_SEARCH_K = 10_000


def _check_query_length(query: str) -> None:
    if len(query) > MAX_QUERY_CHARS:
        raise ConfigError(
            f"the query is {len(query):,} characters long, over the limit of "
            f"{MAX_QUERY_CHARS:,} (jw_rag.limits.MAX_QUERY_CHARS): search with the question "
            "or the passage's key sentences, not a whole text"
        )


def _check_search(query: Any, k: Any, mode: Any) -> None:
    if mode not in _MODES:
        raise ConfigError(f"unknown search mode {mode!r}: use one of {', '.join(_MODES)}")
    if not isinstance(query, str):
        raise ConfigError(f"query must be a string, got {type(query).__name__}")
    _check_query_length(query)
    if not query.isascii():
        check_text(query, "the query")
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_SEARCH_K:
        raise ConfigError(f"k must be an integer from 0 to {MAX_SEARCH_K}, got {k!r}")


def check_search(
    query: Any, k: Any, mode: Any = "dense", filters: Mapping[str, Any] | None = None
) -> None:
    """A one-line :class:`ConfigError` for an argument :meth:`StoreCore.search`
    would refuse (mode, query, ``k``, filter keys and values), checked without
    a store: a caller that does work before its search checks them first."""
    _check_search(query, k, mode)
    parse_filters(filters)


def _check_ids(ids: Any) -> list[str]:
    wanted = None if isinstance(ids, str | bytes) else list(ids)
    if wanted is None or not all(isinstance(i, str) for i in wanted):
        raise ConfigError("ids must be a sequence of chunk id strings, e.g. ['book:0', 'book:1']")
    for i in wanted:
        check_id(i, "chunk id")
    return wanted


def _check_source_ids(source_ids: Any) -> list[str]:
    """The ids given to :meth:`StoreCore.delete_sources`, each checked."""
    if isinstance(source_ids, str | bytes) or not isinstance(source_ids, Iterable):
        raise ConfigError(
            f"source_ids must be a list of source id strings, e.g. ['alma', 'vida'], got "
            f"{shown_value(source_ids)}: for one source pass [id] or call delete_source(id)"
        )
    ids = list(source_ids)
    for i in ids:
        _check_source_id(i)
    _check_distinct({n: i for n, i in enumerate(ids)})
    return ids


def _check_distinct(stored: Mapping[Any, str]) -> None:
    """Refuse two ids of one delete naming the same stored source (``stored``
    maps each id given, or its place, to the source it names)."""
    seen: dict[str, Any] = {}
    for given, source_id in stored.items():
        if source_id in seen:
            first = seen[source_id]
            twice = (
                f"as {shown_value(first)} and {shown_value(given)}"
                if isinstance(given, str) and first != given
                else "twice"
            )
            raise ConfigError(
                f"source {shown_value(source_id)} is named {twice} in one delete: name each "
                "source once; nothing was deleted"
            )
        seen[source_id] = given


def _check_source_id(source_id: object) -> None:
    """A source id given to one of a store's source methods: a string (the
    ids a store keeps), checked as :func:`check_id` checks it."""
    if not isinstance(source_id, str):
        raise ConfigError(
            f"source_id must be a string (an id `jw rag stats` lists), got {shown_value(source_id)}"
        )
    check_id(source_id, "source id")


class StoreCore(ABC, Generic[ConnT]):
    """The shared half of a :class:`~jw_rag.store.protocol.Store`.

    ``embedder`` is used for adding chunks and for dense/hybrid search; when
    ``None`` it is created at first use, so BM25-only use never loads a model:
    ``$JW_EMBEDDER`` when set, else the embedder the store recorded when its
    vectors were written (a store built with ``e5`` opens with ``e5``; see
    :func:`jw_rag.embed.registry.embedder_name`), else the default.
    """

    #: Where the store lives, as error messages name it (a path or a DSN without password).
    _label: str
    #: Opened for reading only (or, for a file, one that cannot be written): writes refused.
    read_only: bool = False

    def __init__(self, embedder: Embedder | None) -> None:
        self._embedder = embedder
        self._last_query: tuple[tuple[str, str], Vectors] | None = None

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from jw_rag.embed import get_embedder

            self._embedder = get_embedder(self.recorded_embedder())
        return self._embedder

    def recorded_embedder(self) -> str | None:
        """The ``get_embedder`` name of the embedder this store's vectors came
        from, when it is one the registry can build offline; None for an empty
        or new store, or a model known only by id (``ollama:...``). ``None``
        also when ``$JW_EMBEDDER`` is set: the environment's choice is explicit,
        and a different one is refused at first use as any other."""
        import os

        from jw_rag.embed.registry import ENV_VAR, embedder_name

        if os.environ.get(ENV_VAR, "").strip():
            return None
        try:
            with self._reading() as conn:
                stored = self._meta(conn).get("model_id")
        except Exception:  # noqa: BLE001 - a store not created yet records nothing
            return None
        return embedder_name(stored) if stored else None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._label!r})"

    def _insert(self, conn: ConnT, rows: list[ChunkRow], vectors: Vectors) -> None:
        """:meth:`_insert_rows`, recording each unit kind the rows carry; a unit
        kind may not share its name with a chunker whose chunks the store holds
        or is given, or those chunks would be counted as units."""
        known = set(unit_kinds(self._meta(conn)))
        kinds = {r.unit for r in rows if r.unit is not None}
        new = kinds - known
        given = {r.fields()[6] for r in rows if r.unit is None}
        clash = ((known | kinds) - set(unit_kinds({}))) & given  # old-style windows may come
        if new:  # the first rows of a kind: no chunker of the store's may bear its name
            held = {name for name, _, _ in self._counts(conn).chunker_versions} - known
            clash |= new & held
        if clash:
            raise ConfigError(
                f"unit kind {min(clash)!r} (metadata[{EXTRA_UNIT_KEY!r}]) is also the name of a "
                "chunker whose chunks this store holds or is given: give the units a kind of "
                "their own"
            )
        self._insert_rows(conn, rows, vectors)
        for kind in new:
            self._add_meta(conn, UNIT_META_PREFIX + kind, "1")

    # -- what a backend supplies --------------------------------------------

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def _reading(self) -> AbstractContextManager[ConnT]:
        """A connection holding one consistent snapshot."""

    @abstractmethod
    def _writing(self) -> AbstractContextManager[ConnT]:
        """A connection inside one write transaction (rolled back on any exception)."""

    @abstractmethod
    def _meta(self, conn: ConnT) -> dict[str, str]:
        """The store's key/value metadata (``model_id``, ``dim``, ...)."""

    @abstractmethod
    def _add_meta(self, conn: ConnT, key: str, value: str) -> None:
        """Inside a write: set ``key`` in the store's metadata (kept if set)."""

    @abstractmethod
    def _has_vectors(self, conn: ConnT) -> bool: ...

    @abstractmethod
    def _stored_hash(self, conn: ConnT, source_id: str) -> str | None: ...

    @abstractmethod
    def _claim_source(self, conn: ConnT, source_id: str, has_rows: bool) -> str | None:
        """Inside a write: serialise writers of ``source_id`` and return its stored
        hash (``has_rows``: the write inserts chunks of it)."""

    def _lock_source(self, conn: ConnT, source_id: str) -> None:
        """Inside a write: wait for a write of ``source_id`` under way in another
        transaction and hold its writers off to the end of this one (nothing to
        do where writers are serialised already)."""

    @abstractmethod
    def _insert_rows(self, conn: ConnT, rows: list[ChunkRow], vectors: Vectors) -> None:
        """Insert (or overwrite by id) ``rows`` with their vectors."""

    @abstractmethod
    def _touch_sources(self, conn: ConnT, source_ids: list[str]) -> None:
        """Register sources that ``add`` wrote to; their content hash no longer holds."""

    @abstractmethod
    def _record_source(
        self, conn: ConnT, source_id: str, content_hash: str | None, metadata_json: str
    ) -> None: ...

    @abstractmethod
    def _delete_source_rows(self, conn: ConnT, source_id: str) -> int:
        """Delete a source's chunks (with vectors and index entries) and parents."""

    @abstractmethod
    def _forget_source(self, conn: ConnT, source_id: str) -> None: ...

    @abstractmethod
    def _write_parents(self, conn: ConnT, parents: Sequence[Chunk]) -> None: ...

    @abstractmethod
    def _fetch(self, conn: ConnT, ids: list[str], parents: bool) -> dict[str, Chunk]:
        """Stored chunks (or parents) among ``ids``, by id."""

    @abstractmethod
    def _fetch_vectors(self, conn: ConnT, ids: list[str]) -> dict[str, npt.NDArray[np.float32]]: ...

    @abstractmethod
    def _source_row(self, conn: ConnT, source_id: str) -> SourceRow | None: ...

    @abstractmethod
    def _source_languages(self, conn: ConnT, source_id: str) -> list[str]:
        """The languages the source's chunks record (:func:`languages_sql`)."""

    @abstractmethod
    def _origins_below(self, conn: ConnT, root: str) -> list[tuple[str, str]]:
        """``(source_id, origin)`` of the sources :meth:`sources_below` gives, in any order."""

    @abstractmethod
    def _source_ids(self, conn: ConnT, ids: list[str] | None) -> list[str]:
        """The stored source ids among ``ids`` (``None``: every stored source id)."""

    @abstractmethod
    def _filter(self, filters: Mapping[str, Any] | None) -> SqlFilter: ...

    @abstractmethod
    def _dense(self, conn: ConnT, query_vector: Vectors, k: int, f: SqlFilter) -> Ranked: ...

    @abstractmethod
    def _bm25(self, conn: ConnT, query: str, k: int, f: SqlFilter) -> Ranked: ...

    @abstractmethod
    def _chunks_by_rowid(self, conn: ConnT, rowids: list[int]) -> dict[int, Chunk]: ...

    @abstractmethod
    def _describe(self, conn: ConnT) -> dict[str, Any]:
        """The backend's own ``stats`` entries: ``path``, ``size_bytes``, ``schema_version``, ..."""

    @abstractmethod
    def _counts(self, conn: ConnT) -> Counts: ...

    # -- embedding ----------------------------------------------------------

    def _model_error(self, stored: str) -> StoreError:
        from jw_rag.embed.registry import embedder_name

        name = embedder_name(stored)
        how = f" (--embedder {name} or JW_EMBEDDER={name})" if name else ""
        return StoreError(
            f"store {self._label} holds vectors from embedder '{stored}' but the embedder in "
            f"use is '{self.embedder.model_id}': open it with the '{stored}' embedder{how} or "
            "rebuild it into a new store"
        )

    def _check_model(self, conn: ConnT) -> None:
        """Refuse to mix vectors of two models in one store."""
        stored = self._meta(conn).get("model_id")
        if stored is not None and stored != self.embedder.model_id and self._has_vectors(conn):
            raise self._model_error(stored)

    def _embed(self, texts: list[str], *, queries: bool = False) -> Vectors:
        embedder = self.embedder
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        raw = embed_queries(embedder, texts) if queries else embedder.embed(texts)
        vectors = np.ascontiguousarray(raw, dtype=np.float32)
        if vectors.shape != (len(texts), embedder.dim):
            raise EmbeddingError(
                f"embedder '{embedder.model_id}' returned shape {vectors.shape} for "
                f"{len(texts)} texts (expected dim {embedder.dim}): fix the embedder"
            )
        if not np.isfinite(vectors).all():
            bad = int(np.flatnonzero(~np.isfinite(vectors).all(axis=1))[0])
            raise EmbeddingError(
                f"embedder '{embedder.model_id}' returned NaN or infinite values for text "
                f"{bad} ({texts[bad][:40]!r}...): nothing was stored; fix the embedder"
            )
        return vectors

    def _stage(
        self,
        staged: Staged,
        part: str,
        chunks: Iterable[Chunk],
        check: Callable[[Chunk], None] = lambda _c: None,
    ) -> int:
        """Stage ``chunks`` in ``staged`` as ``part``: validated, encoded and
        embedded a batch at a time before any write (see
        :mod:`jw_rag.store._staging`); the model is checked before the first
        batch is embedded, and the default embedder not even created when there
        is nothing to embed. Returns how many rows were staged."""

        checked = False
        recent = PooledMembers()

        def embed(rows: list[ChunkRow]) -> Vectors:
            nonlocal checked
            if not checked:
                with self._reading() as conn:
                    self._check_model(conn)
                checked = True
            return recent.vectors(rows, lambda texts: self._embed(texts))

        return staged.stage(part, chunks, embed, check)

    def _query_vector(self, query: str) -> Vectors | None:
        """The query's vector, or ``None`` when the store holds no vectors yet.
        The last query's vector is kept, so a search and the delivery that
        follows it embed the query once (:meth:`query_vector`)."""
        with self._reading() as conn:
            stored = self._meta(conn).get("model_id")
        if stored is None:
            return None
        model = self.embedder.model_id
        if stored != model:
            raise self._model_error(stored)
        last = self._last_query
        if last is not None and last[0] == (model, query):
            return last[1]
        vector = self._embed([query], queries=True)[0].copy()
        vector.setflags(write=False)  # kept for the next call: nobody may change it
        self._last_query = ((model, query), vector)
        return vector

    def query_vector(self, query: str) -> Vectors | None:
        """The vector this store searches ``query`` with (``None`` while it holds
        no vectors); the last query's vector is reused, not embedded again. The
        answer is the caller's own copy: changing it changes no later search."""
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        _check_query_length(query)  # as search would: a 10 MB text is no query to embed
        vector = self._query_vector(query)
        return None if vector is None else vector.copy()

    # -- writing ------------------------------------------------------------

    def add(self, chunks: Iterable[Chunk]) -> int:
        """Add (or overwrite, by id) ``chunks``; returns how many were written."""
        self._refuse_read_only()
        with Staged() as staged:
            if not self._stage(staged, "", chunks):
                return 0
            _write_begins()
            with self._writing() as conn:
                sources: set[str] = set()
                for rows, vectors in staged.batches(""):
                    self._insert(conn, rows, vectors)
                    sources.update(r.chunk.source_id for r in rows)
                self._touch_sources(conn, sorted(sources))
            return staged.rows("")

    def _refuse_read_only(self) -> None:
        """A store opened for reading (or whose file cannot be written) refuses
        a write in its own one line before any chunk is embedded."""
        if self.read_only:
            with self._writing():  # raises that line
                pass

    def replace_source(
        self,
        source_id: str,
        chunks: Iterable[Chunk],
        *,
        content_hash: str | None = None,
        parents: Sequence[Chunk] = (),
        source_metadata: Mapping[str, Any] | None = None,
    ) -> bool:
        """Atomically replace every chunk and parent of ``source_id``.

        Returns ``False`` and writes nothing when ``content_hash`` equals the
        hash stored by the previous ingest of that source (and the store's
        vectors come from the embedder in use). ``chunks`` may be any iterable
        (a generator too): it is read once, a batch at a time, and embedded
        before the write transaction starts.
        """
        write = SourceWrite(source_id, chunks, content_hash, parents, source_metadata)
        return self.replace_sources([write])[0]

    def replace_sources(
        self, writes: Sequence[SourceWrite], *, progress: Callable[[str], None] | None = None
    ) -> list[bool]:
        """Replace several sources in one transaction: all are written or none.

        Each source is skipped (``False``) when unchanged, as in
        :meth:`replace_source`. Everything is checked and embedded before the
        write begins, a batch at a time, batches past the first waiting on disk
        (:mod:`jw_rag.store._staging`): the write costs the memory of one
        batch of chunks, however many sources it holds. Each source's chunks
        are read once. ``progress`` is called with each source id once its
        vectors are ready (or it is found unchanged). Source ids must be
        distinct, and chunk ids unique across the batch."""
        writes = list(writes)
        metas = [_check_write(w) for w in writes]
        _check_sources(writes)
        with self._reading() as conn:
            model = self._meta(conn).get("model_id")
            stored = {w.source_id: self._stored_hash(conn, w.source_id) for w in writes}
        same_model = model is None or model == self.embedder.model_id
        owner: dict[str, str] = {}
        with Staged() as staged:
            changed: set[str] = set()
            for w in writes:
                check = _chunk_check(w.source_id, owner)
                unchanged = w.content_hash is not None and stored[w.source_id] == w.content_hash
                if unchanged and same_model:
                    for c in w.chunks:  # not written, but its ids are still the batch's
                        check(c)
                else:
                    if not changed:
                        self._refuse_read_only()  # before any model time is spent
                    self._stage(staged, w.source_id, w.chunks, check)
                    changed.add(w.source_id)
                if progress is not None:
                    progress(w.source_id)
            if not changed:
                return [False] * len(writes)
            _write_begins()
            written: set[str] = set()
            with self._writing() as conn:
                for w, meta_json in sorted(zip(writes, metas, strict=True), key=_by_source):
                    if w.source_id not in changed:
                        continue
                    now = self._claim_source(conn, w.source_id, staged.rows(w.source_id) > 0)
                    if w.content_hash is not None and now == w.content_hash and same_model:
                        continue  # another process ingested it meanwhile
                    if w.keep_origin:
                        self._refuse_other_origin(conn, w)
                    self._delete_source_rows(conn, w.source_id)
                    for rows, vectors in staged.batches(w.source_id):
                        self._insert(conn, rows, vectors)
                    self._write_parents(conn, w.parents)
                    self._record_source(conn, w.source_id, w.content_hash, meta_json)
                    written.add(w.source_id)
        return [w.source_id in written for w in writes]

    def _refuse_other_origin(self, conn: ConnT, w: SourceWrite) -> None:
        """Inside the write: the source stored meanwhile from another origin is refused."""
        origin = (w.source_metadata or {}).get("origin")
        row = self._source_row(conn, w.source_id)
        stored = row.metadata.get("origin") if row is not None else None
        if isinstance(origin, str) and isinstance(stored, str) and stored and stored != origin:
            raise IngestError(
                f"source {w.source_id!r} was ingested from {stored} while this ingest ran; "
                f"refusing to replace it with {origin}, nothing was stored: give this one "
                "another id (--source-id / source_id=; a folder's files take theirs from the "
                "folder's name) or replace it (--replace / replace=True)"
            )

    def delete_source(self, source_id: str) -> int:
        """Remove a source's chunks, window units, vectors, index entries and
        parents; returns the number of chunks (window units not counted).
        ``source_id`` names a stored id equal to it under Unicode NFC, as in
        :meth:`matching_sources` (refused when it names several)."""
        _check_source_id(source_id)
        try:
            with self._writing() as conn:
                source_id = self._one_source(conn, source_id)
                self._lock_source(conn, source_id)  # a re-ingest under way commits first
                known = self._source_row(conn, source_id) is not None
                n = self._delete_source_rows(conn, source_id)
                if not known and not n:
                    raise _Unchanged  # nothing of it stored: the store stays as it was
                self._forget_source(conn, source_id)
        except _Unchanged:
            return 0
        return n

    def delete_sources(self, source_ids: Sequence[str]) -> list[int]:
        """:meth:`delete_source` of each of ``source_ids`` in one transaction:
        all of them or, on any failure, none. Every id must name a stored
        source (as :meth:`matching_sources` reads it): when one does not, a
        one-line :class:`StoreError` names it and nothing is deleted. Returns
        the chunks deleted per id, in the order given. Sources are locked in
        id order, so deletes and batch ingests of the same sources wait for
        each other instead of deadlocking."""
        ids = _check_source_ids(source_ids)
        if not ids:
            return []
        with self._writing() as conn:
            found = self._matches(conn, ids)
            missing = [i for i in ids if not found[i]]
            if missing:
                named = ", ".join(repr(i) for i in missing[:5])  # a long id is cut when shown
                more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
                untouched = "; nothing was deleted" if len(ids) > 1 else ""
                raise StoreError(
                    f"no source {named}{more} in {self._label}{untouched}: `jw rag stats` "
                    "lists the stored source ids"
                )
            stored = {i: self._one_of(i, found[i]) for i in ids}
            _check_distinct(stored)
            for source_id in sorted(stored.values()):
                self._lock_source(conn, source_id)  # a re-ingest under way commits first
            counts = [self._delete_source_rows(conn, stored[i]) for i in ids]
            for i in ids:
                self._forget_source(conn, stored[i])
        return counts

    def add_parents(self, parents: Sequence[Chunk]) -> int:
        """Store parent chunks (kept by id, never embedded or searched)."""
        check_unique(parents, "parent")
        for p in parents:
            dump_metadata(p)
        if not parents:
            return 0
        with self._writing() as conn:
            self._write_parents(conn, parents)
        return len(parents)

    # -- reading ------------------------------------------------------------

    def _in_order(self, ids: Sequence[str], parents: bool) -> list[Chunk]:
        wanted = _check_ids(ids)
        if not wanted:
            return []
        with self._reading() as conn:
            found = self._fetch(conn, wanted, parents)
        return [found[i] for i in wanted if i in found]

    def get(self, ids: Sequence[str]) -> list[Chunk]:
        """Chunks for ``ids``, in the order asked for; unknown ids are skipped."""
        return self._in_order(ids, parents=False)

    def get_parents(self, ids: Sequence[str]) -> list[Chunk]:
        """Parent chunks for ``ids``, in the order asked for; unknown ids are skipped."""
        return self._in_order(ids, parents=True)

    def vectors(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The stored (L2-normalised) embedding of each chunk of ``ids`` that
        exists, by id in the order asked for; nothing is embedded."""
        wanted = _check_ids(ids)
        if not wanted:
            return {}
        with self._reading() as conn:
            stored = self._meta(conn).get("model_id")
            if stored is not None and stored != self.embedder.model_id:
                raise self._model_error(stored)
            found = self._fetch_vectors(conn, wanted)
        return {i: found[i] for i in wanted if i in found}

    def get_source(self, source_id: str) -> dict[str, Any] | None:
        """What the store knows about a source, or ``None``."""
        _check_source_id(source_id)
        with self._reading() as conn:
            row = self._source_row(conn, source_id)
        return None if row is None else {"source_id": source_id, **row._asdict()}

    def source_languages(self, source_id: str) -> list[str]:
        """The languages a source's chunks record, sorted: a language is kept
        per chunk (given at ingest, else detected), so one for most sources,
        several for a source of mixed text; ``[]`` when none is known or the
        source is not stored."""
        _check_source_id(source_id)
        with self._reading() as conn:
            return self._source_languages(conn, source_id)

    def sources_below(self, root: str) -> list[tuple[str, str]]:
        """``(source_id, origin)`` of every source with chunks whose recorded
        origin (``source_metadata["origin"]``, a string: the file or URL it was
        read from) starts with ``root``, ordered by id: one query (on
        PostgreSQL, served by an index on the origin), not one per source."""
        if not isinstance(root, str) or not root:
            raise ConfigError(f"root must be a non-empty str, got {shown_value(root)}")
        if "\x00" in root:  # PostgreSQL text cannot hold one: its error blamed the server
            raise ConfigError(
                f"root {shown_value(root)} contains a NUL character (\\x00), which no "
                "file path or URL holds: remove it"
            )
        check_text(root, "root")
        with self._reading() as conn:
            return sorted(self._origins_below(conn, root))

    def matching_sources(self, source_id: str) -> list[str]:
        """The stored source ids ``source_id`` names: itself when it is stored
        as given, else every stored id equal to it under Unicode NFC (ids are
        stored as given, so ``café`` typed in NFC names a source whose id came
        in NFD from a macOS file name, and the reverse); ``[]`` when none.
        Search filters and :meth:`delete_source` read ``source_id`` this way."""
        _check_source_id(source_id)
        with self._reading() as conn:
            return self._matching(conn, source_id)

    def _matching(self, conn: ConnT, source_id: str) -> list[str]:
        return self._matches(conn, [source_id])[source_id]

    def _matches(self, conn: ConnT, ids: list[str]) -> dict[str, list[str]]:
        """:meth:`matching_sources` of each of ``ids``, with one lookup of the
        ids, one of their NFC and NFD forms, and (only when some non-ASCII id
        is still unmatched: a form mixing both) one pass over the stored ids."""
        stored = set(self._source_ids(conn, list(dict.fromkeys(ids))))
        found: dict[str, list[str]] = {i: [i] for i in ids if i in stored}
        rest = [i for i in dict.fromkeys(ids) if i not in stored and not i.isascii()]
        if rest:
            wanted = {i: unicodedata.normalize("NFC", i) for i in rest}
            forms = {f for w in wanted.values() for f in (w, unicodedata.normalize("NFD", w))}
            by_form: dict[str, set[str]] = {}
            for s in self._source_ids(conn, sorted(forms)):
                by_form.setdefault(unicodedata.normalize("NFC", s), set()).add(s)
            if any(w not in by_form for w in wanted.values()):
                for s in self._source_ids(conn, None):
                    if not s.isascii():
                        by_form.setdefault(unicodedata.normalize("NFC", s), set()).add(s)
            found |= {i: sorted(by_form.get(wanted[i], ())) for i in rest}
        return {i: found.get(i, []) for i in ids}

    def _one_source(self, conn: ConnT, source_id: str) -> str:
        """The one stored id ``source_id`` names (itself when none is)."""
        return self._one_of(source_id, self._matching(conn, source_id))

    @staticmethod
    def _one_of(source_id: str, found: list[str]) -> str:
        """The one stored id of ``found`` (:meth:`_matches` of ``source_id``),
        refused when they are several; ``source_id`` when there is none."""
        if len(found) > 1:
            listed = ", ".join(ascii(f) for f in found[:5])
            raise ConfigError(
                f"source {shown_value(source_id)} names {len(found)} stored ids that differ only "
                f"in Unicode form ({listed}): give the exact id, as `jw rag stats --json` or "
                "list_sources shows it"
            )
        return found[0] if found else source_id

    def _named_sources(self, filters: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """``filters`` with each ``source_id`` value widened to the stored ids
        it names (:meth:`matching_sources`); unchanged without one."""
        wanted = (filters or {}).get("source_id")
        if wanted is None:
            return filters
        ids = [wanted] if isinstance(wanted, str) else list(wanted)
        with self._reading() as conn:
            found = self._matches(conn, ids)
        named = [m for i in ids for m in (found[i] or [i])]
        return {**(filters or {}), "source_id": list(dict.fromkeys(named))}

    # -- search -------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 10,
        mode: SearchMode = "dense",
        filters: Mapping[str, Any] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` best chunks for ``query``; ``mode`` is ``dense`` (cosine
        similarity), ``bm25`` (the backend's BM25-like score, higher is
        better) or ``hybrid`` (reciprocal rank fusion of both, see
        :mod:`jw_rag.store._fusion`)."""
        _check_search(query, k, mode)
        f = self._filter(filters)  # checked before any id is looked up
        if k == 0 or f.empty:
            return []
        if (filters or {}).get("source_id") is not None:
            f = self._filter(self._named_sources(filters))
        qv = None if mode == "bm25" else self._query_vector(query)
        with self._reading() as conn:
            ranked = self._rank(conn, query, qv, k, mode, f)
            found = self._chunks_by_rowid(conn, [r for r, _ in ranked])
        kept = [(rowid, score) for rowid, score in ranked if rowid in found]  # a damaged index's
        return [  # row without its chunk (a hand-edited file) is no hit, not a KeyError
            SearchHit(chunk=found[rowid], score=score, rank=rank)
            for rank, (rowid, score) in enumerate(kept, start=1)
        ]

    def _rank(
        self, conn: ConnT, query: str, qv: Vectors | None, k: int, mode: str, f: SqlFilter
    ) -> Ranked:
        def dense(n: int) -> Ranked:
            return [] if qv is None else self._dense(conn, qv, n, f)

        if mode == "dense":
            return dense(k)
        if mode == "bm25":
            return self._bm25(conn, query, k, f)
        depth = max(k * 4, HYBRID_DEPTH)
        rankings = [[r for r, _ in dense(depth)], [r for r, _ in self._bm25(conn, query, depth, f)]]
        return reciprocal_rank_fusion(rankings, k)

    # -- stats --------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        """Counts by source, language, chunker and chunker version, plus the
        embedder, parents and the backend's own entries (where the store is,
        its size on disk, its schema version)."""
        with self._reading() as conn:
            meta = self._meta(conn)
            out = self._describe(conn)
            counts = self._counts(conn)
        kinds = set(unit_kinds(meta))
        chunkers: dict[str, int] = {}
        versions: dict[str, dict[str, int]] = {}
        for name, version, n in counts.chunker_versions:
            if name in kinds:
                continue
            key = "unknown" if name is None else name
            chunkers[key] = chunkers.get(key, 0) + n
            versions.setdefault(name or "unknown", {})[version or "unknown"] = n
        units: dict[str, int] = {}
        for kind, _, _, n in counts.units:
            units[kind] = units.get(kind, 0) + n
        per_source = _without_units(counts.per_source, [(s, n) for _, s, _, n in counts.units])
        return out | {
            "model_id": meta.get("model_id"),
            "dim": int(meta["dim"]) if "dim" in meta else None,
            "chunks": sum(per_source.values()),
            "windows": units.get(_WINDOW_UNIT, 0),
            "extra_units": units,
            "sources": counts.sources,
            "parents": counts.parents,
            "per_source": per_source,
            "languages": _without_units(
                counts.languages, [(lang, n) for _, _, lang, n in counts.units]
            ),
            "chunkers": chunkers,
            "chunker_versions": versions,
        }
