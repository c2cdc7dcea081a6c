"""What every built-in chunker shares, written once: :class:`ChunkerBase`.

A chunker names itself (``name``, ``version``), lists the constructor options
that shape its chunks (``options``) and says how it cuts one document
(``_pieces_for``). The base gives it the rest of the
:class:`~jw_rag.chunkers.Chunker` protocol:

- ``params()``: the options' values as JSON values, ``identity()`` and a
  ``repr`` that shows them;
- ``chunk()``: the input read once (:class:`ChunkInput`: the paragraph
  texts, the :class:`~jw_rag.model.Paragraph` objects when they are needed,
  the language from ``metadata["language"]`` or detected), then the
  chunker's pieces, then the chunks built with full provenance and linked in
  reading order (:mod:`jw_rag.chunk_ids`).

:func:`check_sizes` is the one check of the ``max_chars`` / ``min_chars``
pair every sized chunker takes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePath
from typing import Any, ClassVar

from jw_rag.chunkers._options import whole
from jw_rag.chunkers._pieces import (
    Piece,
    RawPiece,
    build_raw_chunks,
    iter_raw_chunks,
    paragraph_texts,
    raw_pieces,
    resolve_text_language,
)
from jw_rag.chunkers.protocol import identity
from jw_rag.errors import ConfigError
from jw_rag.model import Chunk, Paragraph, ParagraphInput

__all__ = ["ChunkInput", "ChunkerBase", "check_sizes"]


def check_sizes(max_chars: object, min_chars: object) -> tuple[int, int]:
    """``(max_chars, min_chars)`` when both are whole numbers, ``max_chars`` at
    least 1 and ``min_chars`` in ``[0, max_chars]``; else a one-line
    :class:`~jw_rag.errors.ConfigError` (a ``ValueError``) naming the option."""
    top = whole("max_chars", max_chars, low=1)
    bottom = whole("min_chars", min_chars)
    if bottom > top:
        raise ConfigError(
            f"min_chars must be between 0 and max_chars ({top}), got {bottom}: give a min_chars "
            f"of at most {top} or a max_chars of at least {bottom}"
        )
    return top, bottom


class ChunkInput:
    """One source as a chunker reads it: its ``source_id``, ``texts`` (one per
    paragraph, in order), ``language`` and the caller's ``metadata``.

    ``given`` is the :class:`~jw_rag.model.Paragraph` list when the input held
    any (``None``: plain strings, so no ids, pages, headings or kinds);
    ``paragraphs`` is always a ``Paragraph`` list, built on first use."""

    __slots__ = ("_paragraphs", "given", "language", "metadata", "source_id", "texts")

    def __init__(
        self,
        source_id: str,
        texts: list[str],
        given: list[Paragraph] | None,
        language: str | None,
        metadata: Mapping[str, Any] | None,
    ) -> None:
        self.source_id = source_id
        self.texts = texts
        self.given = given
        self.language = language
        self.metadata = metadata
        self._paragraphs = given

    @property
    def paragraphs(self) -> list[Paragraph]:
        """The input as ``Paragraph`` objects (strings become id-less ones)."""
        if self._paragraphs is None:
            self._paragraphs = [Paragraph(t) for t in self.texts]
        return self._paragraphs


class ChunkerBase:
    """``params()``, ``identity()``, ``repr`` and ``chunk()`` for a chunker that
    states its ``name``, ``version``, ``options`` and ``_pieces_for``."""

    name: str
    version: str
    #: The constructor options that shape the chunks, in the order shown; each
    #: is read from the attribute of that name (:meth:`_option`).
    options: ClassVar[tuple[str, ...]] = ()

    def params(self) -> dict[str, Any]:
        """The options that shape the chunks (see :class:`~jw_rag.chunkers.Chunker`)."""
        return {name: _json_value(self._option(name)) for name in self.options}

    def identity(self) -> dict[str, Any]:
        """``{"name", "version", "params"}`` (:func:`~jw_rag.chunkers.protocol.identity`)."""
        return identity(self)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={self._shown(name)!r}" for name in self.options)
        return f"{type(self).__name__}({shown})"

    def _option(self, name: str) -> Any:
        """The value ``params()`` records for option ``name``."""
        return getattr(self, name)

    def _shown(self, name: str) -> Any:
        """The value ``repr`` shows for option ``name`` (must not build anything)."""
        return self._option(name)

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]:
        """The chunks of one source: see the module docstring."""
        for stated in ("name", "version"):
            if not isinstance(getattr(self, stated, None), str):
                raise ConfigError(
                    f"chunker {type(self).__name__} does not state its {stated}: give the class "
                    f"a `{stated}` string (ChunkerBase needs name, version and _pieces_for)"
                )
        doc = self._read(paragraphs, source_id, metadata)
        return self._build(doc, self._pieces_for(doc))

    def iter_chunks(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> Iterator[Chunk]:
        """:meth:`chunk` one chunk at a time (the same chunks, linked as they
        come), for a chunker that builds its chunks as the base does; the
        pieces are found first, so a bad input fails before the first chunk."""
        if type(self)._build is not ChunkerBase._build or type(self).chunk is not ChunkerBase.chunk:
            return iter(self.chunk(paragraphs, source_id, metadata=metadata))
        doc = self._read(paragraphs, source_id, metadata)
        return iter_raw_chunks(
            doc.texts,
            doc.given,
            raw_pieces(self._pieces_for(doc)),
            doc.source_id,
            chunker=self.name,
            version=self.version,
            language=doc.language,
            metadata=doc.metadata,
        )

    def _read(
        self, paragraphs: ParagraphInput, source_id: str, metadata: Mapping[str, Any] | None
    ) -> ChunkInput:
        """The input as :class:`ChunkInput` (a bad input is a one-line ``TypeError``)."""
        texts, given = paragraph_texts(paragraphs)
        language = self._language(texts, given, metadata)
        return ChunkInput(source_id, texts, given, language, metadata)

    def _language(
        self, texts: list[str], given: list[Paragraph] | None, metadata: Mapping[str, Any] | None
    ) -> str | None:
        """``metadata["language"]`` when given, else detected from the text."""
        return resolve_text_language(texts, given, metadata)

    def _pieces_for(self, doc: ChunkInput) -> Sequence[Piece] | Sequence[RawPiece]:
        """Where this chunker cuts ``doc``: its chunks-to-be, in reading order."""
        raise NotImplementedError(f"{type(self).__name__} must define _pieces_for")

    def _build(self, doc: ChunkInput, pieces: Sequence[Piece] | Sequence[RawPiece]) -> list[Chunk]:
        """Chunks for ``pieces`` with the metadata every chunker promises."""
        return build_raw_chunks(
            doc.texts,
            doc.given,
            raw_pieces(pieces),
            doc.source_id,
            chunker=self.name,
            version=self.version,
            language=doc.language,
            metadata=doc.metadata,
        )


def _json_value(value: Any) -> Any:
    """An option's value as ``params()`` records it: a path as its text."""
    return str(value) if isinstance(value, PurePath) else value
