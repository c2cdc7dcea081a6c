"""The store protocol: what every index backend (SQLite, PostgreSQL) offers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from jw_rag.defaults import SearchMode
from jw_rag.embed.protocol import Embedder
from jw_rag.model import EXTRA_UNIT_KEY, Chunk

__all__ = [
    "EXTRA_UNIT_KEY",
    "DeletesSources",
    "ListsSourcesBelow",
    "SearchHit",
    "SearchMode",
    "SourceWrite",
    "Store",
]


@dataclass(slots=True)
class SearchHit:
    """One search result: the chunk, its score and rank (1-based) for this query.

    ``expanded`` holds what retrieval delivered for the hit: every chunk, in
    reading order, the hit's own chunk included (a ``"parent"`` delivery holds
    the parent instead); empty for raw ``Store.search`` results. Its context
    is ``expanded`` without ``chunk``.
    """

    chunk: Chunk
    score: float
    rank: int
    expanded: list[Chunk] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SourceWrite:
    """One source of a batch write (:meth:`StoreCore.replace_sources`): the same
    arguments as ``Store.replace_source`` (``chunks`` is read once, so it may
    be a generator)."""

    source_id: str
    chunks: Iterable[Chunk]
    content_hash: str | None = None
    parents: Sequence[Chunk] = ()
    source_metadata: Mapping[str, Any] | None = None
    #: Refuse the whole write (one-line ``IngestError``, nothing written) when,
    #: at the moment of writing, the source is stored from another origin than
    #: ``source_metadata["origin"]`` (another process ingested another file
    #: under this id meanwhile); False overwrites it.
    keep_origin: bool = False


@runtime_checkable
class Store(Protocol):
    """A persistent index of chunks.

    ``filters`` keys: ``source_id``, ``language``, ``chunker``, ``page``
    (values are a scalar or a list of accepted values; ``page`` matches
    chunks whose ``metadata["pages"]`` contains it). Unknown keys raise
    ``ConfigError``.

    The text that gets embedded for a chunk is ``metadata["embed_prefix"] +
    "\\n" + text`` when the chunk has an ``embed_prefix`` (e.g. its heading
    path), else its text; the stored text is always ``chunk.text``. A chunk
    that also has ``metadata["prefix_weight"]`` *w* (0 to 10; ingestion sets
    it) is embedded without the prefix, and its vector is ``normalise(t + w *
    p)`` of its text's and its prefix's unit vectors, each distinct prefix
    embedded once per write (:mod:`jw_rag.store._pooling`). BM25 reads the
    prefix with the text either way.

    A chunk's ``metadata[EXTRA_UNIT_KEY]`` (when set) names the kind of unit it is;
    the store keeps it without reading it, except that ``stats`` counts the
    rows of each unit kind apart from the chunks (``"extra_units"``).

    Optional methods, which the built-in stores have and callers use when a
    store offers them (a store without them still is a ``Store``; each is a
    protocol of its own, so ``isinstance(store, DeletesSources)`` tells):
    :class:`DeletesSources` (several sources deleted in one transaction;
    without it :func:`jw_rag.store.delete_sources` deletes one at a time) and
    :class:`ListsSourcesBelow` (the sources read from files below a folder, in
    one query; without it a folder re-ingest reads each source's row).
    """

    @property
    def embedder(self) -> Embedder:
        """The embedder that made (and searches) this store's vectors."""
        ...

    def add(self, chunks: Iterable[Chunk]) -> int: ...

    def replace_source(
        self,
        source_id: str,
        chunks: Iterable[Chunk],
        *,
        content_hash: str | None = None,
        parents: Sequence[Chunk] = (),
        source_metadata: Mapping[str, Any] | None = None,
    ) -> bool:
        """Atomically replace every chunk and parent of ``source_id`` with
        ``chunks`` and ``parents``.

        Returns ``False`` (and changes nothing) when ``content_hash`` equals
        the hash stored for that source by the previous ingest. ``chunks`` is
        read once, so a generator does: a store holds one batch at a time.
        """
        ...

    def replace_sources(
        self, writes: Sequence[SourceWrite], *, progress: Callable[[str], None] | None = None
    ) -> list[bool]:
        """:meth:`replace_source` for each of ``writes``, one ``bool`` each;
        ``progress`` gets each source id once it is written or found
        unchanged. The built-in stores write them in one transaction; a store
        without transactions can write them with
        :func:`jw_rag.store.write_one_at_a_time`."""
        ...

    def add_parents(self, parents: Sequence[Chunk]) -> int:
        """Store parent chunks by id: context for parent-child retrieval,
        never embedded or searched."""
        ...

    def get_parents(self, ids: Sequence[str]) -> list[Chunk]: ...

    def delete_source(self, source_id: str) -> int: ...

    def get_source(self, source_id: str) -> dict[str, Any] | None:
        """What the store knows about ``source_id`` (``content_hash``,
        ``metadata``, ``ingested_at``, ``chunks``), or ``None``."""
        ...

    def matching_sources(self, source_id: str) -> list[str]:
        """The stored source ids ``source_id`` names: itself when stored as
        given, else those equal to it under Unicode NFC; ``[]`` when none.
        The ``source_id`` search filter and ``delete_source`` read ids so."""
        ...

    def search(
        self,
        query: str,
        k: int = 10,
        mode: SearchMode = "dense",
        filters: Mapping[str, Any] | None = None,
    ) -> list[SearchHit]: ...

    def get(self, ids: Sequence[str]) -> list[Chunk]: ...

    def query_vector(self, query: str) -> npt.NDArray[np.float32] | None:
        """The vector ``search`` compares chunks with for ``query`` (``None``
        while the store holds no vectors); asking again for the last query
        embeds nothing, so delivery after a search costs no second embedding."""

    def vectors(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The stored (L2-normalised) embedding of each chunk of ``ids`` that
        exists (missing ids are absent), by id; nothing is embedded."""
        ...

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


@runtime_checkable
class DeletesSources(Protocol):
    """A store that deletes several sources in one transaction (optional; see :class:`Store`)."""

    def delete_sources(self, source_ids: Sequence[str]) -> list[int]:
        """``delete_source`` of each of ``source_ids``, all or none; the chunks
        deleted per id, in order. An id naming no stored source deletes
        nothing (a one-line ``StoreError`` names it)."""
        ...


@runtime_checkable
class ListsSourcesBelow(Protocol):
    """A store that finds the sources read from files below a folder in one
    query (optional; see :class:`Store`)."""

    def sources_below(self, root: str) -> list[tuple[str, str]]:
        """``(source_id, origin)`` of every source with chunks whose recorded
        origin (``source_metadata["origin"]``, a string) starts with ``root``,
        ordered by id."""
        ...
