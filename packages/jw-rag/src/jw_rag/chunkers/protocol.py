"""The chunker protocol: a ``name``, a ``version``, the ``params()`` that
shape its output, and a ``chunk`` method."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from jw_rag.errors import ConfigError
from jw_rag.model import Chunk, ParagraphInput

__all__ = ["Chunker", "identity"]


@runtime_checkable
class Chunker(Protocol):
    """Turns the ordered paragraphs of one source into chunks with provenance.

    ``metadata`` is copied into every chunk; ``metadata["language"]`` (ISO or
    jw.org code) overrides language detection.

    ``version`` changes whenever the chunker's algorithm changes its output;
    ``params()`` returns every constructor option that can change the chunks,
    as JSON values (a composite chunker nests its parts' :func:`identity`).
    Together they decide whether a re-ingest can be skipped, so state that
    the chunker has run (usage counters, caches) never belongs in them.
    """

    name: str
    version: str

    def params(self) -> dict[str, Any]: ...

    def chunk(
        self,
        paragraphs: ParagraphInput,
        source_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> list[Chunk]: ...


def identity(chunker: Chunker) -> dict[str, Any]:
    """``{"name", "version", "params"}``: two chunkers with equal identities
    give the same chunks for the same input."""
    params = getattr(chunker, "params", None)
    name = getattr(chunker, "name", type(chunker).__name__)
    if not callable(params) or not getattr(chunker, "version", None):
        raise ConfigError(
            f"chunker {name!r} does not state its identity: give it a `version` string "
            "and a `params()` method returning the options that shape its chunks"
        )
    return {"name": name, "version": str(chunker.version), "params": params()}
