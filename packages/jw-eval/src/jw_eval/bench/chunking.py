"""Chunk a benchmark document with one variant; every chunk carries its span."""

from __future__ import annotations

from collections.abc import Callable

from jw_eval.bench.peers import peer_ranges
from jw_eval.bench.variants import VARIANT_OPTIONS, VariantSpec
from jw_eval.bundled import bundled_location
from jw_eval.datasets.model import BenchDocument
from jw_eval.spans import DocRange, doc_range_to_span, span_to_doc_range
from jw_rag.chunk_ids import link_in_order, unit_id
from jw_rag.chunkers import get_chunker
from jw_rag.chunkers.protocol import Chunker
from jw_rag.embed.protocol import Embedder
from jw_rag.errors import ConfigError
from jw_rag.ingest.pipeline import add_embed_prefix, chunk_document_with_parents
from jw_rag.model import Chunk, Document
from jw_rag.units import DEFAULT_UNITS, UnitRules

__all__ = ["LLM_BENCH_DEFAULTS", "VariantChunker", "chunk_range"]

#: The ``llm`` variant's defaults: the rule-based provider and the bundled answer cache.
LLM_BENCH_DEFAULTS = {
    "provider": "heuristic",
    "cache_dir": str(bundled_location("llm_cache")),
}


def chunk_range(doc: BenchDocument, chunk: Chunk) -> DocRange:
    """The chunk's range in the document text, from ``metadata["span"]``."""
    return span_to_doc_range(doc.doc_id, doc.offsets, chunk.metadata["span"])


class VariantChunker:
    """Builds the chunker (or peer) of a :class:`VariantSpec` once, then chunks documents."""

    def __init__(
        self, spec: VariantSpec, embedder: Embedder | None = None,
        units: UnitRules = DEFAULT_UNITS,
    ) -> None:  # fmt: skip
        self.spec = spec
        self.units = spec.units if spec.units is not None else units
        self._chunker: Chunker | None = None
        self._peer: Callable[[str], list[tuple[int, int]]] | None = None
        if spec.peer:
            self._peer = peer_ranges(spec.name, spec.size, embedder)
        else:
            defaults = LLM_BENCH_DEFAULTS if spec.name == "llm" else {}
            try:
                self._chunker = get_chunker(spec.name, **{**defaults, **spec.options})
            except ConfigError as exc:
                if "has no option" not in str(exc):
                    raise
                raise ConfigError(
                    f"variant {spec.label!r}: {exc}; a variant also takes "
                    f"{', '.join(VARIANT_OPTIONS)}"
                ) from None

    def chunk(self, doc: BenchDocument) -> list[Chunk]:
        """The units the variant indexes for ``doc`` (windows aside)."""
        return self.chunk_with_parents(doc)[0]

    def chunk_with_parents(self, doc: BenchDocument) -> tuple[list[Chunk], list[Chunk]]:
        """``(units, parents)`` as ingestion makes them: our chunkers go through
        :func:`jw_rag.ingest.pipeline.chunk_document_with_parents` (retrieval
        units, title and heading prefix); a peer's chunks get the same prefix."""
        if self._chunker is None:
            assert self._peer is not None
            chunks = self._peer_chunks(doc, self._peer(doc.text))
            add_embed_prefix(chunks, doc.title, self.units.prefix_weight)
            return chunks, []
        as_ingested = Document(doc.doc_id, doc.paragraphs, doc.title, doc.language)
        return chunk_document_with_parents(as_ingested, chunker=self._chunker, units=self.units)

    def _peer_chunks(self, doc: BenchDocument, ranges: list[tuple[int, int]]) -> list[Chunk]:
        chunks: list[Chunk] = []
        for index, (a, b) in enumerate(ranges):
            span = doc_range_to_span(doc.offsets, doc.lengths, a, b)
            para_ids = [
                p.id if p.id is not None else span.start_para + i
                for i, p in enumerate(doc.paragraphs[span.start_para : span.end_para + 1])
            ]
            chunks.append(
                Chunk(
                    id=unit_id(doc.doc_id, self.spec.label, f"{a}-{b}"),
                    text=doc.text[a:b],
                    source_id=doc.doc_id,
                    metadata={
                        "chunker": self.spec.label,
                        "chunker_version": "peer",
                        "language": doc.language,
                        "para_ids": para_ids,
                        "span": span.to_dict(),
                        "merge_reason": None,
                        "closure_marker": None,
                        "chunk_index": index,
                    },
                )
            )
        link_in_order(chunks)
        return chunks
