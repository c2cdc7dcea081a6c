"""Chunks to table rows and back, validated before any transaction starts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jw_core import normalize_language
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk
from jw_rag.store._tokens import analyse

__all__ = [
    "ChunkRow",
    "check_unique",
    "decode_chunk",
    "dump_metadata",
    "embed_text",
    "encode_chunks",
]


def embed_text(chunk: Chunk) -> str:
    """What gets embedded (and indexed for BM25): ``embed_prefix + "\\n" + text``
    when the chunk has a non-empty ``metadata["embed_prefix"]``, else its text."""
    prefix = chunk.metadata.get("embed_prefix")
    return f"{prefix}\n{chunk.text}" if prefix else chunk.text


def dump_metadata(chunk: Chunk) -> str:
    try:
        return json.dumps(chunk.metadata, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"chunk {chunk.id!r} has metadata that is not JSON ({exc}): "
            "use only str, int, float, bool, None, list and dict values"
        ) from None


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """One chunk ready to insert: its column values, embedding input and FTS tokens."""

    chunk: Chunk
    ord: int
    metadata_json: str
    language: str | None
    embed_input: str
    tokens: str

    def columns(self, rowid: int) -> tuple[Any, ...]:
        m = self.chunk.metadata
        return (
            rowid,
            self.chunk.id,
            self.chunk.source_id,
            self.ord,
            self.chunk.text,
            self.metadata_json,
            self.language,
            _opt_str(m.get("chunker")),
            _opt_str(m.get("chunker_version")),
            _opt_str(m.get("parent_id")),
        )


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _check_chunk(chunk: Any) -> Chunk:
    if not isinstance(chunk, Chunk):
        raise ConfigError(f"stores take Chunk objects, got {type(chunk).__name__}")
    if not isinstance(chunk.id, str) or not chunk.id:
        raise ConfigError(f"chunk id must be a non-empty string, got {chunk.id!r}")
    if not isinstance(chunk.text, str) or not isinstance(chunk.source_id, str):
        raise ConfigError(f"chunk {chunk.id!r}: text and source_id must be strings")
    if not isinstance(chunk.metadata, dict):
        raise ConfigError(f"chunk {chunk.id!r}: metadata must be a dict")
    return chunk


def check_unique(chunks: Sequence[Chunk], what: str = "chunk") -> None:
    seen: set[str] = set()
    for c in chunks:
        _check_chunk(c)
        if c.id in seen:
            raise ConfigError(f"{what} id {c.id!r} appears twice in one call: ids must be unique")
        seen.add(c.id)


def encode_chunks(chunks: Sequence[Chunk]) -> list[ChunkRow]:
    """Validate ``chunks`` and compute everything their rows need."""
    check_unique(chunks)
    rows: list[ChunkRow] = []
    for position, c in enumerate(chunks):
        lang = normalize_language(_opt_str(c.metadata.get("language")))
        ord_ = c.metadata.get("chunk_index")
        text = embed_text(c)
        rows.append(
            ChunkRow(
                chunk=c,
                ord=ord_ if isinstance(ord_, int) and not isinstance(ord_, bool) else position,
                metadata_json=dump_metadata(c),
                language=lang,
                embed_input=text,
                tokens=analyse(text, lang),
            )
        )
    return rows


def decode_chunk(chunk_id: str, source_id: str, text: str, metadata_json: str) -> Chunk:
    return Chunk(id=chunk_id, text=text, source_id=source_id, metadata=json.loads(metadata_json))
