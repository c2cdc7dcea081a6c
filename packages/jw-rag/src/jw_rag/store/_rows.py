"""Chunks to table rows and back, validated before any transaction starts."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jw_core import normalize_language
from jw_rag.errors import ConfigError, StoreError, shown_value
from jw_rag.model import EXTRA_UNIT_KEY, MAX_PREFIX_WEIGHT, Chunk, is_prefix_weight

__all__ = [
    "check_id",
    "check_text",
    "EXTRA_UNIT_KEY",
    "UNIT_META_PREFIX",
    "ChunkRow",
    "unit_kinds",
    "check_source_metadata",
    "check_unique",
    "decode_chunk",
    "dump_metadata",
    "embed_text",
    "encode_chunks",
    "prefix_weight",
]


def embed_text(chunk: Chunk) -> str:
    """What gets indexed for BM25, and embedded for a chunk without a
    ``prefix_weight``: ``embed_prefix + "\\n" + text`` when the chunk has a
    non-empty ``metadata["embed_prefix"]``, else its text. The vectors of any
    chunks are :func:`jw_rag.store.embed_chunks`'s."""
    prefix = chunk.metadata.get("embed_prefix")
    return f"{prefix}\n{chunk.text}" if prefix else chunk.text


def prefix_weight(chunk: Chunk) -> float:
    """The weight at which the chunk's ``embed_prefix`` is mixed into its
    vector (:mod:`jw_rag.store._pooling`); 0 when it has no prefix or no weight
    (the prefix is then embedded with the text); 0 too for a blank prefix,
    whose own vector would mix nothing of the title into the chunk's."""
    weight = chunk.metadata.get("prefix_weight")
    prefix = chunk.metadata.get("embed_prefix")
    if not weight or not prefix or (isinstance(prefix, str) and not prefix.strip()):
        return 0.0
    return float(weight)


def _check_prefix_weight(chunk: Chunk) -> None:
    weight = chunk.metadata.get("prefix_weight")
    if weight is None:
        return
    if not is_prefix_weight(weight):
        raise ConfigError(
            f"chunk {shown_value(chunk.id)}: metadata['prefix_weight'] is {shown_value(weight)} "
            f"({type(weight).__name__}); it is an int or float from 0 to {MAX_PREFIX_WEIGHT:g} "
            "(how much of the embed_prefix's vector is mixed into the chunk's), or absent"
        )
    prefix = chunk.metadata.get("embed_prefix")
    if weight and prefix is not None and not isinstance(prefix, str):
        raise ConfigError(
            f"chunk {shown_value(chunk.id)}: metadata['embed_prefix'] must be a string, "
            f"got {type(prefix).__name__}"
        )


def dump_metadata(chunk: Chunk) -> str:
    try:
        return json.dumps(chunk.metadata, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"chunk {chunk.id!r} has metadata that is not JSON ({exc}): "
            "use only str, int, float, bool, None, list and dict values"
        ) from None


#: Store metadata keys recording each unit kind written (``extra_unit:<kind>``).
UNIT_META_PREFIX = "extra_unit:"
#: The unit kind stores written before kinds were recorded hold, by its chunker name.
_RECORDED_BEFORE = ("window",)
#: What a unit kind may be called (it becomes a chunker column value and a metadata key).
_UNIT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


def unit_kinds(meta: Mapping[str, str]) -> tuple[str, ...]:
    """The unit kinds a store holds rows of, from its metadata ``meta``."""
    recorded = (k.removeprefix(UNIT_META_PREFIX) for k in meta if k.startswith(UNIT_META_PREFIX))
    return tuple(sorted({*_RECORDED_BEFORE, *recorded}))


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """One chunk ready to insert: its column values and its embedding input."""

    chunk: Chunk
    ord: int
    metadata_json: str
    language: str | None
    embed_input: str

    @property
    def unit(self) -> str | None:
        """The unit kind the chunk is (:data:`EXTRA_UNIT_KEY`), if any."""
        kind = self.chunk.metadata.get(EXTRA_UNIT_KEY)
        return kind if isinstance(kind, str) and kind else None

    def fields(self) -> tuple[Any, ...]:
        """``id, source_id, ord, text, metadata, language, chunker,
        chunker_version, parent_id``: the columns every backend stores (a
        unit's chunker column is its unit kind)."""
        m = self.chunk.metadata
        return (
            self.chunk.id,
            self.chunk.source_id,
            self.ord,
            self.chunk.text,
            self.metadata_json,
            self.language,
            _opt_str(self.unit or m.get("chunker")),
            _opt_str(m.get("chunker_version")),
            _opt_str(m.get("parent_id")),
        )


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _strings(value: Any) -> Iterator[str]:
    """Every string in ``value`` (a string, or mappings and lists of them), keys too."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _has_nul(value: Any) -> bool:
    return any("\x00" in s for s in _strings(value))


def check_id(value: Any, what: str) -> Any:
    """``value`` (a source or chunk id, or a filter value) as it is, unless it
    is a string holding a NUL character: no store keeps one (PostgreSQL text
    cannot), so every way an id enters a store is checked here, alike on
    every backend."""
    if not isinstance(value, str):
        return value
    if "\x00" in value:
        raise StoreError(
            f"{what} {shown_value(value)} contains a NUL character (\\x00), which no store "
            "keeps: ids cannot contain NUL; remove it from the id"
        )
    if not value.isascii():
        check_text(value, what)
    return value


def check_text(value: str, what: str) -> None:
    """Refuse ``value`` when it holds a lone surrogate (bytes that are not
    UTF-8, decoded with ``surrogateescape``): no store can encode it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigError(
            f"{what} {shown_value(value)} holds {shown_value(value[exc.start])}, which is not "
            "text (bytes that are not UTF-8?): pass it as UTF-8 text"
        ) from None


def _check_chunk(chunk: Any, what: str) -> Chunk:
    if not isinstance(chunk, Chunk):
        raise ConfigError(f"stores take Chunk objects, got {type(chunk).__name__}")
    if not isinstance(chunk.id, str) or not chunk.id:
        raise ConfigError(f"chunk id must be a non-empty string, got {chunk.id!r}")
    if not isinstance(chunk.text, str) or not isinstance(chunk.source_id, str):
        raise ConfigError(f"chunk {chunk.id!r}: text and source_id must be strings")
    check_id(chunk.id, f"{what} id")
    check_id(chunk.source_id, f"the source id of {what} {shown_value(chunk.id)}")
    if not isinstance(chunk.metadata, dict):
        raise ConfigError(f"chunk {chunk.id!r}: metadata must be a dict")
    unit = chunk.metadata.get(EXTRA_UNIT_KEY)
    if unit is not None and not (isinstance(unit, str) and _UNIT_NAME.fullmatch(unit)):
        raise ConfigError(
            f"chunk {chunk.id!r}: metadata[{EXTRA_UNIT_KEY!r}] is {repr(unit)[:40]}; a unit "
            "kind is a name of 1 to 40 letters, digits, '_' or '-' (like 'window'), or absent"
        )
    _check_prefix_weight(chunk)
    try:
        return _check_strings(chunk, what)
    except RecursionError:
        raise ConfigError(
            f"{what} {shown_value(chunk.id)}: its metadata refers to itself or is nested too "
            "deeply; give it plain dicts and lists a few levels deep"
        ) from None


def _check_strings(chunk: Chunk, what: str) -> Chunk:
    """``chunk`` unless its text, ids or metadata hold a NUL or a lone surrogate."""
    if _plain_text(chunk):
        return chunk
    if _has_nul((chunk.id, chunk.source_id, chunk.text, chunk.metadata)):
        raise StoreError(
            f"{what} {chunk.id!r} contains a NUL character (\\x00), which no store keeps: "
            "remove control characters from its text, ids and metadata before storing it"
        )
    for value in _strings((chunk.text, chunk.metadata)):  # before any model time is spent
        if not value.isascii():
            check_text(value, f"{what} {shown_value(chunk.id)}: its text or metadata")
    return chunk


def _plain_text(chunk: Chunk) -> bool:
    """True when the chunk's text and every string of its metadata are free of
    NUL characters and lone surrogates, found from one JSON dump of the
    metadata instead of a walk over each of its strings (a window unit's
    metadata lists dozens of ids). False means "look string by string"
    (:func:`_check_chunk`): the dump escapes a NUL as ``\\u0000``, which a
    string may also hold literally, and refuses what is not JSON."""
    try:
        blob = json.dumps(chunk.metadata, ensure_ascii=False)
    except (TypeError, ValueError):
        return False
    for text in (chunk.text, blob):
        if "\x00" in text or not (text.isascii() or _encodes(text)):
            return False
    return "\\u0000" not in blob


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_source_metadata(source_id: str, metadata: Mapping[str, Any] | None) -> str:
    """``metadata`` of ``source_id`` as JSON, refused when no store could keep it."""
    check_id(source_id, "source id")
    if _has_nul((source_id, metadata)):
        raise StoreError(
            f"source {source_id!r} has a NUL character (\\x00) in its id or metadata, "
            "which no store keeps: remove control characters before storing it"
        )
    return json.dumps(dict(metadata or {}), ensure_ascii=False, sort_keys=True)


def check_unique(
    chunks: Sequence[Chunk], what: str = "chunk", seen: set[str] | None = None
) -> None:
    """Check every chunk (type, fields, no NUL) and that no id appears twice
    (nor is in ``seen``, the ids of earlier batches of the same call, which
    this extends)."""
    seen = set() if seen is None else seen
    for c in chunks:
        _check_chunk(c, what)
        if c.id in seen:
            raise ConfigError(f"{what} id {c.id!r} appears twice in one call: ids must be unique")
        seen.add(c.id)


def encode_chunks(
    chunks: Sequence[Chunk], *, seen: set[str] | None = None, first: int = 0
) -> list[ChunkRow]:
    """Validate ``chunks`` and compute everything their rows need; ``seen`` and
    ``first`` continue a call given in batches (the ids so far, the position
    of this batch's first chunk)."""
    check_unique(chunks, seen=seen)
    rows: list[ChunkRow] = []
    for position, c in enumerate(chunks, start=first):
        ord_ = c.metadata.get("chunk_index")
        rows.append(
            ChunkRow(
                chunk=c,
                ord=ord_ if isinstance(ord_, int) and not isinstance(ord_, bool) else position,
                metadata_json=dump_metadata(c),
                language=normalize_language(_opt_str(c.metadata.get("language"))),
                embed_input=embed_text(c),
            )
        )
    return rows


def decode_chunk(chunk_id: str, source_id: str, text: str, metadata_json: str) -> Chunk:
    return Chunk(id=chunk_id, text=text, source_id=source_id, metadata=json.loads(metadata_json))
