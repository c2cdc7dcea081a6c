"""Other libraries' chunkers, run on the document text and mapped back to
exact character ranges so they are scored by the same code as ours.

Each library is imported only when its variant runs; a missing one raises
:class:`~jw_rag.errors.MissingDependencyError` naming the ``bench`` extra.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from jw_rag.embed.protocol import Embedder
from jw_rag.errors import JwRagError, MissingDependencyError

__all__ = ["PEER_MODULES", "locate_pieces", "missing_peer_library", "peer_ranges"]

#: The module each peer imports (from the ``bench`` extra).
PEER_MODULES = {
    "langchain-recursive": "langchain_text_splitters",
    "chonkie-recursive": "chonkie",
    "chonkie-semantic": "chonkie",
    "semchunk": "semchunk",
}


def missing_peer_library(name: str) -> str | None:
    """The module peer ``name`` needs when it is not installed, else ``None``
    (nothing is imported)."""
    import importlib.util

    module = PEER_MODULES[name]
    return module if importlib.util.find_spec(module) is None else None


class _Unlocatable(JwRagError):
    pass


def locate_pieces(text: str, pieces: Sequence[str], peer: str) -> list[tuple[int, int]]:
    """Character ranges of ``pieces`` in ``text``, searching forward from the
    previous piece's start (pieces may overlap); leading/trailing whitespace
    of a piece is ignored."""
    out: list[tuple[int, int]] = []
    cursor = 0
    for piece in pieces:
        body = piece.strip()
        if not body:
            continue
        at = text.find(body, cursor)
        if at < 0:
            raise _Unlocatable(
                f"{peer} returned text that is not in the document ({body[:40]!r}...): "
                "it cannot be scored by span"
            )
        out.append((at, at + len(body)))
        cursor = at + 1
    return out


def _require(module: str, purpose: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            module.split(".")[0], "bench", purpose, dist="jw-eval"
        ) from exc


def _langchain(size: int, _embedder: Embedder | None) -> Callable[[str], list[str]]:
    mod = _require("langchain_text_splitters", "the langchain-recursive variant")
    splitter = mod.RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=0, length_function=len
    )
    return splitter.split_text


def _chonkie_recursive(size: int, _embedder: Embedder | None) -> Callable[[str], list[str]]:
    mod = _require("chonkie", "the chonkie-recursive variant")
    chunker = mod.RecursiveChunker(tokenizer="character", chunk_size=size)
    return lambda text: [c.text for c in chunker.chunk(text)]


def _semchunk(size: int, _embedder: Embedder | None) -> Callable[[str], list[str]]:
    mod = _require("semchunk", "the semchunk variant")
    return lambda text: list(mod.chunk(text, chunk_size=size, token_counter=len))


def _chonkie_semantic(size: int, embedder: Embedder | None) -> Callable[[str], list[str]]:
    mod = _require("chonkie", "the chonkie-semantic variant")
    from chonkie.embeddings import BaseEmbeddings

    if embedder is None:
        raise JwRagError("the chonkie-semantic variant needs an embedder")

    class _Bridge(BaseEmbeddings):  # type: ignore[misc]
        """Our embedder behind chonkie's embeddings interface."""

        def embed(self, text: str) -> np.ndarray:
            return embedder.embed([text])[0]

        def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
            return list(embedder.embed(texts)) if texts else []

        @property
        def dimension(self) -> int:
            return embedder.dim

        def get_tokenizer(self) -> Any:
            return "character"

        def similarity(self, u: np.ndarray, v: np.ndarray) -> np.float32:
            return np.float32(np.dot(u, v))

    chunker = mod.SemanticChunker(embedding_model=_Bridge(), chunk_size=size)
    return lambda text: [c.text for c in chunker.chunk(text)]


_FACTORIES: dict[str, Callable[[int, Embedder | None], Callable[[str], list[str]]]] = {
    "langchain-recursive": _langchain,
    "chonkie-recursive": _chonkie_recursive,
    "chonkie-semantic": _chonkie_semantic,
    "semchunk": _semchunk,
}


def peer_ranges(
    name: str, size: int, embedder: Embedder | None = None
) -> Callable[[str], list[tuple[int, int]]]:
    """A function from document text to the peer's chunk ranges in it."""
    split = _FACTORIES[name](size, embedder)
    return lambda text: locate_pieces(text, split(text), name)
